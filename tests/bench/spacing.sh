#!/bin/sh
# spacing: does a target gather the flock without crushing it? Runs headless
# set-ups with and without targets and prints, for each, the last CSV row's
# mean nearest-neighbour distance, collisions (pairs closer than 2 u),
# polarization, milling and oscillation, and the ratio of the nearest-neighbour
# distance to the same flock's without a target (issue 19's goal: >= 0.75,
# collisions < 3% of the agents).
#
#   tests/bench/spacing.sh [BINARY] [--quick]       (BINARY: build/server/swarmcast)
#   SPACING_SETS="agents:targets:species:model[:extra --set k=v,...]" to choose set-ups
set -eu
B=${1:-build/server/swarmcast}
QUICK=${2:-}
STEPS=${SPACING_STEPS:-1800}
SEED=${SPACING_SEED:-1}
W=${SPACING_WORLD:-1600x900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${SPACING_SETS:-}" ]; then
    SETS=$SPACING_SETS
elif [ "$QUICK" = "--quick" ]; then
    SETS="1000:1:1:reynolds 3000:2:1:reynolds"
else
    SETS="1000:1:1:reynolds 3000:2:1:reynolds 1000:3:1:reynolds 3000:1:2:reynolds 5000:2:4:reynolds
          10000:1:1:reynolds 20000:3:3:reynolds
          1000:1:1:unicycle 3000:2:1:unicycle 1000:1:1:olfati2 3000:2:1:olfati2
          1000:1:1:reynolds:separation=potential 3000:2:1:reynolds:separation=potential"
fi
wx=${W%x*}
wy=${W#*x}
# One run; prints the last CSV row.
run() { # agents targets species model extra
    n=$1 t=$2 s=$3 m=$4 extra=$5
    {
        printf '{"seed":%s,"agents":%s,"world":{"width":%s,"height":%s},"targets":[' "$SEED" "$n" "$wx" "$wy"
        k=0
        while [ $k -lt "$t" ]; do
            [ $k -gt 0 ] && printf ','
            # targets spread along the middle line
            printf '{"x":%s,"y":%s,"client_id":%s}' $((wx * (2 * k + 1) / (2 * t))) $((wy / 2)) $((k + 1))
            k=$((k + 1))
        done
        printf '],"steps":%s}\n' "$STEPS"
    } >"$tmp/s.json"
    sets="--set species=$s --model $m"
    for kv in $(echo "$extra" | tr ',' ' '); do sets="$sets --set $kv"; done
    # shellcheck disable=SC2086
    "$B" --headless --scenario "$tmp/s.json" $sets --csv "$tmp/m.csv" --metrics-every "$STEPS" 2>/dev/null
    tail -n 1 "$tmp/m.csv"
}
col() { # header name → column number
    head -n 1 "$tmp/m.csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}
printf '%-44s %8s %8s %6s %6s %7s %6s %7s %s\n' "set-up (after $STEPS steps, $W, seed $SEED)" "nn (u)" "free nn" ratio coll "coll %" pol osc verdict
for set in $SETS; do
    IFS=: read -r n t s m extra <<SET
$set
SET
    free=$(run "$n" 0 "$s" "$m" "${extra:-}")
    row=$(run "$n" "$t" "$s" "$m" "${extra:-}")
    c_nn=$(col mean_nn_distance) c_col=$(col collisions) c_pol=$(col polarization) c_osc=$(col oscillation || true)
    echo "$free $row" | awk -v n="$n" -v t="$t" -v s="$s" -v m="$m" -v x="${extra:-}" -v cnn="$c_nn" -v ccol="$c_col" \
        -v cpol="$c_pol" -v cosc="${c_osc:-0}" '{
        split($1, f, ","); split($2, r, ",");
        ratio = f[cnn] > 0 ? r[cnn] / f[cnn] : 0; pct = 100 * r[ccol] / n;
        name = sprintf("%d agents, %d target%s, %d species, %s%s", n, t, t == 1 ? "" : "s", s, m, x == "" ? "" : " " x);
        printf "%-44s %8.2f %8.2f %6.2f %6d %6.2f%% %6.2f %7s %s\n", name, r[cnn], f[cnn], ratio, r[ccol], pct, r[cpol],
            cosc ? sprintf("%.3f", r[cosc]) : "-", (ratio >= 0.75 && pct < 3) ? "ok" : "CRUSHED";
    }'
done

#!/bin/sh
# spacing: does a target gather the flock without crushing it, and does the
# free flock still order? Issue 19's goals, checked on headless runs from the
# last CSV row of each:
#
#   target set-ups   each runs twice from the same seed, without targets and
#                    with them (spread along the middle line), for
#                    SPACING_STEPS (1800 = 30 s): PASS when the mean
#                    nearest-neighbour distance is at least 75% of the same
#                    flock's without a target and collisions (pairs closer
#                    than 2 u) stay under 3% of the agents;
#   free flocks      no target, SPACING_FREE_STEPS (3600 = 60 s) in the
#                    wrapping world: PASS when polarization > 0.9.
#
# Every set-up runs for every seed in SPACING_SEEDS (1 2 3). The last line
# counts the FAILs; the exit status is 1 when there is one.
#
#   tests/bench/spacing.sh [BINARY] [--quick]       (BINARY: build/server/swarmcast)
#   SPACING_SETS="agents:targets:species:model[:name=value,...] ..."   target set-ups
#   SPACING_FREE="agents:species:model[:name=value,...] ..."           free flocks
#   SPACING_SEEDS, SPACING_STEPS, SPACING_FREE_STEPS, SPACING_WORLD (1600x900)
set -eu
B=${1:-build/server/swarmcast}
QUICK=${2:-}
STEPS=${SPACING_STEPS:-1800}
FREE_STEPS=${SPACING_FREE_STEPS:-3600}
SEEDS=${SPACING_SEEDS:-${SPACING_SEED:-1 2 3}}
W=${SPACING_WORLD:-1600x900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$QUICK" = "--quick" ]; then
    SETS=${SPACING_SETS:-"1000:1:1:reynolds 3000:2:1:reynolds 1000:1:1:unicycle"}
    FREE=${SPACING_FREE:-"1000:1:reynolds 3000:1:reynolds"}
else
    SETS=${SPACING_SETS:-"1000:1:1:reynolds 1000:3:1:reynolds 1000:2:4:reynolds 3000:2:1:reynolds 3000:1:2:reynolds
          5000:2:4:reynolds 10000:1:1:reynolds 20000:1:1:reynolds 20000:3:3:reynolds
          1000:1:1:unicycle 3000:2:1:unicycle 5000:3:2:unicycle
          1000:1:1:olfati2 3000:2:1:olfati2 3000:2:2:olfati3 1000:1:1:olfati1 1000:1:1:couzin
          1000:1:1:reynolds:separation=potential 3000:2:1:reynolds:separation=potential"}
    FREE=${SPACING_FREE:-"1000:1:reynolds 3000:1:reynolds 1000:4:reynolds 3000:4:reynolds 10000:1:reynolds"}
fi
wx=${W%x*}
wy=${W#*x}
fails=0
runs=0

# One run: agents targets species model extra seed steps; leaves its CSV in $tmp/m.csv.
run() {
    n=$1 t=$2 s=$3 m=$4 extra=$5 seed=$6 steps=$7
    {
        printf '{"seed":%s,"agents":%s,"world":{"width":%s,"height":%s},"targets":[' "$seed" "$n" "$wx" "$wy"
        k=0
        while [ $k -lt "$t" ]; do
            [ $k -gt 0 ] && printf ','
            printf '{"x":%s,"y":%s,"client_id":%s}' $((wx * (2 * k + 1) / (2 * t))) $((wy / 2)) $((k + 1))
            k=$((k + 1))
        done
        printf '],"steps":%s}\n' "$steps"
    } >"$tmp/s.json"
    sets="--set species=$s --model $m"
    for kv in $(echo "$extra" | tr ',' ' '); do sets="$sets --set $kv"; done
    # shellcheck disable=SC2086
    "$B" --headless --scenario "$tmp/s.json" $sets --csv "$tmp/m.csv" --metrics-every "$steps" 2>/dev/null
    tail -n 1 "$tmp/m.csv"
}
col() { # header name → column number
    head -n 1 "$tmp/m.csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}
verdict() { # PASS|FAIL → counts it
    runs=$((runs + 1))
    [ "$1" = PASS ] || fails=$((fails + 1))
}

printf '== targets: after %s steps in %s; PASS: ratio >= 0.75 and collisions < 3%%\n' "$STEPS" "$W"
printf '%-50s %4s %8s %8s %6s %6s %7s %6s %7s %s\n' "set-up" seed "nn (u)" "free nn" ratio coll "coll %" pol osc verdict
for set in $SETS; do
    IFS=: read -r n t s m extra <<SET
$set
SET
    for seed in $SEEDS; do
        free=$(run "$n" 0 "$s" "$m" "${extra:-}" "$seed" "$STEPS")
        row=$(run "$n" "$t" "$s" "$m" "${extra:-}" "$seed" "$STEPS")
        c_nn=$(col mean_nn_distance) c_col=$(col collisions) c_pol=$(col polarization) c_osc=$(col oscillation)
        line=$(echo "$free $row" | awk -v n="$n" -v t="$t" -v s="$s" -v m="$m" -v x="${extra:-}" -v seed="$seed" \
            -v cnn="$c_nn" -v ccol="$c_col" -v cpol="$c_pol" -v cosc="$c_osc" '{
            split($1, f, ","); split($2, r, ",");
            ratio = f[cnn] > 0 ? r[cnn] / f[cnn] : 0; pct = 100 * r[ccol] / n;
            name = sprintf("%d agents, %d target%s, %d species, %s%s", n, t, t == 1 ? "" : "s", s, m, x == "" ? "" : " " x);
            printf "%-50s %4d %8.2f %8.2f %6.2f %6d %6.2f%% %6.2f %7.3f %s\n", name, seed, r[cnn], f[cnn], ratio, r[ccol],
                pct, r[cpol], r[cosc], (ratio >= 0.75 && pct < 3) ? "PASS" : "FAIL";
        }')
        echo "$line"
        verdict "${line##* }"
    done
done

printf '\n== free flocks: no target, after %s steps in a wrapping %s; PASS: polarization > 0.9\n' "$FREE_STEPS" "$W"
printf '%-50s %4s %8s %6s %6s %7s %s\n' "set-up" seed "nn (u)" coll pol osc verdict
for set in $FREE; do
    IFS=: read -r n s m extra <<SET
$set
SET
    for seed in $SEEDS; do
        row=$(run "$n" 0 "$s" "$m" "${extra:-}" "$seed" "$FREE_STEPS")
        c_nn=$(col mean_nn_distance) c_col=$(col collisions) c_pol=$(col polarization) c_osc=$(col oscillation)
        line=$(echo "$row" | awk -v n="$n" -v s="$s" -v m="$m" -v x="${extra:-}" -v seed="$seed" -v cnn="$c_nn" \
            -v ccol="$c_col" -v cpol="$c_pol" -v cosc="$c_osc" '{
            split($1, r, ",");
            name = sprintf("%d agents, %d species, %s%s", n, s, m, x == "" ? "" : " " x);
            printf "%-50s %4d %8.2f %6d %6.2f %7.3f %s\n", name, seed, r[cnn], r[ccol], r[cpol], r[cosc],
                (r[cpol] > 0.9) ? "PASS" : "FAIL";
        }')
        echo "$line"
        verdict "${line##* }"
    done
done

printf '\n%d of %d runs PASS, %d FAIL\n' $((runs - fails)) "$runs" "$fails"
[ "$fails" -eq 0 ]

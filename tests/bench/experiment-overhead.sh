#!/usr/bin/env bash
# The experiment runner's cost (docs/BENCHMARKS.md, "Experiments"): a sweep
# of RUNS short runs with --workers 1 against the same runs as bare
# headless commands one after another (the overhead of the runner), and
# --workers 2 against --workers 1 (the speed-up over cores). Each variant
# runs ROUNDS times in turn; the medians and the ratios are printed.
#
#   tests/bench/experiment-overhead.sh [BINARY]      (default build/server/swarmcast)
#   RUNS=200 STEPS=300 AGENTS=200 ROUNDS=3 tests/bench/experiment-overhead.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/build/server/swarmcast}
RUNS=${RUNS:-200} STEPS=${STEPS:-300} AGENTS=${AGENTS:-200} ROUNDS=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

points=20
replicates=$(( RUNS / points ))
cat >"$work/sweep.json" <<JSON
{"scenario": {"agents": $AGENTS, "world": {"width": 800, "height": 450}},
 "factors": [{"param": "w_ali", "first": 0.1, "step": 0.1, "last": 2.0}],
 "replicates": $replicates, "master_seed": 1, "steps": $STEPS}
JSON
"$B" experiment plan "$work/sweep.json" >"$work/plan.csv" 2>/dev/null
echo '{"agents": '"$AGENTS"', "world": {"width": 800, "height": 450}}' >"$work/scenario.json"

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
runner() { # workers
  rm -rf "$work/out"
  local t0; t0=$(now)
  "$B" experiment run "$work/sweep.json" --out "$work/out" --workers "$1" 2>/dev/null
  calc "$(now) - $t0"
}
bare() {
  local t0; t0=$(now)
  tail -n +2 "$work/plan.csv" | while IFS=, read -r _ _ _ seed w; do
    "$B" --headless --scenario "$work/scenario.json" --seed "$seed" --steps "$STEPS" --threads 1 \
      --set "w_ali=$w" --csv "$work/bare.csv" --metrics-every "$STEPS" 2>/dev/null
  done
  calc "$(now) - $t0"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

isa=$(grep -m1 -o 'avx512f' /proc/cpuinfo >/dev/null && echo "AVX-512" || echo "AVX2 or less")
echo "experiment runner: $((points * replicates)) runs of $AGENTS agents × $STEPS steps, $ROUNDS rounds;" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($isa), $(nproc) cores"
: >"$work/w1"; : >"$work/w2"; : >"$work/bare"
for _ in $(seq "$ROUNDS"); do
  runner 1 >>"$work/w1"
  bare >>"$work/bare"
  runner 2 >>"$work/w2"
done
w1=$(median <"$work/w1") w2=$(median <"$work/w2") b=$(median <"$work/bare")
printf '  bare headless commands, one after another  %7.2f s (median)\n' "$b"
printf '  experiment run --workers 1                 %7.2f s   %+.1f%% against bare\n' "$w1" \
  "$(calc "($w1 / $b - 1) * 100")"
printf '  experiment run --workers 2                 %7.2f s   %.2f× the runs per second of --workers 1\n' "$w2" \
  "$(calc "$w1 / $w2")"

#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, in
# build-fuzz/) and runs each for a bounded time from its seed corpus. Fails on
# any crash, sanitizer report, leak, timeout or broken invariant.
#   scripts/fuzz.sh               every target of tests/fuzz/targets.txt
#   scripts/fuzz.sh cmd_decode    only the targets named
# FUZZ_SECONDS (default 60): time per target.
# Inputs that found new coverage go to build-fuzz/corpus/NAME (kept between
# runs, never in the repository); a failing input is saved under
# build-fuzz/artifacts/NAME/ and the script prints how to replay it. Add a
# fixed crash to tests/fuzz/corpus/NAME/ as a regression seed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
dir="$root/build-fuzz"

echo "== fuzz build" >&2
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWARMCAST_FUZZ=ON \
  -DBUILD_TESTING=OFF -DSWARMCAST_BENCH=OFF >/dev/null
cmake --build "$dir" --target fuzz_targets --parallel "$(nproc)" >/dev/null

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
while read -r name max_len dict; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  work="$dir/corpus/$name" artifacts="$dir/artifacts/$name" log="$dir/logs/$name.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  opts=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ -n "${dict:-}" ] && opts+=(-dict="$root/tests/fuzz/$dict")
  echo "== fuzz $name: ${seconds} s, inputs up to $max_len bytes" >&2
  if "$dir/fuzz/fuzz_$name" "${opts[@]}" "$work" "$root/tests/fuzz/corpus/$name" >"$log" 2>&1; then
    grep -E "DONE +cov" "$log" | tail -n 1 || true
    grep -E "stat::(number_of_executed_units|average_exec_per_sec)" "$log" || true
  else
    failed+=("$name")
    tail -n 60 "$log"
    echo "fuzz $name FAILED (log: $log); replay with:" >&2
    ls "$artifacts"/* 2>/dev/null | sed "s|^|  $dir/fuzz/fuzz_$name |" >&2 || true
  fi
done <"$root/tests/fuzz/targets.txt"

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi

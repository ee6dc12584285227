#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, in
# build-fuzz/) and runs each for a bounded time from its seed corpus. Fails on
# any crash, sanitizer report, leak, timeout or broken invariant.
#   scripts/fuzz.sh               every target of tests/fuzz/targets.txt
#   scripts/fuzz.sh cmd_decode    only the targets named
# FUZZ_SECONDS (default 60): time per target.
# Inputs that found new coverage go to build-fuzz/corpus/NAME (kept between
# runs, never in the repository); a failing input is saved under
# build-fuzz/artifacts/NAME/, and the script prints it (text, or od -c of
# binary, and base64 to recreate it from a CI log), the command that replays
# it, and how to keep it as a regression input in tests/fuzz/regressions/NAME/,
# which ctest replays on every build (fuzz_regress_NAME).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
dir="$root/build-fuzz"

echo "== fuzz build" >&2
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWARMCAST_FUZZ=ON \
  -DBUILD_TESTING=OFF -DSWARMCAST_BENCH=OFF >/dev/null
cmake --build "$dir" --target fuzz_targets --parallel "$(nproc)" >/dev/null

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# A failing input as the log shows it: a CI machine's build-fuzz/ is gone
# once the job ends, so the log alone must be enough to replay it.
show_input() { # NAME FILE
  local name=$1 file=$2 size limit=1024
  size=$(wc -c <"$file")
  echo "-- failing input: $file ($size bytes)"
  if LC_ALL=C grep -q '[^[:print:][:space:]]' "$file"; then
    echo "   binary; od -c of the first $limit bytes:"
    head -c "$limit" "$file" | od -A d -c | sed 's/^/   /'
  else
    echo "   text (at most the first $limit bytes):"
    head -c "$limit" "$file" | sed 's/^/   | /'
    echo
  fi
  [ "$size" -gt "$limit" ] && echo "   ... ($((size - limit)) more bytes)"
  echo "-- replay: $dir/fuzz/fuzz_$name $file"
  echo "   (or, with no clang, in any build with tests: BUILD/tests/fuzz/regress/regress_$name $file)"
  echo "-- keep it as a regression input (ctest fuzz_regress_$name replays it on every build):"
  if [ "$size" -le 16384 ]; then
    echo "   mkdir -p tests/fuzz/regressions/$name"
    echo "   echo '$(base64 -w0 "$file")' | base64 -d > tests/fuzz/regressions/$name/WHAT-IT-IS"
  else
    echo "   mkdir -p tests/fuzz/regressions/$name"
    echo "   cp $file tests/fuzz/regressions/$name/WHAT-IT-IS   (too long to print as base64)"
  fi
}
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
  stamp="$dir/logs/$name.started"
  touch "$stamp"
  if "$dir/fuzz/fuzz_$name" "${opts[@]}" "$work" "$root/tests/fuzz/corpus/$name" >"$log" 2>&1; then
    grep -E "DONE +cov" "$log" | tail -n 1 || true
    grep -E "stat::(number_of_executed_units|average_exec_per_sec)" "$log" || true
  else
    failed+=("$name")
    tail -n 60 "$log"
    echo "fuzz $name FAILED (log: $log)" >&2
    found=$(find "$artifacts" -type f -newer "$stamp" | sort)
    [ -n "$found" ] || echo "-- no input saved (the fuzzer failed before running one?)" >&2
    for file in $found; do show_input "$name" "$file" >&2; done
  fi
done <"$root/tests/fuzz/targets.txt"

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi

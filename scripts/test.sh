#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test twice: once in a
# release build and once under AddressSanitizer + UndefinedBehaviorSanitizer.
# Unit tests (cmocka), the integration test (real server + ws client) and the
# browser test (headless Chromium via playwright-core) all run under ctest.
# Then each libFuzzer target runs for FUZZ_SECONDS (60) under ASan + UBSan
# (scripts/fuzz.sh).
#
# The steps run in order and the first failure stops the script; it then says
# which step failed (and which tests) and which steps did not run, so a red
# run never looks like a short green one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

steps=("packages" "npm packages" "release build" "release tests" "asan build" "asan tests" "fuzzers")
step="" failed_tests=""
begin() { step=$1; echo "== $step" >&2; }
report_failure() {
  local rc=$? i rest=()
  if [ $rc -eq 0 ] || [ -z "$step" ]; then return; fi
  for i in "${!steps[@]}"; do
    [ "${steps[$i]}" = "$step" ] && rest=("${steps[@]:$((i + 1))}")
  done
  local what=$step
  [ -n "$failed_tests" ] && what="$step ($failed_tests)"
  local not_run=""
  [ ${#rest[@]} -gt 0 ] && not_run="; not run: $(IFS=,; echo "${rest[*]}" | sed 's/,/, /g')"
  local verdict=FAILED
  [ $rc -gt 128 ] && verdict="STOPPED (signal $((rc - 128)))"
  echo "== $verdict: $what$not_run" >&2
}
trap report_failure EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The builds and the test suites are silent for minutes (ctest prints a
# test's name as it starts and its result as it ends, and the integration
# and browser suites take minutes in between): this filter says every minute
# what is still running, so a long step is not taken for a hang. `show`
# passes the lines through (ctest's, including its closing "N% tests passed"
# line), `hide` only follows them (a build's "[ 45%]").
progress() {
  local mode=$1 line="" part current=$step since=$SECONDS shown=$SECONDS rc built=""
  while :; do
    if IFS= read -r -t $(( shown + 60 > SECONDS ? shown + 60 - SECONDS : 1 )) part; then
      line+=$part
      if [ "$mode" = show ]; then printf '%s\n' "$line"; shown=$SECONDS; fi
      case "$line" in
        *"Start "*:*) current=${line##*: } since=$SECONDS ;;
        "["*"%]"*) built=${line%%\]*} built=${built#[} built=${built// /} ;;
      esac
      line=""
    else
      rc=$?
      if [ $rc -le 128 ]; then # the end (a last line without a newline is kept)
        [ "$mode" = show ] && [ -n "$line$part" ] && printf '%s\n' "$line$part"
        return 0
      fi
      line+=$part # a timeout keeps what it read of an unfinished line
    fi
    if [ $(( SECONDS - shown )) -ge 60 ]; then
      echo "      ... $current still running ($(( (SECONDS - since) / 60 )) min${built:+, $built built})" >&2
      shown=$SECONDS
    fi
  done
}

begin "packages"
"$root/scripts/deps.sh" test
begin "npm packages"
# npm's summary line goes to stdout (its errors to stderr, which shows).
(cd "$root/tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
# The browser client's libraries, which the browser suites load from the server.
"$root/scripts/web-deps.sh"
# Debian installs nats-server in /usr/sbin, which a user's PATH may lack;
# the NATS tests look it up on PATH.
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin" ;; esac

for variant in release asan; do
  dir="$root/build-test-$variant"
  opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWARMCAST_WERROR=ON)
  [ "$variant" = asan ] && opts+=(-DSWARMCAST_SANITIZE=ON)
  begin "$variant build"
  cmake -S "$root" -B "$dir" "${opts[@]}" >/dev/null
  cmake --build "$dir" --parallel "$(nproc)" | progress hide
  begin "$variant tests"
  if ! (cd "$dir" && ctest --output-on-failure --timeout 300 2>&1 | progress show); then
    failed_tests=$(cut -d: -f2 "$dir/Testing/Temporary/LastTestsFailed.log" 2>/dev/null | paste -sd, - | sed 's/,/, /g')
    exit 1
  fi
  # What the hostile-visitor suites measured (ctest keeps passing tests'
  # output only in its log): the bystanders' rates, memory, close codes.
  echo "== $variant figures" >&2
  grep -E '^# [a-zA-Z0-9 -]+[:(]' "$dir/Testing/Temporary/LastTest.log" | grep -v '^# Subtest' || true
done

begin "fuzzers"
"$root/scripts/fuzz.sh"
step=""
echo "== all steps passed" >&2

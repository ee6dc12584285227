#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test twice: once in a
# release build and once under AddressSanitizer + UndefinedBehaviorSanitizer.
# Unit tests (cmocka), the integration test (real server + ws client) and the
# browser test (headless Chromium via playwright-core) all run under ctest.
# Then each libFuzzer target runs for FUZZ_SECONDS (60) under ASan + UBSan
# (scripts/fuzz.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" test
(cd "$root/tests" && npm ci --no-audit --no-fund --loglevel=error)
# The browser client's libraries, which the browser suites load from the server.
"$root/scripts/web-deps.sh"
# Debian installs nats-server in /usr/sbin, which a user's PATH may lack;
# the NATS tests look it up on PATH.
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH="$PATH:/usr/sbin" ;; esac

for variant in release asan; do
  dir="$root/build-test-$variant"
  opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWARMCAST_WERROR=ON)
  [ "$variant" = asan ] && opts+=(-DSWARMCAST_SANITIZE=ON)
  echo "== $variant build" >&2
  cmake -S "$root" -B "$dir" "${opts[@]}" >/dev/null
  cmake --build "$dir" --parallel "$(nproc)" >/dev/null
  echo "== $variant tests" >&2
  (cd "$dir" && ctest --output-on-failure --timeout 300)
  # What the hostile-visitor suites measured (ctest keeps passing tests'
  # output only in its log): the bystanders' rates, memory, close codes.
  echo "== $variant figures" >&2
  grep -E '^# [a-zA-Z0-9 -]+[:(]' "$dir/Testing/Temporary/LastTest.log" | grep -v '^# Subtest' || true
done

"$root/scripts/fuzz.sh"

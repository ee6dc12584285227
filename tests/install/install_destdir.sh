#!/usr/bin/env bash
# ctest install_destdir: `cmake --install` into a DESTDIR puts every file in
# its place, and the installed binary, started with no flag but a free port,
# serves the installed web client: GET / is share/swarmcast/client-web's
# index.html, and a shipped experiment is found by its name.
#   tests/install/install_destdir.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
. "$src/tests/install/http_get.sh"
dest=$(mktemp -d "${TMPDIR:-/tmp}/swarmcast-install.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dest"' EXIT
fail() { echo "install_destdir: $*" >&2; exit 1; }

DESTDIR=$dest cmake --install "$build" --prefix /opt/swarmcast >/dev/null
root=$dest/opt/swarmcast
for f in bin/swarmcast share/man/man1/swarmcast.1 share/bash-completion/completions/swarmcast \
         share/swarmcast/client-web/index.html share/swarmcast/client-web/node_modules/uplot/dist/uPlot.iife.min.js \
         share/swarmcast/client-web/node_modules/qrcode-generator/dist/qrcode.js \
         share/swarmcast/client-web/scenarios/index.json share/swarmcast/experiments/fov.json \
         share/swarmcast/examples/swarmcast.env share/swarmcast/examples/swarmcast.service; do
  [ -s "$root/$f" ] || fail "$f is missing"
done
[ -x "$root/bin/swarmcast" ] || fail "bin/swarmcast is not executable"
[ ! -e "$root/share/swarmcast/client-web/package.json" ] || fail "package.json was installed"

# Started from elsewhere (not the source tree), without --web-root.
cd "$dest"
"$root/bin/swarmcast" --port 0 --metrics-listen off --agents 50 --max-agents 1000 >"$dest/log" 2>&1 &
pid=$!
port=$(wait_listening "$dest/log") || { cat "$dest/log" >&2; fail "the installed binary did not start"; }
http_get 127.0.0.1 "$port" / >"$dest/page"
head -n 1 "$dest/page" | grep -q '^HTTP/1\.[01] 200' || fail "GET / did not answer 200: $(head -n 1 "$dest/page")"
# The body is the installed index.html, byte for byte.
sed '1,/^\r$/d' "$dest/page" | cmp -s - "$root/share/swarmcast/client-web/index.html" ||
  fail "GET / is not share/swarmcast/client-web/index.html"
http_get 127.0.0.1 "$port" /node_modules/uplot/dist/uPlot.iife.min.js >"$dest/uplot"
head -n 1 "$dest/uplot" | grep -q ' 200' ||
  fail "the installed uPlot is not served"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

"$root/bin/swarmcast" experiment plan fov.json >"$dest/plan" 2>/dev/null && grep -q '^run_id,' "$dest/plan" ||
  fail "experiment plan fov.json did not find the shipped experiment"
echo "install_destdir: ok (GET / on port $port is the installed index.html)"

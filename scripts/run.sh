#!/usr/bin/env bash
# Installs what is missing, builds swarmcast (release) and runs the server.
# Extra arguments go to the server: scripts/run.sh --agents 5000 --port 9000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" run
# The browser client's npm libraries (uPlot, qrcode-generator), served from client-web/node_modules.
"$root/scripts/web-deps.sh"
# Tests are not built here (they need cmocka and Node.js): scripts/test.sh does that.
# The compiler's warnings and errors still show (on stderr); the first build takes a minute.
echo "building swarmcast (release, in build/; about a minute the first time)" >&2
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$root/build" --parallel "$(nproc)" --target swarmcast >/dev/null
exec "$root/build/server/swarmcast" --web-root "$root/client-web" "$@"

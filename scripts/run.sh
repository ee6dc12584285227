#!/usr/bin/env bash
# Installs what is missing, builds swarmcast (release) and runs the server.
# Extra arguments go to the server: scripts/run.sh --agents 5000 --port 9000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" build
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --parallel "$(nproc)" --target swarmcast >/dev/null
exec "$root/build/server/swarmcast" --web-root "$root/client-web" "$@"

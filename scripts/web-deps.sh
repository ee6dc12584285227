#!/usr/bin/env bash
# Installs the browser client's npm packages (client-web/package.json, exact
# versions from its package-lock.json) into client-web/node_modules, which the
# server serves with the rest of client-web/. Skipped when node_modules already
# holds exactly what the lock file names (so scripts/run.sh also starts
# offline once it has run); SWARMCAST_NPM_CI=1 forces a fresh install.
set -euo pipefail
web=$(cd "$(dirname "$0")/../client-web" && pwd)
stamp="$web/node_modules/.swarmcast-lock.json"
if [ "${SWARMCAST_NPM_CI:-0}" != 1 ] && cmp -s "$web/package-lock.json" "$stamp"; then
  exit 0
fi
# npm's own summary ("added 1 package in 3s") goes to stdout; its errors still show.
(cd "$web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
cp "$web/package-lock.json" "$stamp"

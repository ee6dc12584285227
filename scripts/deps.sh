#!/usr/bin/env bash
# Installs what swarmcast needs from Debian's packages, only what is missing.
#   scripts/deps.sh build   compiler, cmake, libwebsockets, libuv, cJSON, the
#                           NATS C client (libnats), utf8proc (Unicode data)
#   scripts/deps.sh run     the above plus Node.js/npm (npm installs the browser
#                           client's libraries into client-web/node_modules)
#                           and nats-server (the scaled set-up, --nats)
#   scripts/deps.sh test    the above plus cmocka, zlib (swarmcast-wire2-bench
#                           measures deflate), Chromium, clang
#                           with libFuzzer's runtime (libclang-rt-14-dev), and
#                           caddy (the reverse proxy of integration/proxy.test.mjs),
#                           groff (the ctest man_page renders swarmcast(1)),
#                           dpkg-dev and lintian (the ctest package_deb builds
#                           and checks the Debian package)
# Runs apt-get as root (directly, or through sudo when not root).
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libwebsockets-dev libuv1-dev libcjson-dev libnats-dev libutf8proc-dev)
run_pkgs=(nodejs npm nats-server)
test_pkgs=(libcmocka-dev zlib1g-dev chromium clang-14 libclang-rt-14-dev caddy groff-base dpkg-dev lintian)

want=("${build_pkgs[@]}")
case "${1:-build}" in
  run)  want+=("${run_pkgs[@]}") ;;
  test) want+=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
  # A tool already on PATH (node/npm from another source, say) counts as present.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm)    command -v npm  >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# apt is silent for a minute or more (a fresh system fetches a few hundred MB):
# say what comes and that it takes a while, keep apt's own lines in a log and
# show them only when it fails.
echo "installing ${#missing[@]} Debian packages (with what they depend on; a few minutes on a fresh system, once):" >&2
echo "  ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
log=$(mktemp "${TMPDIR:-/tmp}/swarmcast-deps.XXXXXX")
start=$SECONDS
# A line a minute while apt works, so that a slow mirror is not taken for a hang.
(m=0; while sleep 60 >/dev/null 2>&1; do m=$((m + 1)); echo "  ... still installing ($m min)" >&2; done) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
if ! { $sudo apt-get update -qq &&
       DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "deps: apt-get failed (its whole output: $log)" >&2
  exit 1
fi
rm -f "$log"
# Debian's caddy starts a system service on port 80 when installed on a
# machine run by systemd; the tests start their own instances on free
# ports, so the service this script brought in is stopped and disabled.
if [[ " ${missing[*]} " == *" caddy "* ]] && [ -d /run/systemd/system ]; then
  $sudo systemctl disable --now caddy >/dev/null 2>&1 || true
  echo "caddy's system service (port 80) stopped and disabled: the tests run their own" >&2
fi
echo "installed in $(( SECONDS - start )) s" >&2

#!/usr/bin/env bash
# Installs what swarmcast needs from Debian's packages, only what is missing.
#   scripts/deps.sh build   compiler, cmake, libwebsockets, libuv, cJSON
#   scripts/deps.sh test    the above plus cmocka, Node.js/npm, Chromium, and clang
#                           with libFuzzer's runtime (libclang-rt-14-dev)
# Runs apt-get as root (directly, or through sudo when not root).
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libwebsockets-dev libuv1-dev libcjson-dev)
test_pkgs=(libcmocka-dev chromium nodejs npm clang-14 libclang-rt-14-dev)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}")

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

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

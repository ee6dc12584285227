#!/usr/bin/env bash
# Checks a built swarmcast .deb without installing it (no root needed): its
# files (dpkg-deb -c), its control fields and dependencies (dpkg-deb -I),
# and lintian: no error and no warning (the overrides, each with its
# reason, are packaging/swarmcast.lintian-overrides). Used by
# scripts/check-package.sh and the ctest package_deb.
#   scripts/check-deb.sh DEB
set -euo pipefail
deb=$1
say() { echo "check-deb: $*"; }
fail() { echo "check-deb: FAILED: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/swarmcast-check-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "$(basename "$deb"): $(stat -c %s "$deb") bytes, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB"
dpkg-deb -c "$deb" >"$work/contents"
for f in ./usr/bin/swarmcast ./usr/share/man/man1/swarmcast.1.gz ./usr/share/bash-completion/completions/swarmcast \
         ./lib/systemd/system/swarmcast.service ./etc/swarmcast/swarmcast.env ./usr/share/doc/swarmcast/copyright \
         ./usr/share/swarmcast/client-web/index.html ./usr/share/swarmcast/client-web/node_modules/uplot/dist/uPlot.iife.min.js \
         ./usr/share/swarmcast/experiments/fov.json; do
  grep -q " $f\$" "$work/contents" || fail "the package has no $f"
done
if grep -qE '\.(c|h|o|a)$|/include/|CMakeLists' "$work/contents"; then fail "the package carries build files"; fi
dpkg-deb -f "$deb" Depends | tee "$work/depends" | sed 's/^/check-deb: Depends: /'
for lib in libwebsockets17 libwebsockets-evlib-uv libuv1 libcjson1 libnats3 libutf8proc2; do grep -q "$lib" "$work/depends" || fail "Depends lacks $lib"; done
if grep -qE 'gcc|cmake|-dev|npm|nodejs' "$work/depends"; then fail "Depends names a build tool"; fi
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/swarmcast/swarmcast.env ||
  fail "/etc/swarmcast/swarmcast.env is not a conffile"
# The unit's sandbox, from the package's own files (systemd 252 scores a unit
# file without a running systemd).
if command -v systemd-analyze >/dev/null; then
  dpkg-deb -x "$deb" "$work/root"
  systemd-analyze security --offline=true --root="$work/root" swarmcast.service >"$work/security" 2>&1 || true
  score=$(sed -n 's/.*Overall exposure level for swarmcast.service: \([0-9.]*\).*/\1/p' "$work/security")
  [ -n "$score" ] || { cat "$work/security" >&2; fail "systemd-analyze security gave no score"; }
  say "systemd-analyze security --offline=true: $(grep 'Overall exposure' "$work/security")"
  awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "exposure $score is above 2.0"
fi
command -v lintian >/dev/null || fail "lintian is not installed (apt-get install lintian)"
lintian_rc=0
lintian --fail-on error,warning --info --pedantic "$deb" 2>&1 | grep -v 'running with root privileges' >"$work/lintian" ||
  lintian_rc=${PIPESTATUS[0]}
sed 's/^/check-deb: lintian: /' "$work/lintian"
[ "$lintian_rc" = 0 ] || fail "lintian"
say "lintian --pedantic: no error, no warning, $(grep -c . "$work/lintian" || true) other tags (1 overridden: packaging/swarmcast.lintian-overrides)"


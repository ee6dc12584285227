#!/usr/bin/env bash
# ctest package_deb: scripts/package.sh builds the .deb from this tree (its
# own Release build, about as long as the project's build), and
# scripts/check-deb.sh finds it whole: files, control fields, dependencies,
# the unit's exposure score and lintian. Skipped (77) on a machine without
# the packaging tools (apt-get install dpkg-dev lintian); the whole check,
# as root on a fresh Debian 12, is scripts/check-package.sh.
#   tests/install/package_deb.sh SOURCE_DIR
set -euo pipefail
src=$1
for tool in dpkg-shlibdeps lintian; do
  command -v "$tool" >/dev/null || { echo "package_deb: skipped: no $tool (apt-get install dpkg-dev lintian)"; exit 77; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/swarmcast-deb.XXXXXX")
trap 'rm -rf "$out"' EXIT
deb=$("$src/scripts/package.sh" "$out" | tail -n 1)
"$src/scripts/check-deb.sh" "$deb"
echo "package_deb: ok"

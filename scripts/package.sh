#!/usr/bin/env bash
# Builds swarmcast_VERSION_ARCH.deb (docs/INSTALL.md) from the committed
# tree or the work tree as it is: a fresh Release build with the prefix
# /usr in its own folder, `cmake --install` into a staging root, then the
# Debian parts: the unit and the environment file in their places, the
# manual page compressed, the docs, md5sums, maintainer scripts and a
# control file whose Depends are dpkg-shlibdeps' (the runtime libraries).
#   scripts/package.sh [OUT_DIR]          (default: the project's root)
# Needs the build dependencies (scripts/deps.sh build), npm for the web
# client's libraries (scripts/web-deps.sh) and dpkg-dev; not root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top}" && cd "${1:-$top}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/swarmcast-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v dpkg-shlibdeps >/dev/null || { echo "package: dpkg-shlibdeps is missing (apt-get install dpkg-dev)" >&2; exit 1; }

"$top/scripts/web-deps.sh"
cmake -S "$top" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DBUILD_TESTING=OFF -DSWARMCAST_BENCH=OFF >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
root=$work/root
DESTDIR=$root cmake --install "$work/build" >/dev/null

version=$(sed -n 's/^swarmcast \([^ ]*\) .*/\1/p' < <("$work/build/server/swarmcast" --version))
arch=$(dpkg --print-architecture)
deb_version="$version-1"
# Who signs the changelog and the control file: DEBFULLNAME and DEBEMAIL, as for dch.
maintainer="${DEBFULLNAME:-swarmcast maintainers} <${DEBEMAIL:-swarmcast@example.org}>"

# Debian's places for the service's files.
install -D -m 0644 "$root/usr/share/swarmcast/examples/swarmcast.service" "$root/lib/systemd/system/swarmcast.service"
install -D -m 0644 "$root/usr/share/swarmcast/examples/swarmcast.env" "$root/etc/swarmcast/swarmcast.env"
rm -r "$root/usr/share/swarmcast/examples"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/swarmcast"
gzip -9n "$root/usr/share/man/man1/swarmcast.1"
doc=$root/usr/share/doc/swarmcast
install -D -m 0644 "$top/packaging/copyright" "$doc/copyright"
{
  echo "swarmcast ($deb_version) unstable; urgency=medium"
  echo
  echo "  * Built by scripts/package.sh from commit $(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)."
  echo
  echo " -- $maintainer  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$doc/changelog.Debian.gz"
install -D -m 0644 "$top/packaging/swarmcast.lintian-overrides" "$root/usr/share/lintian/overrides/swarmcast"

# The runtime libraries, by package name and version, from the binary's own needs.
mkdir -p "$work/shlib/debian"
printf 'Source: swarmcast\n\nPackage: swarmcast\nArchitecture: any\n' >"$work/shlib/debian/control"
deps=$(cd "$work/shlib" && dpkg-shlibdeps -O "$root/usr/bin/swarmcast" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$deps" ] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Debian's libwebsockets loads its libuv event loop as a plugin at run time
# (no link for dpkg-shlibdeps to see): without it, lws_create_context fails
# with "unable to load evlib plugin evlib_uv".
lws_version=$(dpkg-query -W -f='${Version}' libwebsockets-evlib-uv 2>/dev/null | sed 's/-[^-]*$//')
deps="$deps, libwebsockets-evlib-uv${lws_version:+ (>= $lws_version)}"

mkdir -p "$root/DEBIAN"
install -m 0755 "$top/packaging/postinst" "$top/packaging/prerm" "$top/packaging/postrm" "$root/DEBIAN/"
echo /etc/swarmcast/swarmcast.env >"$root/DEBIAN/conffiles"
(cd "$root" && find usr lib -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
cat >"$root/DEBIAN/control" <<CONTROL
Package: swarmcast
Version: $deb_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $deps
Section: net
Priority: optional
Description: flocking simulation streamed live to browsers
 swarmcast steps a 2-D flock (Reynolds, Olfati-Saber, Couzin and unicycle
 models) at a fixed rate and streams it over WebSocket to a browser client
 it serves itself: viewers watch and steer, operators set the world up,
 people make rooms of their own. It also runs headless, and sweeps of
 experiments on one machine or a pool of workers over NATS.
 .
 This package has the server, its web client, swarmcast(1), bash
 completion and swarmcast.service (a sandboxed system service whose
 settings are in /etc/swarmcast/swarmcast.env).
CONTROL
find "$root" -type d -exec chmod 0755 {} +
deb=$out/swarmcast_${deb_version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

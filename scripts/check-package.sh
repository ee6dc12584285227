#!/usr/bin/env bash
# The package's whole check, as root on a Debian 12 machine that may be
# brand new (../shared/fresh-debian.sh scripts/check-package.sh):
#   1. build swarmcast_VERSION_ARCH.deb (scripts/package.sh) with the build
#      dependencies, and check it: its files (dpkg-deb -c), its control
#      fields (dpkg-deb -I), lintian without an error or warning;
#   2. install it with apt, as an administrator would; check the unit
#      (systemd-analyze verify, and security --offline=true: its score);
#   3. start the installed binary as swarmcast.service would, without a
#      running systemd: ExecStart's command line, a user of its own (what
#      DynamicUser= makes), the environment file, the state directory;
#      check the page (GET / is the installed index.html) and a viewer (a
#      swarmcast.v2 WebSocket gets its hello); stop it, its state is kept;
#   4. remove and purge it: nothing of it is left.
#   scripts/check-package.sh [DEB]   (a DEB given: step 1 checks it instead of building one)
# Leaves the machine's build dependencies installed. SWARMCAST_CHECK_PORT:
# the port it listens on (default 0: any free one, printed by the server).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/install/http_get.sh"
[ "$(id -u)" = 0 ] || { echo "check-package: run as root (it installs and purges the package)" >&2; exit 2; }
say() { echo "check-package: $*"; }
fail() { echo "check-package: FAILED: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/swarmcast-check.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

say "1. the package"
[ $# -eq 0 ] && "$top/scripts/deps.sh" run
missing=()
for p in dpkg-dev lintian systemd man-db; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >"$work/apt.log" 2>&1 ||
    { tail -n 20 "$work/apt.log" >&2; fail "apt-get install ${missing[*]}"; }
fi
if [ $# -gt 0 ]; then
  deb=$(realpath "$1")
else
  deb=$(cd "$top" && scripts/package.sh "$work/out" | tail -n 1)
fi
[ -f "$deb" ] || fail "scripts/package.sh made no package"
"$top/scripts/check-deb.sh" "$deb"

say "2. apt install"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; fail "apt-get install"; }
[ -x /usr/bin/swarmcast ] || fail "/usr/bin/swarmcast is not installed"
unit=/lib/systemd/system/swarmcast.service
systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify $unit"
say "systemd-analyze verify: ok"
MANWIDTH=80 man swarmcast 2>/dev/null | grep -q 'EXIT STATUS' || fail "man swarmcast"

say "3. the installed binary, as the unit starts it"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
grep -q '^DynamicUser=yes' "$unit" || fail "the unit has no DynamicUser=yes"
# What DynamicUser= and StateDirectory=swarmcast make: an unused uid, and
# /var/lib/swarmcast -> private/swarmcast owned by it.
uid=61184
while getent passwd "$uid" >/dev/null || getent group "$uid" >/dev/null; do uid=$((uid + 1)); done
# systemd opens /var/lib/private (0700) to the service in its own mount
# namespace; without one, it is opened (0711) for the run, then closed.
had_private=$([ -d /var/lib/private ] && echo 1 || echo 0)
install -d -m 0711 /var/lib/private
install -d -m 0750 -o "$uid" -g "$uid" /var/lib/private/swarmcast
ln -sfn private/swarmcast /var/lib/swarmcast
# The environment file, as EnvironmentFile= reads it (VAR=value lines).
env_args=()
while IFS= read -r line; do
  case $line in ''|'#'*) ;; *=*) env_args+=("$line") ;; esac
done </etc/swarmcast/swarmcast.env
env_args+=("SWARMCAST_PORT=${SWARMCAST_CHECK_PORT:-0}" SWARMCAST_METRICS_LISTEN=off)
cd /
# shellcheck disable=SC2086 # ExecStart's words, as systemd splits them
setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs \
  env -i "${env_args[@]}" $exec_start >"$work/server.log" 2>&1 &
pid=$!
port=$(wait_listening "$work/server.log") || { cat "$work/server.log" >&2; fail "the service's command did not start"; }
say "listening on port $port as uid $uid: $exec_start"
http_get 127.0.0.1 "$port" / >"$work/page"
head -n 1 "$work/page" | grep -q ' 200' || fail "GET / answered $(head -n 1 "$work/page")"
sed '1,/^\r$/d' "$work/page" | cmp -s - /usr/share/swarmcast/client-web/index.html || fail "GET / is not the installed index.html"
say "GET / is /usr/share/swarmcast/client-web/index.html ($(stat -c %s /usr/share/swarmcast/client-web/index.html) bytes)"
# A viewer: the swarmcast.v2 handshake, then its first message, the hello.
exec {ws}<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: swarmcast.v2\r\n\r\n' "$port" >&"$ws"
timeout 5 head -c 4096 <&"$ws" >"$work/viewer" || true
exec {ws}>&-
head -n 1 "$work/viewer" | grep -q ' 101' || fail "the viewer's handshake: $(head -n 1 "$work/viewer")"
grep -qa 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=' "$work/viewer" || fail "the viewer's handshake: no Sec-WebSocket-Accept"
grep -qa '"type":"hello"' "$work/viewer" || fail "the viewer got no hello"
say "a swarmcast.v2 viewer connected and got its hello"
kill -TERM "$pid"
wait "$pid" || fail "the server did not stop cleanly on SIGTERM: $(tail -n 3 "$work/server.log")"
pid=""
[ -n "$(ls -A /var/lib/swarmcast/)" ] || fail "nothing was kept in the state directory"
say "stopped; its state directory holds: $(ls /var/lib/swarmcast/ | tr '\n' ' ')"

chmod 0700 /var/lib/private

say "4. remove and purge"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q swarmcast >"$work/remove.log" 2>&1 || fail "apt-get remove"
[ ! -e /usr/bin/swarmcast ] || fail "/usr/bin/swarmcast is still there after remove"
[ -e /etc/swarmcast/swarmcast.env ] || fail "remove took the conffile (only purge should)"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q swarmcast >"$work/purge.log" 2>&1 || fail "apt-get purge"
left=()
for p in /usr/bin/swarmcast /usr/share/swarmcast /usr/share/doc/swarmcast /usr/share/man/man1/swarmcast.1.gz \
         /usr/share/bash-completion/completions/swarmcast "$unit" /etc/swarmcast /var/lib/swarmcast /var/lib/private/swarmcast \
         /etc/systemd/system/multi-user.target.wants/swarmcast.service /var/lib/systemd/deb-systemd-helper-enabled/swarmcast.service; do
  [ -e "$p" ] || [ -L "$p" ] && left+=("$p")
done
[ ${#left[@]} -eq 0 ] || fail "purge left ${left[*]}"
dpkg-query -W swarmcast >/dev/null 2>&1 && fail "dpkg still knows swarmcast"
[ "$had_private" = 1 ] || rmdir /var/lib/private
say "purged: nothing of swarmcast is left"
say "ok"

# http_get HOST PORT PATH: the response (headers and body) of one HTTP/1.0
# GET, with bash's /dev/tcp, so that the checks need neither curl nor node
# (a fresh Debian has neither). Sourced by the install and package checks.
http_get() {
  local fd
  exec {fd}<>"/dev/tcp/$1/$2" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s:%s\r\n\r\n' "$3" "$1" "$2" >&"$fd"
  timeout 10 cat <&"$fd"
  exec {fd}>&-
}

# wait_listening LOG: the port a starting swarmcast prints ("listening on
# http://HOST:PORT/"), within 30 s; fails when it does not.
wait_listening() {
  local port
  for _ in $(seq 300); do
    port=$(sed -n 's|^swarmcast listening on http://[^ ]*:\([0-9]*\)/.*|\1|p' "$1" | head -n 1)
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.1
  done
  return 1
}

#!/usr/bin/env bash
# docker/check.sh — builds and runs the swarmcast image for real and checks it,
# end to end, on a Debian 12 machine with no Docker engine and no registry.
#
#   sudo docker/check.sh            (about 2-3 minutes; needs root and Debian's
#                                    and npm's package registries)
#
# NOT part of scripts/test.sh / CI: it installs packages, starts a Docker
# engine and builds an image. Steps:
#   1. apt-get install docker.io debootstrap docker-compose (curl, node, npm if missing)
#   2. start dockerd --iptables=false --bridge=none (unless an engine already
#      answers), so the host's network setup is not touched
#   3. if there is no debian:bookworm-slim image: debootstrap bookworm minbase,
#      trimmed like the official slim image, cached as a tarball in
#      $SWARMCAST_DOCKER_CACHE (default /work/docker-cache), docker import
#   4. docker build --network host -f docker/Dockerfile -t swarmcast REPO
#   5. docker run --rm --network host -e SWARMCAST_PORT=18080 swarmcast, then:
#      runs as non-root; GET / serves the page; /healthz is 200 "ok" and
#      /metrics 404 on the public port, both answer on 127.0.0.1:19080; the
#      container's health status becomes healthy; a WebSocket to /ws gets a
#      JSON hello then well-formed binary snapshots; docker stop makes it exit
#      0 promptly and a connected viewer gets close code 1001
#   6. docker/compose.yaml: validated, then run with a host-network override
#      (port 18081) until healthy; a parameter and an obstacle are set over
#      the WebSocket; stopped (exit 0), removed with `down` and brought `up`
#      again: the state file on the named volume restores both; then removed
#      with its volume
#   7. docker/compose-scaled.yml (NATS from docker/nats.Dockerfile with
#      docker/nats.conf, the simulation with --nats, two relays; the
#      passwords in docker/secrets/, made by docker/nats-secrets.sh as the
#      README asks if they are not there): validated, run with a host-network
#      override (ports 18090-18094) until both relays' /healthz say ok; a v2
#      viewer on each relay decodes frames (client-web/net/wire2.js); the
#      simulation's /healthz is 200; NATS refuses a client without a
#      password; then removed with its volume
#   8. stop the engine if this script started it
# Only 127.0.0.1 is contacted. Ends with "N passed, N failed"; exit 1 on a failure.
#
# Environment: SWARMCAST_CHECK_PORT (18080), SWARMCAST_CHECK_COMPOSE_PORT
# (18081), SWARMCAST_CHECK_SCALED_PORT (18090: NATS, then its monitor, the
# simulation and the two relays on the next four), SWARMCAST_DOCKER_CACHE
# (/work/docker-cache), SKIP_COMPOSE=1 (skips 6 and 7), SKIP_SCALED=1,
# KEEP_ENGINE=1 (leave an engine this script started running).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
port=${SWARMCAST_CHECK_PORT:-18080}
compose_port=${SWARMCAST_CHECK_COMPOSE_PORT:-18081}
scaled_port=${SWARMCAST_CHECK_SCALED_PORT:-18090}
cache=${SWARMCAST_DOCKER_CACHE:-/work/docker-cache}
image=swarmcast
name=swarmcast-check
project=swarmcast-check
scaled_project=swarmcast-check-scaled
# Debian's client; another `docker` earlier on PATH may not match the engine.
DOCKER=/usr/bin/docker
COMPOSE=/usr/bin/docker-compose

work=$(mktemp -d /tmp/swarmcast-docker-check.XXXXXX)
passed=0
failed=0
engine_pid=""
run_pid=""
compose_up=0
scaled_up=0

log() { printf '== %s\n' "$*" >&2; }
pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$*"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

cleanup() {
  local rc=$?
  set +e
  if [ -x "$DOCKER" ] && "$DOCKER" info >/dev/null 2>&1; then
    "$DOCKER" rm -f "$name" >/dev/null 2>&1
    [ "$compose_up" = 1 ] && "$COMPOSE" -p "$project" -f "$work/compose.check.yaml" down -v >/dev/null 2>&1
    [ "$scaled_up" = 1 ] && "$COMPOSE" -p "$scaled_project" -f "$work/compose-scaled.check.yaml" down -v >/dev/null 2>&1
  fi
  [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
  if [ -n "$engine_pid" ] && [ "${KEEP_ENGINE:-0}" != 1 ]; then
    log "stopping dockerd (pid $engine_pid)"
    kill -TERM "$engine_pid" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.5; done
    wait "$engine_pid" 2>/dev/null
  fi
  if [ "$rc" = 0 ]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || { echo "docker/check.sh needs root (apt-get, dockerd)" >&2; exit 2; }

# ------------------------------------------------------------------ 1. install
want=(docker.io debootstrap)
[ "${SKIP_COMPOSE:-0}" = 1 ] || want+=(docker-compose)
command -v curl >/dev/null || want+=(curl)
command -v node >/dev/null || want+=(nodejs)
command -v npm >/dev/null || want+=(npm)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ------------------------------------------------------------------- 2. engine
if "$DOCKER" info >/dev/null 2>&1; then
  log "using the Docker engine that is already running"
else
  log "starting dockerd --iptables=false --bridge=none (log: $work/dockerd.log)"
  /usr/sbin/dockerd --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
  "$DOCKER" info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; echo "dockerd did not start" >&2; exit 1; }
fi

# --------------------------------------------------------------- 3. base image
if ! "$DOCKER" image inspect debian:bookworm-slim >/dev/null 2>&1; then
  tarball=$cache/debian-bookworm-slim-rootfs.tar
  if [ ! -s "$tarball" ]; then
    log "debootstrap bookworm minbase -> $tarball"
    rootfs=$work/rootfs
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
      || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # Trim it like the official debian:bookworm-slim: deb822 sources with
    # updates and security, no docs/man/translations, no apt caches or lists.
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
EOF
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
           "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* \
           "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/lintian/*
    find "$rootfs/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    mkdir -p "$cache"
    tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  log "docker import $tarball as debian:bookworm-slim"
  "$DOCKER" import --change 'CMD ["bash"]' "$tarball" debian:bookworm-slim >/dev/null
fi

# -------------------------------------------------------------------- 4. build
# The page's npm packages from the host's registry access (the image's web
# stage then copies them rather than reaching the registry itself).
log "scripts/web-deps.sh (client-web/node_modules for the build context)"
bash "$repo/scripts/web-deps.sh"
log "docker build --network host -f docker/Dockerfile -t $image $repo (log: $work/build.log)"
t0=$(now)
if "$DOCKER" build --network host -f "$repo/docker/Dockerfile" -t "$image" "$repo" >"$work/build.log" 2>&1; then
  size=$("$DOCKER" image inspect --format '{{.Size}}' "$image")
  pass "image builds in $(elapsed "$t0" "$(now)") s, $((size / 1000000)) MB"
else
  tail -40 "$work/build.log"
  fail "docker build"
  echo "$passed passed, $failed failed"
  exit 1
fi

# ---------------------------------------------------------------------- 5. run
"$DOCKER" rm -f "$name" >/dev/null 2>&1 || true
log "docker run --rm --network host -e SWARMCAST_PORT=$port $image"
"$DOCKER" run --rm --name "$name" --network host -e SWARMCAST_PORT="$port" "$image" \
  >"$work/run.log" 2>&1 &
run_pid=$!
base=http://127.0.0.1:$port
up=0
for _ in $(seq 100); do
  curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && { up=1; break; }
  kill -0 "$run_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$up" = 1 ]; then pass "server answers on 127.0.0.1:$port"; else
  fail "server did not answer on 127.0.0.1:$port"; cat "$work/run.log"
  echo "$passed passed, $failed failed"; exit 1
fi

uid=$("$DOCKER" exec "$name" id -u || true); who=$("$DOCKER" exec "$name" id || true)
if [ -n "$uid" ] && [ "$uid" != 0 ]; then pass "runs as non-root ($who)"; else fail "runs as root ($who)"; fi

code=$(curl -sS -o "$work/index.html" -w '%{http_code} %{content_type}' "$base/")
if [ "${code%% *}" = 200 ] && grep -qi '<html' "$work/index.html"; then
  pass "GET / is 200 and HTML ($code, $(wc -c <"$work/index.html") bytes)"
else fail "GET / -> $code"; fi
asset=$(grep -oE '(src|href)="[^":]+\.(js|css)"' "$work/index.html" | head -n 1 | sed -E 's/^[a-z]+="\.?\/?//; s/"$//' || true)
if [ -n "$asset" ]; then
  code=$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "$base/$asset")
  if [ "${code%% *}" = 200 ]; then pass "GET /$asset is 200 ($code)"; else fail "GET /$asset -> $code"; fi
fi

# The browser libraries installed by npm in the image (client-web/node_modules).
code=$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "$base/node_modules/uplot/dist/uPlot.esm.js")
if [ "${code%% *}" = 200 ]; then pass "GET /node_modules/uplot/dist/uPlot.esm.js is 200 ($code)"; else fail "uPlot from npm -> $code"; fi
# The public port says up or not, nothing more; /metrics and the detailed
# /healthz are on the metrics listener (127.0.0.1:port+1000 by default; here
# the host's loopback, as the container shares the host's network).
code=$(curl -sS -o "$work/healthz" -w '%{http_code}' "$base/healthz")
if [ "$code" = 200 ] && [ "$(cat "$work/healthz")" = ok ]; then
  pass "GET /healthz is 200 \"ok\" on the public port"
else fail "GET /healthz -> $code: $(head -c 200 "$work/healthz")"; fi
code=$(curl -sS -o /dev/null -w '%{http_code}' "$base/metrics")
if [ "$code" = 404 ]; then pass "GET /metrics on the public port is 404"; else fail "GET /metrics on the public port -> $code"; fi
ops=http://127.0.0.1:$((port + 1000))
code=$(curl -sS -o "$work/healthz" -w '%{http_code}' "$ops/healthz")
if [ "$code" = 200 ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$work/healthz"; then
  pass "GET $ops/healthz (the metrics listener) is 200 with JSON: $(head -c 200 "$work/healthz")"
else fail "GET $ops/healthz -> $code: $(head -c 200 "$work/healthz")"; fi
code=$(curl -sS -o "$work/metrics" -w '%{http_code}' "$ops/metrics")
if [ "$code" = 200 ] && grep -q '^swarmcast_connections ' "$work/metrics"; then
  pass "GET $ops/metrics is 200 with the swarmcast_* series"
else fail "GET $ops/metrics -> $code"; fi

# The image's HEALTHCHECK runs every 10 s; the first run is 10 s after start.
status=""
for _ in $(seq 45); do
  status=$("$DOCKER" inspect --format '{{.State.Health.Status}}' "$name" 2>/dev/null) || status="gone (the container exited)"
  [ "$status" = starting ] || break
  sleep 1
done
if [ "$status" = healthy ]; then pass "docker health status: healthy"; else
  fail "docker health status: $status"
  "$DOCKER" inspect --format '{{json .State.Health}}' "$name" 2>/dev/null; echo
  tail -20 "$work/run.log"
fi

# WebSocket: ws from tests/node_modules if installed, else npm install it here.
ws_dir=$repo/tests/node_modules/ws
if [ ! -f "$ws_dir/package.json" ]; then
  log "npm install ws into $work/npm"
  (cd "$work" && mkdir -p npm && cd npm && npm install --silent --no-audit --no-fund ws@8 >/dev/null)
  ws_dir=$work/npm/node_modules/ws
fi
cat >"$work/ws-check.cjs" <<'EOF'
// Connects, expects a JSON hello first, then binary snapshots whose header
// and length follow protocol/PROTOCOL.md; prints a summary, exits 0 on success.
const WebSocket = require(process.argv[2]);
const url = process.argv[3];
const want = 5;
const ws = new WebSocket(url, 'swarmcast.v1');
let hello = null, snapshots = 0, last = null, done = false;
const fail = (m) => { console.log(m); process.exit(1); };
const timer = setTimeout(() => fail(`timeout: hello=${!!hello} snapshots=${snapshots}`), 5000);
ws.on('error', (e) => fail(`socket error: ${e.message}`));
ws.on('close', (code) => { if (!done) fail(`closed early with code ${code}`); });
ws.on('message', (data, isBinary) => {
  if (!hello) {
    if (isBinary) fail('first message is binary, expected the JSON hello');
    try { hello = JSON.parse(data.toString('utf8')); } catch (e) { fail(`hello is not JSON: ${e.message}`); }
    if (hello.type !== 'hello') fail(`first message type is ${hello.type}, expected hello`);
    return;
  }
  if (!isBinary) return;
  const b = Buffer.from(data);
  if (b.length < 24) fail(`snapshot of ${b.length} bytes`);
  if (b[0] !== 0x53 || b[1] !== 1) fail(`snapshot kind/version ${b[0]}/${b[1]}`);
  const agents = b.readUInt32LE(16), obstacles = b.readUInt16LE(20), targets = b.readUInt16LE(22);
  const size = 24 + 6 * agents + 16 * obstacles + 12 * targets;
  if (b.length !== size) fail(`snapshot is ${b.length} bytes, header says ${size}`);
  last = { tick: b.readUInt32LE(4), w: b.readFloatLE(8), h: b.readFloatLE(12), agents, bytes: b.length };
  if (++snapshots === want) {
    done = true;
    clearTimeout(timer);
    console.log(`hello from "${hello.server}" (client_id ${hello.client_id}, world ` +
      `${hello.world && hello.world.width}x${hello.world && hello.world.height}), then ${snapshots} ` +
      `binary snapshots, last: tick ${last.tick}, ${last.agents} agents, ${last.bytes} bytes`);
    ws.close(1000);
    ws.on('close', () => process.exit(0));
  }
});
EOF
cat >"$work/ws-state.cjs" <<'EOF'
// "set": as an operator (no control token is configured), changes a
// parameter and adds an obstacle, waits for both acks. "expect": after a
// restart, the hello must show the parameter and the snapshots the obstacle.
const WebSocket = require(process.argv[2]);
const [mode, url] = [process.argv[3], process.argv[4]];
const W_SEP = 3.25, OX = 400, OY = 300, OR = 40;
const ws = new WebSocket(url, 'swarmcast.v1');
const fail = (m) => { console.log(m); process.exit(1); };
setTimeout(() => fail(`${mode}: timeout`), 10000);
const done = (m) => { console.log(m); ws.close(1000); ws.on('close', () => process.exit(0)); };
let hello = null, acks = 0;
ws.on('error', (e) => fail(`socket error: ${e.message}`));
ws.on('message', (data, isBinary) => {
  if (!hello) {
    hello = JSON.parse(data.toString('utf8'));
    if (mode === 'set') {
      ws.send(JSON.stringify({ type: 'set_param', id: 1, name: 'w_sep', value: W_SEP }));
      ws.send(JSON.stringify({ type: 'add_obstacle', id: 2, x: OX, y: OY, radius: OR }));
    } else {
      const p = (hello.params || []).find((q) => q.name === 'w_sep');
      if (!p || p.value !== W_SEP) fail(`after the restart the hello says w_sep ${p && p.value}, expected ${W_SEP}`);
    }
    return;
  }
  if (mode === 'set' && !isBinary) {
    const m = JSON.parse(data.toString('utf8'));
    if (m.type === 'error') fail(`set: refused: ${m.code} ${m.message}`);
    if (m.type === 'ack' && ++acks === 2) done(`set w_sep=${W_SEP} and an obstacle at (${OX}, ${OY}) r ${OR}`);
  }
  if (mode === 'expect' && isBinary) {
    const b = Buffer.from(data);
    const agents = b.readUInt32LE(16), obstacles = b.readUInt16LE(20);
    const found = [];
    for (let k = 0, at = 24 + 6 * agents; k < obstacles; k++, at += 16)
      found.push([b.readFloatLE(at + 4), b.readFloatLE(at + 8), b.readFloatLE(at + 12)]);
    if (!found.some(([x, y, r]) => x === OX && y === OY && r === OR))
      fail(`after the restart the snapshot's obstacles are ${JSON.stringify(found)}, expected one at (${OX}, ${OY}) r ${OR}`);
    done(`after the restart: w_sep ${W_SEP}, the obstacle at (${OX}, ${OY}) r ${OR}, ${agents} agents`);
  }
});
EOF
if out=$(node "$work/ws-check.cjs" "$ws_dir" "ws://127.0.0.1:$port/ws" 2>&1); then
  pass "WebSocket /ws: $out"
else fail "WebSocket /ws: $out"; fi

# A viewer stays connected through docker stop, to report how it is closed.
cat >"$work/ws-hold.cjs" <<'EOF'
const WebSocket = require(process.argv[2]);
const fs = require('fs');
const ws = new WebSocket(process.argv[3], 'swarmcast.v1');
ws.on('message', (d, bin) => { if (bin) fs.writeFileSync(process.argv[4], 'ready'); });
ws.on('close', (code, reason) => { console.log(`close code ${code} reason "${reason}"`); process.exit(0); });
ws.on('error', (e) => console.log(`error ${e.message}`));
setTimeout(() => { console.log('not closed within 15 s'); process.exit(1); }, 15000);
EOF
node "$work/ws-hold.cjs" "$ws_dir" "ws://127.0.0.1:$port/ws" "$work/ws-ready" >"$work/ws-hold.log" 2>&1 &
hold_pid=$!
for _ in $(seq 30); do [ -f "$work/ws-ready" ] && break; sleep 0.1; done

t0=$(now)
"$DOCKER" stop "$name" >/dev/null
set +e; wait "$run_pid"; rc=$?; set -e
run_pid=""
took=$(elapsed "$t0" "$(now)")
if [ "$rc" = 0 ] && awk -v t="$took" 'BEGIN { exit !(t < 5) }'; then
  pass "docker stop: exit code 0 after $took s"
else
  fail "docker stop: exit code $rc after $took s"; tail -20 "$work/run.log"
fi
wait "$hold_pid" || true
# PROTOCOL.md: on SIGTERM the server closes every connection with 1001 (going
# away); 1006 would mean the socket was dropped without a close frame.
held=$(cat "$work/ws-hold.log")
case "$held" in
  "close code 1001"*) pass "a viewer connected during docker stop got $held" ;;
  *) fail "a viewer connected during docker stop got: $held (expected close code 1001)" ;;
esac

# ------------------------------------------------------------------ 6. compose
if [ "${SKIP_COMPOSE:-0}" != 1 ]; then
  if "$COMPOSE" -p "$project" -f "$repo/docker/compose.yaml" config -q; then
    pass "docker/compose.yaml is valid ($("$COMPOSE" version --short))"
  else fail "docker-compose config"; fi
  # The check runs the service on the host's network (this engine has no
  # bridge, and compose refuses host networking with port mappings): a copy of
  # the file without `ports`, with network_mode: host and SWARMCAST_PORT set.
  # Users get the file's ordinary port mapping, checked here by `config`.
  # (Through a file: `config | grep -q` can stop reading early, and the
  # SIGPIPE that docker-compose then gets fails the pipeline under pipefail.)
  "$COMPOSE" -p "$project" -f "$repo/docker/compose.yaml" config >"$work/compose.config.yaml" 2>&1 || true
  if grep -q 'published: 8080' "$work/compose.config.yaml"; then
    pass "compose.yaml publishes port 8080"
  else fail "compose.yaml does not publish port 8080"; fi
  python3 - "$repo/docker/compose.yaml" "$work/compose.check.yaml" "$compose_port" <<'EOF'
import os, sys, yaml
src, dst, port = sys.argv[1:]
doc = yaml.safe_load(open(src))
svc = doc["services"]["swarmcast"]
svc.pop("ports", None)
svc["network_mode"] = "host"
env = svc.setdefault("environment", {})
if isinstance(env, list):
    env[:] = [e for e in env if not e.startswith("SWARMCAST_PORT=")] + ["SWARMCAST_PORT=" + port]
else:
    env["SWARMCAST_PORT"] = port
build = svc.get("build")
if isinstance(build, dict) and "context" in build:
    build["context"] = os.path.abspath(os.path.join(os.path.dirname(src), build["context"]))
yaml.safe_dump(doc, open(dst, "w"), sort_keys=False)
EOF
  cf=(-p "$project" -f "$work/compose.check.yaml")
  compose_up=1
  if "$COMPOSE" "${cf[@]}" up -d --no-build >"$work/compose.log" 2>&1; then
    cid=$("$COMPOSE" "${cf[@]}" ps -q swarmcast)
    status=""
    for _ in $(seq 45); do
      status=$("$DOCKER" inspect --format '{{.State.Health.Status}}' "$cid" 2>/dev/null) || status=gone
      [ "$status" = starting ] || break
      sleep 1
    done
    policy=$("$DOCKER" inspect --format '{{.HostConfig.RestartPolicy.Name}}' "$cid")
    hz=$(curl -sS "http://127.0.0.1:$compose_port/healthz" || true)
    if [ "$status" = healthy ] && [ -n "$hz" ]; then
      pass "compose: service healthy on 127.0.0.1:$compose_port, restart=$policy, /healthz $hz"
    else fail "compose: status=$status healthz=$hz"; fi
    compose_ws=ws://127.0.0.1:$compose_port/ws
    if out=$(node "$work/ws-state.cjs" "$ws_dir" set "$compose_ws" 2>&1); then pass "compose: $out"
    else fail "compose: setting up over the WebSocket: $out"; fi
    t0=$(now)
    "$COMPOSE" "${cf[@]}" stop >/dev/null 2>&1
    rc=$("$DOCKER" inspect --format '{{.State.ExitCode}}' "$cid" 2>/dev/null) || rc=gone
    took=$(elapsed "$t0" "$(now)")
    if [ "$rc" = 0 ]; then pass "compose stop: exit code 0 after $took s"; else fail "compose stop: exit code $rc after $took s"; fi
    # A new container (down, then up) on the same named volume resumes the
    # set-up from the state file the first one wrote when it stopped.
    "$COMPOSE" "${cf[@]}" down >/dev/null 2>&1
    if "$COMPOSE" "${cf[@]}" up -d --no-build >>"$work/compose.log" 2>&1; then
      cid=$("$COMPOSE" "${cf[@]}" ps -q swarmcast)
      up=0
      for _ in $(seq 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$compose_port/healthz" 2>/dev/null && { up=1; break; }
        sleep 0.1
      done
      kept=$("$DOCKER" exec "$cid" stat -c '%U:%G %a, %s bytes' /var/lib/swarmcast/state.json 2>&1 || true)
      if [ "$up" = 1 ] && out=$(node "$work/ws-state.cjs" "$ws_dir" expect "$compose_ws" 2>&1); then
        pass "compose down + up: $out (state file: $kept)"
      else
        fail "compose down + up did not resume: ${out:-no answer on $compose_port} (state file: $kept)"
        "$COMPOSE" "${cf[@]}" logs --no-color 2>&1 | tail -20
      fi
    else
      cat "$work/compose.log"; fail "docker-compose up (second time)"
    fi
  else
    cat "$work/compose.log"; fail "docker-compose up"
  fi
  "$COMPOSE" "${cf[@]}" down -v >/dev/null 2>&1 || true
  compose_up=0
fi

# ------------------------------------------------------------ 7. scaled set-up
if [ "${SKIP_COMPOSE:-0}" != 1 ] && [ "${SKIP_SCALED:-0}" != 1 ]; then
  scaled_file=$repo/docker/compose-scaled.yml
  # The passwords the compose file names (secrets/*.env beside it): a
  # user's own if they are there (the script keeps them), else made now.
  "$repo/docker/nats-secrets.sh"
  log "docker build --network host -f docker/nats.Dockerfile -t swarmcast-nats docker (log: $work/build-nats.log)"
  if "$DOCKER" build --network host -f "$repo/docker/nats.Dockerfile" -t swarmcast-nats "$repo/docker" >"$work/build-nats.log" 2>&1; then
    size=$("$DOCKER" image inspect --format '{{.Size}}' swarmcast-nats)
    pass "NATS image (Debian's $("$DOCKER" run --rm swarmcast-nats --version 2>&1 | head -n 1)) builds, $((size / 1000000)) MB"
  else
    tail -40 "$work/build-nats.log"; fail "docker build of docker/nats.Dockerfile"
  fi
  if "$COMPOSE" -p "$scaled_project" -f "$scaled_file" config -q; then
    pass "docker/compose-scaled.yml is valid"
  else fail "docker-compose config of compose-scaled.yml"; fi
  published=$("$COMPOSE" -p "$scaled_project" -f "$scaled_file" config | grep -oE 'published: "?[0-9]+' | grep -oE '[0-9]+' | sort | tr '\n' ' ')
  if [ "$published" = "8080 8081 8082 " ]; then pass "compose-scaled.yml publishes ports $published"
  else fail "compose-scaled.yml publishes ports '$published', expected 8080 8081 8082"; fi
  nats_port=$scaled_port monitor_port=$((scaled_port + 1)) sim_port=$((scaled_port + 2))
  relay_ports=($((scaled_port + 3)) $((scaled_port + 4)))
  # As in 6: the same services on the host's network, each on its own
  # loopback port, NATS named by 127.0.0.1 instead of the compose network's
  # service name.
  python3 - "$scaled_file" "$work/compose-scaled.check.yaml" "$nats_port" "$monitor_port" "$sim_port" "${relay_ports[@]}" <<'PY'
import os, sys, yaml
src, dst, nats_port, monitor_port, sim_port, r1, r2 = sys.argv[1:]
doc = yaml.safe_load(open(src))
ports = {"sim": sim_port, "relay1": r1, "relay2": r2}
url = "nats://127.0.0.1:" + nats_port
assert set(ports) | {"nats"} == set(doc["services"]), sorted(doc["services"])
for name, svc in doc["services"].items():
    svc.pop("ports", None)
    svc["network_mode"] = "host"
    env = svc.get("environment") or {}
    svc["environment"] = env
    env_file = svc.get("env_file")
    assert isinstance(env_file, str) and env_file.startswith("secrets/"), (name, env_file)
    svc["env_file"] = os.path.join(os.path.dirname(os.path.abspath(src)), env_file)
    if name == "nats":
        assert svc["command"][:2] == ["-c", "/etc/swarmcast/nats.conf"], svc["command"]
        svc["command"] = svc["command"][:2] + ["-a", "127.0.0.1", "-p", nats_port, "-m", monitor_port]
        svc["volumes"] = [os.path.abspath(os.path.join(os.path.dirname(src), v.split(":", 1)[0])) + ":" + v.split(":", 1)[1]
                          for v in svc["volumes"]]
        env["NATS_MONITOR_PORT"] = monitor_port
    else:
        assert env.get("SWARMCAST_NATS") == "nats://nats:4222", (name, env)
        env["SWARMCAST_NATS"] = url
        env["SWARMCAST_PORT"] = ports[name]
    build = svc.get("build")
    if isinstance(build, dict) and "context" in build:
        build["context"] = os.path.abspath(os.path.join(os.path.dirname(src), build["context"]))
yaml.safe_dump(doc, open(dst, "w"), sort_keys=False)
PY
  sf=(-p "$scaled_project" -f "$work/compose-scaled.check.yaml")
  scaled_up=1
  if "$COMPOSE" "${sf[@]}" up -d --no-build >"$work/compose-scaled.log" 2>&1; then
    for i in 0 1; do
      rp=${relay_ports[$i]}
      code=""
      for _ in $(seq 120); do
        code=$(curl -sS -o "$work/relay-healthz" -w '%{http_code}' "http://127.0.0.1:$rp/healthz" 2>/dev/null) || code=""
        [ "$code" = 200 ] && break
        sleep 0.5
      done
      hz=$(head -c 300 "$work/relay-healthz" 2>/dev/null || true)
      if [ "$code" = 200 ] && [ "$(cat "$work/relay-healthz")" = ok ]; then
        pass "scaled: relay $((i + 1)) /healthz on 127.0.0.1:$rp is 200 and ok: $hz"
      else
        fail "scaled: relay $((i + 1)) /healthz on 127.0.0.1:$rp -> ${code:-no answer}: $hz"
        "$COMPOSE" "${sf[@]}" logs --no-color 2>&1 | tail -30
      fi
    done
    # A client that gives no user: nats-server answers its CONNECT with an
    # authorization error (docker/nats.conf has no anonymous user).
    anon=$(timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'"$nats_port"' && printf "CONNECT {\"verbose\":false}\r\nPING\r\n" >&3 && head -c 600 <&3' 2>&1 | tr -d '\r' | tr '\n' ' ' || true)
    if [[ "$anon" == *"Authorization Violation"* ]]; then pass "scaled: NATS refuses a client without a password: -ERR${anon##*-ERR}"
    else fail "scaled: NATS let a client without a password in: ${anon:0:200}"; fi
    code=$(curl -sS -o "$work/sim-healthz" -w '%{http_code}' "http://127.0.0.1:$sim_port/healthz" || true)
    if [ "$code" = 200 ]; then pass "scaled: the simulation's /healthz is 200: $(head -c 200 "$work/sim-healthz")"
    else fail "scaled: the simulation's /healthz -> $code"; fi
    cat >"$work/ws-v2.mjs" <<'JS'
// A v2 viewer: the hello (protocol 2), then frames decoded with the web
// client's own decoder (client-web/net/wire2.js); exits 0 after ten frames.
import { createRequire } from 'node:module';
const [wsDir, wire2, url] = process.argv.slice(2);
const WebSocket = createRequire(import.meta.url)(wsDir);
const { Wire2Decoder } = await import(wire2);
const want = 10;
const decoder = new Wire2Decoder();
let hello = null, frames = 0, last = null;
const fail = (m) => { console.log(m); process.exit(1); };
setTimeout(() => fail(`timeout: hello=${!!hello} frames=${frames}`), 15000);
const ws = new WebSocket(url, 'swarmcast.v2');
ws.on('error', (e) => fail(`socket error: ${e.message}`));
ws.on('close', (code) => { if (frames < want) fail(`closed early with code ${code}`); });
ws.on('message', (data, isBinary) => {
  if (!isBinary) {
    const m = JSON.parse(data.toString('utf8'));
    if (m.type === 'hello') hello = m;
    return;
  }
  if (!hello) fail('a frame before the hello');
  if (hello.protocol !== 2) fail(`hello says protocol ${hello.protocol}`);
  try { last = decoder.decode(data); } catch (e) { fail(`frame ${frames + 1} does not decode: ${e.message}`); }
  if (++frames === want) {
    console.log(`hello (protocol 2, client_id ${hello.client_id}), ${frames} frames decoded, last: seq ${last.seq}, ` +
      `tick ${last.tick}, ${last.count} items of ${last.population}`);
    ws.close(1000);
    ws.on('close', () => process.exit(0));
  }
});
JS
    for i in 0 1; do
      rp=${relay_ports[$i]}
      if out=$(node "$work/ws-v2.mjs" "$ws_dir" "$repo/client-web/net/wire2.js" "ws://127.0.0.1:$rp/ws" 2>&1); then
        pass "scaled: a viewer on relay $((i + 1)): $out"
      else fail "scaled: a viewer on relay $((i + 1)): $out"; fi
    done
  else
    cat "$work/compose-scaled.log"; fail "docker-compose up of compose-scaled.yml"
  fi
  "$COMPOSE" "${sf[@]}" down -v >/dev/null 2>&1 || true
  scaled_up=0
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

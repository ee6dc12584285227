#!/usr/bin/env bash
# docker/check.sh — builds and runs the swarmcast image for real and checks it,
# end to end, on a Debian 12 machine with no Docker engine and no registry.
#
#   sudo docker/check.sh            (about 10-15 minutes the first time; needs
#                                    root and Debian's and npm's registries)
#   sudo docker/check.sh --clean    the same, from nothing: first removes
#                                    everything an earlier run can have left
#                                    in the engine (see "--clean" below)
#
# NOT part of scripts/test.sh / CI: it installs packages, starts a Docker
# engine and builds images. Every step counts a fixed number of checks (in
# brackets), whatever the machine or earlier runs left: a step that stops
# early counts the checks it did not reach as failed, and so does a step that
# cannot run at all. Steps:
#   1. [1] apt-get install docker.io debootstrap docker-compose (curl, node,
#      npm, chromium, openssl if missing)
#   2. [1] start dockerd --iptables=false --bridge=none (unless an engine
#      already answers), so the host's network setup is not touched
#   3. [1] if there is no debian:bookworm-slim image: debootstrap bookworm
#      minbase, trimmed like the official slim image, cached as a tarball in
#      $SWARMCAST_DOCKER_CACHE (default /work/docker-cache; not read with
#      --clean), docker import
#   4. [2] docker build --network host --build-arg SWARMCAST_COMMIT=… -f docker/Dockerfile -t swarmcast REPO
#   5. [12] docker run --rm --network host -e SWARMCAST_PORT=18080 swarmcast, then:
#      runs as non-root; GET / serves the page; /healthz is 200 and says
#      only "ok", its detail and /metrics are on the operations listener
#      (127.0.0.1, the port + 1000) and /metrics is 404 on the public port;
#      the container's health status becomes healthy; a WebSocket to /ws gets a
#      JSON hello then well-formed binary snapshots; docker stop makes it exit
#      0 promptly and a connected viewer gets close code 1001
# Each compose step (6 to 9) first removes whatever its compose project may
# have left (`down -v`), builds every image its file names besides swarmcast
# (built in 4) itself, and refuses to start if the file names an image this
# run did not build.
#   6. [9] docker/compose.yaml: validated, then run with a host-network override
#      (port 18081) until healthy; a parameter and an obstacle are set over
#      the WebSocket; a room is made there (create_room, the file's own
#      settings) and joined by its code at /ws?room=CODE (the hello names
#      it, its token makes an operator, who sets it up, and frames of its
#      own flock arrive); stopped (exit 0), removed with `down` and brought
#      `up` again: the state file on the named volume restores the set-up,
#      and the room reopens by its code with its name, token and set-up
#      (SWARMCAST_STATE_DIR, the same volume); then removed with its volume
#   7. [17] docker/compose-scaled.yml (NATS from docker/nats.Dockerfile with
#      docker/nats.conf, the simulation with --nats, two relays; Caddy in
#      front of the relays from docker/caddy.Dockerfile; both images built
#      here): validated, only Caddy's ports published, run with a
#      host-network override (ports 18090-18099) until both relays' /healthz
#      say ok; the NATS passwords are new ones made by docker/nats-secrets.sh
#      in this run's temporary folder (never docker/secrets/, a user's);
#      a v2 viewer on each relay decodes frames
#      (client-web/net/wire2.js); the simulation's /healthz is 200; NATS
#      refuses a client without a password; through Caddy (internal CA, its
#      root taken from the container and verified): /healthz over https://,
#      a v2 viewer over wss://, six viewers spread over both relays, the
#      page in Chromium over https:// drawing frames that came over wss://;
#      a room made at relay 1 and joined by its code at relay 2 (the hello
#      names it, its token makes an operator there, frames of its own
#      flock), and after `restart sim` reopened by its code at relay 1 (the
#      simulation's state volume keeps it); then removed with its volumes
#   8. [16] docker/compose-https.yml (Caddy from docker/caddy.Dockerfile with
#      docker/Caddyfile, the server unpublished behind it): the Caddy image
#      built, the file validated, only Caddy's 80 and 443 published,
#      SWARMCAST_DOMAIN reaches Caddy; run
#      with a host-network override (ports 18100-18103) and no domain, so
#      Caddy serves https://localhost from its internal CA: /healthz
#      verified against that CA, http:// redirected, /metrics 404 through
#      Caddy, the page in Chromium over https:// with frames over wss://,
#      three viewers over wss:// get snapshots; one from 127.0.0.2 is
#      counted by the server as a client address from Caddy's
#      X-Forwarded-For (SWARMCAST_TRUSTED_PROXY); a parameter and an obstacle
#      set over wss://, `down` and `up`: the same CA (Caddy's volume) and
#      the set-up restored (the state volume); then removed with its volumes
#   9. [13] docker/compose-pool.yml (NATS with JetStream, `swarmcast worker`s
#      that scale, the coordinator service): the NATS image built, the file
#      validated, NATS on 127.0.0.1
#      only; the workers' build gets SWARMCAST_COMMIT and their image's
#      --version names the commit; run with a host-network override (NATS
#      on 18110, its monitor on 18111) with `--scale worker=2`; a small
#      sweep (experiments/delay.json cut to 2 delays x 3 replicates) by the
#      coordinator service (`run --rm coordinator experiment run … --nats`,
#      its folder at /work): both workers run some of it, one is stopped
#      (docker stop) while it has a run in hand and exits 0, giving the run
#      back; the sweep ends with every run ok, results.csv and summary.csv
#      byte for byte those of `experiment run --workers 2` (the local
#      runner, same image), the manifest's share "all (NATS pool)" and the
#      given-back run delivered twice; then `down` leaves no container
#  10. stop the engine if this script started it (and unmount the network
#      namespace dockerd leaves bound in /run/docker/netns)
# Only 127.0.0.1 is contacted. Ends with "P passed, F failed (72 checks)", or,
# when steps were left out on purpose (the variables below),
# "P passed, F failed, N not run: asked by SKIP_POOL=1 (72 checks)";
# exit 1 on a failure. The count is the same on every machine.
#
# --clean, after the engine answers (step 2), removes every container, volume
# and network of the check's compose projects (swarmcast-check*), every
# container of the images below, the images swarmcast, swarmcast-nats,
# swarmcast-caddy and debian:bookworm-slim (step 3 then debootstraps it
# afresh, without the cached tarball), and reinstalls client-web/node_modules
# from its lock file (SWARMCAST_NPM_CI=1). The NATS passwords and every other
# file of a run live in its temporary folder, removed when it ends (kept on
# a failure, for the logs). Without --clean a run still starts each compose
# project from nothing (`down -v` first), but reuses the images' layers.
#
# Environment: SWARMCAST_CHECK_PORT (18080), SWARMCAST_CHECK_COMPOSE_PORT
# (18081), SWARMCAST_CHECK_SCALED_PORT (18090: NATS, then its monitor, the
# simulation and the two relays on the next four, Caddy's http and https,
# then the operations listeners of the simulation and the relays),
# SWARMCAST_CHECK_HTTPS_PORT (18100: Caddy's http and https, the server, its
# operations listener), SWARMCAST_CHECK_POOL_PORT (18110: NATS, then its
# monitor), SWARMCAST_DOCKER_CACHE (/work/docker-cache), KEEP_ENGINE=1
# (leave an engine this script started running). Leaving steps out, on
# purpose (the last line names the variable and counts their checks as not
# run): SKIP_COMPOSE=1 (6 to 9), SKIP_SCALED=1 (7), SKIP_HTTPS=1 (8),
# SKIP_POOL=1 (9), SWARMCAST_CHECK_ONLY=compose|scaled|https|pool (of 6 to 9
# only that one: 1-5 always run).
set -euo pipefail

clean=0
for arg in "$@"; do
  case "$arg" in
    --clean) clean=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "docker/check.sh: unknown argument '$arg' (only --clean)" >&2; exit 2 ;;
  esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
port=${SWARMCAST_CHECK_PORT:-18080}
compose_port=${SWARMCAST_CHECK_COMPOSE_PORT:-18081}
scaled_port=${SWARMCAST_CHECK_SCALED_PORT:-18090}
https_port=${SWARMCAST_CHECK_HTTPS_PORT:-18100}
pool_port=${SWARMCAST_CHECK_POOL_PORT:-18110}
only=${SWARMCAST_CHECK_ONLY:-}
case "$only" in
  '' | compose | scaled | https | pool) ;;
  *) echo "SWARMCAST_CHECK_ONLY is compose, scaled, https or pool, not '$only'" >&2; exit 2 ;;
esac
cache=${SWARMCAST_DOCKER_CACHE:-/work/docker-cache}
image=swarmcast
name=swarmcast-check
project=swarmcast-check
scaled_project=swarmcast-check-scaled
https_project=swarmcast-check-https
pool_project=swarmcast-check-pool
# What --clean removes: these projects' containers, volumes and networks,
# these images and every container made from them.
check_projects=("$project" "$scaled_project" "$https_project" "$pool_project")
check_images=(swarmcast swarmcast-nats swarmcast-caddy debian:bookworm-slim)
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
https_up=0
pool_up=0
coordinator_pid=""

log() { printf '== %s\n' "$*" >&2; }
pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$*"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ----------------------------------------------------------- the count
# How many checks each step counts, on any machine. A step that ends having
# counted fewer (it stopped early: a container that did not come up, …)
# counts the rest as failed; a step that cannot run (an earlier one it needs
# failed) counts all of its checks as failed. Only a user's explicit
# SKIP_…=1 or SWARMCAST_CHECK_ONLY leaves a step out without failing it,
# and the last line says so. Keep these numbers in step with the steps'
# pass/fail calls (a step that counts more than this fails too).
steps=(install engine base build run compose scaled https pool)
declare -A step_checks=([install]=1 [engine]=1 [base]=1 [build]=2 [run]=12 [compose]=9 [scaled]=17 [https]=16 [pool]=13)
declare -A step_title=([install]="1 (packages)" [engine]="2 (engine)" [base]="3 (base image)" [build]="4 (image)"
  [run]="5 (docker run)" [compose]="6 (compose.yaml)" [scaled]="7 (compose-scaled.yml)" [https]="8 (compose-https.yml)"
  [pool]="9 (compose-pool.yml)")
declare -A step_state=()   # done, or why the user left the step out
total_checks=0
for s in "${steps[@]}"; do total_checks=$((total_checks + step_checks[$s])); done
current="" current_from=0 not_run=0 not_run_why="" finished=0

# The user's own opt-outs, decided before anything runs.
leave_out() { # STEP WHY
  step_state[$1]=$2
  not_run=$((not_run + step_checks[$1]))
  case ", $not_run_why, " in *", $2, "*) ;; *) not_run_why=${not_run_why:+$not_run_why, }$2 ;; esac
}
for s in compose scaled https pool; do
  if [ "${SKIP_COMPOSE:-0}" = 1 ]; then leave_out "$s" "asked by SKIP_COMPOSE=1"
  elif [ -n "$only" ] && [ "$only" != "$s" ]; then leave_out "$s" "asked by SWARMCAST_CHECK_ONLY=$only"
  else
    var=SKIP_${s^^}
    [ "$s" != compose ] && [ "${!var:-0}" = 1 ] && leave_out "$s" "asked by $var=1"
  fi
done
# Whether compose step NAME (compose, scaled, https, pool) runs.
compose_step() { [ -z "${step_state[$1]:-}" ]; }

end_step() {
  [ -n "$current" ] || return 0
  local counted=$((passed + failed - current_from)) want=${step_checks[$current]}
  if [ "$counted" -lt "$want" ]; then
    failed=$((failed + want - counted))
    printf 'FAIL step %s: %d of its %d checks not run (stopped early, see above)\n' \
      "${step_title[$current]}" "$((want - counted))" "$want"
  elif [ "$counted" -gt "$want" ]; then
    fail "step ${step_title[$current]} counted $counted checks, check.sh says it has $want (step_checks)"
  fi
  step_state[$current]="done"
  current=""
}
begin_step() { end_step; current=$1; current_from=$((passed + failed)); }

# The last line; exit 1 on a failure. Every step not run yet, and not left
# out by the user, counts all its checks as failed.
finish() {
  local why=${1:-}
  end_step
  for s in "${steps[@]}"; do
    [ -z "${step_state[$s]:-}" ] || continue
    failed=$((failed + step_checks[$s]))
    printf 'FAIL step %s: not run (its %d checks)%s\n' "${step_title[$s]}" "${step_checks[$s]}" "${why:+: $why}"
    step_state[$s]="done"
  done
  finished=1
  if [ "$not_run" -gt 0 ]; then
    echo "$passed passed, $failed failed, $not_run not run: $not_run_why ($total_checks checks)"
  else
    echo "$passed passed, $failed failed ($total_checks checks)"
  fi
  [ "$failed" = 0 ] && exit 0
  exit 1
}

cleanup() {
  local rc=$?
  set +e
  # Stopped by an unexpected error (set -e): the count still covers every step.
  if [ "$finished" != 1 ]; then
    local where=unknown
    [ -z "$current" ] || where=${step_title[$current]}
    (finish "check.sh stopped in step $where (exit status $rc)")
  fi
  if [ -x "$DOCKER" ] && "$DOCKER" info >/dev/null 2>&1; then
    "$DOCKER" rm -f "$name" >/dev/null 2>&1
    [ "$compose_up" = 1 ] && "$COMPOSE" -p "$project" -f "$work/compose.check.yaml" down -v >/dev/null 2>&1
    [ "$scaled_up" = 1 ] && "$COMPOSE" -p "$scaled_project" -f "$work/compose-scaled.check.yaml" down -v >/dev/null 2>&1
    [ "$https_up" = 1 ] && "$COMPOSE" -p "$https_project" -f "$work/compose-https.check.yaml" down -v >/dev/null 2>&1
    if [ "$pool_up" = 1 ]; then
      "$DOCKER" rm -f "$pool_project-coordinator" >/dev/null 2>&1
      "$COMPOSE" -p "$pool_project" -f "$work/compose-pool.check.yaml" down -v >/dev/null 2>&1
    fi
  fi
  [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
  [ -n "$coordinator_pid" ] && kill "$coordinator_pid" 2>/dev/null && wait "$coordinator_pid" 2>/dev/null
  if [ -n "$engine_pid" ] && [ "${KEEP_ENGINE:-0}" != 1 ]; then
    log "stopping dockerd (pid $engine_pid)"
    kill -TERM "$engine_pid" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.5; done
    wait "$engine_pid" 2>/dev/null
    # dockerd binds its default network namespace here when it starts and
    # leaves it mounted when it stops; with the engine gone nothing uses it.
    if ! kill -0 "$engine_pid" 2>/dev/null && grep -q ' /run/docker/netns/default ' /proc/self/mountinfo; then
      umount /run/docker/netns/default
    fi
  fi
  if [ "$rc" = 0 ] && [ "$failed" = 0 ]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
  exit "$rc"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
  echo "docker/check.sh needs root (apt-get, dockerd)" >&2
  finish "docker/check.sh needs root"
fi

# ------------------------------------------------------------------ 1. install
begin_step install
want=(docker.io debootstrap)
[ "${SKIP_COMPOSE:-0}" = 1 ] || want+=(docker-compose)
command -v curl >/dev/null || want+=(curl)
command -v node >/dev/null || want+=(nodejs)
command -v npm >/dev/null || want+=(npm)
# The page over https:// through the front (7, 8), in Debian's Chromium.
[ -x "${SWARMCAST_CHROMIUM:-/usr/bin/chromium}" ] || want+=(chromium)
command -v openssl >/dev/null || want+=(openssl)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} (log: $work/apt.log)"
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >"$work/apt.log" 2>&1; then
    pass "packages: installed ${missing[*]}"
  else
    tail -20 "$work/apt.log"; fail "apt-get install ${missing[*]}"
    finish "the packages it needs are not installed"
  fi
else pass "packages: ${want[*]} already installed"; fi

# ------------------------------------------------------------------- 2. engine
begin_step engine
if "$DOCKER" info >/dev/null 2>&1; then
  pass "the Docker engine already running answers ($("$DOCKER" version --format '{{.Server.Version}}' 2>&1))"
else
  log "starting dockerd --iptables=false --bridge=none (log: $work/dockerd.log)"
  /usr/sbin/dockerd --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
  if "$DOCKER" info >/dev/null 2>&1; then
    pass "dockerd $("$DOCKER" version --format '{{.Server.Version}}' 2>&1) started (pid $engine_pid) and answers"
  else
    tail -20 "$work/dockerd.log"; fail "dockerd did not start"
    finish "no Docker engine"
  fi
fi

end_step

# ---------------------------------------------------------------- --clean
# Everything an earlier run (of this script, or a user's build of the same
# images) can have left in the engine, so that this run starts from nothing.
if [ "$clean" = 1 ]; then
  log "--clean: removing the check's containers, volumes, networks and images"
  ids=()
  for p in "${check_projects[@]}"; do
    mapfile -t -O "${#ids[@]}" ids < <("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$p")
  done
  for n in "$name" "$pool_project-coordinator"; do
    mapfile -t -O "${#ids[@]}" ids < <("$DOCKER" ps -aq --filter "name=^/$n\$")
  done
  for i in "${check_images[@]}"; do
    "$DOCKER" image inspect "$i" >/dev/null 2>&1 &&
      mapfile -t -O "${#ids[@]}" ids < <("$DOCKER" ps -aq --filter "ancestor=$i")
  done
  [ ${#ids[@]} = 0 ] || "$DOCKER" rm -f -v "${ids[@]}" >/dev/null
  for p in "${check_projects[@]}"; do
    mapfile -t vols < <("$DOCKER" volume ls -q --filter "label=com.docker.compose.project=$p")
    [ ${#vols[@]} = 0 ] || "$DOCKER" volume rm -f "${vols[@]}" >/dev/null
    mapfile -t nets < <("$DOCKER" network ls -q --filter "label=com.docker.compose.project=$p")
    [ ${#nets[@]} = 0 ] || "$DOCKER" network rm "${nets[@]}" >/dev/null
  done
  # Whether image ID stands on a base made by `docker import` (step 3's
  # debian:bookworm-slim, this one or one an earlier run imported).
  on_imported_base() {
    [ "$("$DOCKER" history --no-trunc --format '{{.Comment}}' "$1" 2>/dev/null | tail -n 1)" = "Imported from -" ]
  }
  for i in "${check_images[@]}"; do
    # With its tag go the untagged layers (the build's cache) under it.
    "$DOCKER" image inspect "$i" >/dev/null 2>&1 && "$DOCKER" image rm -f "$i" >/dev/null
  done
  # The untagged images the builds left besides (the multi-stage builds'
  # build and web stages: the classic builder's cache of them), known by the
  # imported base at the bottom of their history; with them goes that base.
  while read -r id; do
    if on_imported_base "$id"; then "$DOCKER" image rm -f "$id" >/dev/null 2>&1 || true; fi
  done < <("$DOCKER" images -q --no-trunc --filter dangling=true)
  # The build cache of BuildKit, if the engine's builds use it (the classic
  # builder's cache is the layers removed with the images above).
  "$DOCKER" builder prune -af >/dev/null 2>&1 || true
  leftover=()
  for p in "${check_projects[@]}"; do
    for kind in "ps -a" "volume ls" "network ls"; do
      # shellcheck disable=SC2086 # two words
      mapfile -t -O "${#leftover[@]}" leftover < <("$DOCKER" $kind -q --filter "label=com.docker.compose.project=$p" | sed "s/^/$p: ${kind% *} /")
    done
  done
  for i in "${check_images[@]}"; do "$DOCKER" image inspect "$i" >/dev/null 2>&1 && leftover+=("image $i"); done
  while read -r id; do
    if on_imported_base "$id"; then leftover+=("untagged image $id, built on an imported base"); fi
  done < <("$DOCKER" images -q --no-trunc --filter dangling=true)
  if [ ${#leftover[@]} -gt 0 ]; then
    printf '  left: %s\n' "${leftover[@]}"
    echo "FAIL --clean could not remove everything"
    finish "--clean did not leave a clean engine"
  fi
  log "--clean: none of the check's images, containers, volumes or networks is left ($("$DOCKER" images -q | wc -l) images in the engine)"
  # The page's npm packages again from their lock file (step 4).
  export SWARMCAST_NPM_CI=1
fi

# --------------------------------------------------------------- 3. base image
begin_step base
if "$DOCKER" image inspect debian:bookworm-slim >/dev/null 2>&1; then
  pass "base image debian:bookworm-slim: the engine has it ($("$DOCKER" image inspect --format '{{.Created}}' debian:bookworm-slim))"
else
  tarball=$cache/debian-bookworm-slim-rootfs.tar
  # --clean: a new one, made now (the cache is left as it is).
  [ "$clean" = 0 ] || tarball=$work/debian-bookworm-slim-rootfs.tar
  if [ ! -s "$tarball" ]; then
    log "debootstrap bookworm minbase -> $tarball (log: $work/debootstrap.log)"
    rootfs=$work/rootfs
    if ! debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1; then
      tail -20 "$work/debootstrap.log"; fail "debootstrap bookworm"
      finish "no base image"
    fi
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
    mkdir -p "$(dirname "$tarball")"
    tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  fi
  log "docker import $tarball as debian:bookworm-slim"
  if "$DOCKER" import --change 'CMD ["bash"]' "$tarball" debian:bookworm-slim >/dev/null; then
    pass "base image debian:bookworm-slim imported from debootstrap's bookworm ($(($(stat -c %s "$tarball") / 1000000)) MB tarball)"
  else
    fail "docker import of $tarball"
    finish "no base image"
  fi
  [ "$tarball" != "$work/debian-bookworm-slim-rootfs.tar" ] || rm -f "$tarball"
fi

# -------------------------------------------------------------------- 4. build
begin_step build
# The page's npm packages from the host's registry access (the image's web
# stage then copies them rather than reaching the registry itself).
log "scripts/web-deps.sh (client-web/node_modules for the build context)"
bash "$repo/scripts/web-deps.sh"
log "docker build --network host -f docker/Dockerfile -t $image $repo (log: $work/build.log)"
t0=$(now)
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if "$DOCKER" build --network host --build-arg SWARMCAST_COMMIT="$commit" \
     -f "$repo/docker/Dockerfile" -t "$image" "$repo" >"$work/build.log" 2>&1; then
  size=$("$DOCKER" image inspect --format '{{.Size}}' "$image")
  pass "image builds in $(elapsed "$t0" "$(now)") s, $((size / 1000000)) MB"
  version=$("$DOCKER" run --rm "$image" --version 2>&1 | head -n 1)
  case "$version" in
    *"(commit $commit)") pass "the image names its commit: $version" ;;
    *) fail "the image's --version says '$version', not commit $commit" ;;
  esac
else
  tail -40 "$work/build.log"
  fail "docker build"
  finish "no swarmcast image"
fi
# The images this run built: a compose step starts only those.
declare -A built=([swarmcast]=1)

# ---------------------------------------------------------------------- 5. run
begin_step run
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
  finish "the swarmcast image does not serve"
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
else fail "the page names no script or stylesheet to fetch"; fi

# The browser libraries installed by npm in the image (client-web/node_modules).
code=$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "$base/node_modules/uplot/dist/uPlot.esm.js")
if [ "${code%% *}" = 200 ]; then pass "GET /node_modules/uplot/dist/uPlot.esm.js is 200 ($code)"; else fail "uPlot from npm -> $code"; fi
# The public /healthz says only up or not; the detail and /metrics are on
# the operations listener (--metrics-listen: 127.0.0.1, the port + 1000).
code=$(curl -sS -o "$work/healthz" -w '%{http_code}' "$base/healthz")
if [ "$code" = 200 ] && [ "$(cat "$work/healthz")" = ok ]; then
  pass "GET /healthz on the public port is 200 and says only: $(cat "$work/healthz")"
else fail "GET /healthz -> $code: $(head -c 200 "$work/healthz")"; fi
ops=http://127.0.0.1:$((port + 1000))
code=$(curl -sS -o "$work/healthz" -w '%{http_code}' "$ops/healthz" || true)
if [ "$code" = 200 ] && node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$work/healthz"; then
  pass "GET $ops/healthz (the operations listener) is 200 with JSON: $(head -c 200 "$work/healthz")"
else fail "GET $ops/healthz -> $code: $(head -c 200 "$work/healthz")"; fi
code=$(curl -sS -o /dev/null -w '%{http_code}' "$base/metrics" || true)
code2=$(curl -sS -o "$work/metrics" -w '%{http_code}' "$ops/metrics" || true)
if [ "$code" = 404 ] && [ "$code2" = 200 ] && grep -q '^swarmcast_' "$work/metrics"; then
  pass "/metrics is 404 on the public port, 200 on $ops ($(grep -c '^swarmcast_' "$work/metrics") series)"
else fail "/metrics: $code on the public port, $code2 on $ops"; fi

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

# WebSocket (and, for the HTTPS front, Chromium's driver): ws and
# playwright-core from tests/node_modules if installed (scripts/deps.sh),
# else npm installs the versions tests/package.json names here.
node_modules=$repo/tests/node_modules
if [ ! -f "$node_modules/ws/package.json" ] || [ ! -f "$node_modules/playwright-core/package.json" ]; then
  log "npm install ws and playwright-core into $work/npm"
  versions=$(node -e 'const d = require(process.argv[1]).devDependencies; console.log(`ws@${d.ws} playwright-core@${d["playwright-core"]}`)' "$repo/tests/package.json")
  # shellcheck disable=SC2086 # two package@version words
  (cd "$work" && mkdir -p npm && cd npm && npm install --silent --no-audit --no-fund $versions >/dev/null)
  node_modules=$work/npm/node_modules
fi
ws_dir=$node_modules/ws
cat >"$work/ws-check.cjs" <<'EOF'
// Connects, expects a JSON hello first, then binary snapshots whose header
// and length follow protocol/PROTOCOL.md; prints a summary, exits 0 on success.
const WebSocket = require(process.argv[2]);
const url = process.argv[3];
// An optional root certificate to trust, for wss:// (Caddy's internal CA).
const tlsOptions = process.argv[4] ? { ca: require('fs').readFileSync(process.argv[4]) } : {};
const want = 5;
const ws = new WebSocket(url, 'swarmcast.v1', tlsOptions);
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
// An optional root certificate to trust, for wss:// (Caddy's internal CA).
const tlsOptions = process.argv[5] ? { ca: require('fs').readFileSync(process.argv[5]) } : {};
const W_SEP = 3.25, OX = 400, OY = 300, OR = 40;
const ws = new WebSocket(url, 'swarmcast.v1', tlsOptions);
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
# Rooms (protocol/PROTOCOL.md "Rooms"), over swarmcast.v2 so that the same
# client talks to the server's own port (6) and to the relays (7).
cat >"$work/ws-room.mjs" <<'JS'
// create URL FILE: in the default room at URL (its /ws), makes a room
//   from the defaults with create_room; writes its code, name and token,
//   and the default room's population, to FILE.
// join URL FILE: joins the room of FILE by its code at URL?room=CODE,
//   typed as a person would (lower case, with a dash): the hello must name
//   the room (canonical code, its name) and make a visitor; the room's
//   token (auth) must make an operator, who sets a parameter and adds an
//   obstacle; frames must arrive, of the room's own flock (not the
//   default room's population).
// expect URL FILE: after a restart, the room reopens by its code: the
//   hello names it and shows the parameter, the token still makes an
//   operator, and the frames show the obstacle.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
const [mode, wsDir, wire2, url, file, caFile] = process.argv.slice(2);
const WebSocket = createRequire(import.meta.url)(wsDir);
const tlsOptions = caFile ? { ca: readFileSync(caFile) } : {};
const { Wire2Decoder } = await import(wire2);
const NAME = 'Check room', W_SEP = 2.75, OX = 500, OY = 400, OR = 30;
const fail = (m) => { console.log(`${mode}: ${m}`); process.exit(1); };
setTimeout(() => fail(`timeout (hello: ${!!hello}, frames: ${frames}, operator: ${operator}, acks: ${acks})`), 20000);
const room = mode === 'create' ? null : JSON.parse(readFileSync(file, 'utf8'));
const typed = room && `${room.code.slice(0, 4)}-${room.code.slice(4)}`.toLowerCase();
const ws = new WebSocket(room ? `${url}?room=${typed}` : url, 'swarmcast.v2', tlsOptions);
const decoder = new Wire2Decoder();
let hello = null, frame = null, frames = 0, operator = false, acks = 0, asked = false, done = false;
const finish = (m) => {
  if (done) return;
  done = true;
  console.log(m);
  ws.removeAllListeners('close');
  ws.close(1000);
  ws.on('close', () => process.exit(0));
};
ws.on('error', (e) => fail(`socket error: ${e.message}`));
ws.on('close', (code, reason) => fail(`closed with ${code} "${reason}" (hello: ${!!hello}, frames: ${frames})`));
const send = (m) => ws.send(JSON.stringify(m));
const check = () => {
  if (mode === 'create' && frame && !asked) {
    asked = true;
    send({ type: 'create_room', from: 'defaults', name: NAME, id: 1 });
  }
  if (mode === 'join' && operator && acks === 2 && frames >= 10) {
    finish(`joined at ?room=${typed}: the hello names room ${hello.room} "${hello.room_name}" (role ${hello.role}); ` +
      `its token made an operator who set w_sep=${W_SEP} and an obstacle; ${frames} frames of its own flock ` +
      `(${frame.population} agents; the default room has ${room.home_population})`);
  }
  if (mode === 'expect' && operator && frame && frame.scene) {
    const obstacles = frame.scene.obstacles;
    if (!obstacles.some((o) => o.x === OX && o.y === OY && o.r === OR))
      fail(`the room's obstacles are ${JSON.stringify(obstacles)}, expected one at (${OX}, ${OY}) r ${OR}`);
    finish(`room ${hello.room} "${hello.room_name}" reopens at ?room=${typed}: w_sep ${W_SEP}, the obstacle, ` +
      `its token still makes an operator, ${frame.population} agents`);
  }
};
ws.on('message', (data, isBinary) => {
  if (done) return;
  if (isBinary) {
    if (!hello) fail('a frame before the hello');
    try { frame = decoder.decode(data); } catch (e) { fail(`frame ${frames + 1} does not decode: ${e.message}`); }
    frames++;
    if (room && mode === 'join' && frame.population === room.home_population)
      fail(`the room's frames have the default room's population (${frame.population})`);
    return check();
  }
  const m = JSON.parse(data.toString('utf8'));
  if (m.type === 'hello') {
    hello = m;
    if (room) {
      if (m.room !== room.code || m.room_name !== room.name)
        fail(`the hello names room "${m.room}" "${m.room_name}", expected ${room.code} "${room.name}"`);
      if (m.role !== 'visitor') fail(`the hello makes a ${m.role}, expected a visitor until auth`);
      if (mode === 'expect') {
        const p = (m.params || []).find((q) => q.name === 'w_sep');
        if (!p || p.value !== W_SEP) fail(`the hello says w_sep ${p && p.value}, expected ${W_SEP}`);
      }
      send({ type: 'auth', token: room.token, id: 1 });
    } else if (m.room !== '') fail(`the default room's hello names room "${m.room}"`);
  } else if (m.type === 'error') {
    fail(`refused: ${m.code} ${m.message}`);
  } else if (m.type === 'room_created' && m.id === 1) {
    if (!/^[2-9A-HJKMNP-Z]{8}$/.test(m.code) || m.path !== `/r/${m.code}` || !/^r_[0-9a-f]{32}$/.test(m.token))
      fail(`room_created: ${JSON.stringify(m)}`);
    writeFileSync(file, JSON.stringify({ code: m.code, name: m.name, token: m.token, home_population: frame.population }));
    return finish(`made room ${m.code} "${m.name}" (${m.path}, its token given once) from the default room ` +
      `(${frame.population} agents)`);
  } else if (m.type === 'ack' && m.cmd === 'auth' && m.id === 1) {
    if (m.role !== 'operator') fail(`auth with the room's token: role ${m.role}`);
    operator = true;
    if (mode === 'join') {
      send({ type: 'set_param', id: 2, name: 'w_sep', value: W_SEP });
      send({ type: 'add_obstacle', id: 3, x: OX, y: OY, radius: OR });
    }
  } else if (m.type === 'ack' && (m.id === 2 || m.id === 3)) {
    acks++;
  }
  check();
});
JS
wire2=$repo/client-web/net/wire2.js
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


# The HTTPS front's checks (7 and 8): Node with ws and playwright-core.
cat >"$work/front-check.mjs" <<'JS'
// page URL: Debian's Chromium (headless, --ignore-certificate-errors: the
//   certificate is from Caddy's internal CA) opens the page over https://
//   and must draw frames that came over its WebSocket, which must be wss://.
// balance URL CA N HEALTHZ_URL...: N v2 viewers over wss:// through Caddy,
//   each with frames, held open while every relay's detailed /healthz (on
//   its operations listener) is asked for its clients: each relay must
//   have some (Caddy balances them).
// forwarded URL CA FROM METRICS_URL: below.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const [mode, modules, url, ...rest] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const fail = (m) => { console.log(m); process.exit(1); };
setTimeout(() => fail(`${mode}: timeout`), 60000);
if (mode === 'page') {
  const { chromium } = require(`${modules}/playwright-core`);
  const browser = await chromium.launch({
    executablePath: process.env.SWARMCAST_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--ignore-certificate-errors'],
  });
  try {
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    const sockets = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(url);
    await page.waitForFunction(() => window.swarmcast?.connected && window.swarmcast.framesDrawn > 3, null, { timeout: 30000 });
    const seen = await page.evaluate(() => ({ protocol: location.protocol, frames: window.swarmcast.framesDrawn }));
    if (seen.protocol !== 'https:') fail(`the page is on ${seen.protocol}`);
    if (!sockets.length || !sockets.every((u) => u.startsWith('wss://'))) fail(`the page's sockets: ${sockets.join(', ')}`);
    console.log(`Chromium: the page on ${url}, its socket ${sockets[0]}, ${seen.frames} frames drawn`);
  } finally {
    await browser.close();
  }
  process.exit(0);
}
if (mode === 'balance') {
  const WebSocket = require(`${modules}/ws`);
  const [caFile, n, ...healthz] = rest;
  const ca = readFileSync(caFile);
  const viewers = await Promise.all(Array.from({ length: Number(n) }, () => new Promise((resolve) => {
    const ws = new WebSocket(url, 'swarmcast.v2', { ca });
    ws.on('message', (d, isBinary) => { if (isBinary) resolve(ws); });
    ws.on('error', (e) => fail(`socket error: ${e.message}`));
    ws.on('close', (code) => fail(`closed with code ${code}`));
  })));
  const counts = [];
  for (const h of healthz) counts.push(JSON.parse(await (await fetch(h)).text()));
  const text = counts.map((c) => `${c.relay} ${c.clients}`).join(', ');
  if (counts.some((c) => c.clients < 1)) fail(`viewers per relay: ${text}`);
  console.log(`${viewers.length} viewers over wss:// with frames, per relay: ${text}`);
  for (const ws of viewers) ws.removeAllListeners('close'), ws.terminate();
  process.exit(0);
}
if (mode === 'forwarded') {
  // A viewer over wss:// from the local address FROM; the server behind
  // Caddy must have counted a connection whose client address it took from
  // Caddy's X-Forwarded-For.
  const WebSocket = require(`${modules}/ws`);
  const [caFile, from, metricsUrl] = rest;
  const count = async () => {
    const text = await (await fetch(metricsUrl)).text();
    const m = /^swarmcast_forwarded_total\{outcome="client"\} (\d+)/m.exec(text);
    return m ? Number(m[1]) : NaN;
  };
  const before = await count();
  const ws = new WebSocket(url, 'swarmcast.v2', { ca: readFileSync(caFile), localAddress: from, family: 4 });
  ws.on('error', (e) => fail(`socket error: ${e.message}`));
  await new Promise((resolve) => ws.on('message', (d, isBinary) => { if (isBinary) resolve(); }));
  const after = await count();
  if (!(after > before)) fail(`swarmcast_forwarded_total{outcome="client"} ${before} -> ${after}`);
  console.log(`a viewer from ${from}: the server took its address from X-Forwarded-For ` +
    `(swarmcast_forwarded_total{outcome="client"} ${before} -> ${after})`);
  ws.terminate();
  process.exit(0);
}
fail(`unknown mode ${mode}`);
JS
# The CA root of a Caddy container's internal CA (in its /data volume).
caddy_root() {
  "$DOCKER" exec "$1" cat /data/caddy/pki/authorities/local/root.crt >"$2" 2>/dev/null && [ -s "$2" ]
}
# Waits for https://localhost:PORT/healthz through Caddy, the certificate
# verified against ROOT (taken from container CID once Caddy has made it).
wait_front() {
  local cid=$1 port=$2 root=$3
  for _ in $(seq 120); do
    caddy_root "$cid" "$root" && curl -fsS --cacert "$root" -o /dev/null "https://localhost:$port/healthz" 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}

# build_image TAG DOCKERFILE WHAT: docker/DOCKERFILE built as TAG (context
# docker/), one check. Every compose step builds the images its file needs
# (besides swarmcast, from 4) itself: a second build in the same run comes
# from the layers of the first.
build_image() {
  local tag=$1 file=$2 what=$3 size t0
  log "docker build --network host -f docker/$file -t $tag docker (log: $work/build-$tag.log)"
  t0=$(now)
  unset "built[$tag]"
  if "$DOCKER" build --network host -f "$repo/docker/$file" -t "$tag" "$repo/docker" >"$work/build-$tag.log" 2>&1; then
    built[$tag]=1
    size=$("$DOCKER" image inspect --format '{{.Size}}' "$tag")
    pass "$what image $tag builds in $(elapsed "$t0" "$(now)") s, $((size / 1000000)) MB: $("$DOCKER" run --rm --entrypoint bash "$tag" -c "$4" 2>&1 | head -n 1)"
  else
    tail -40 "$work/build-$tag.log"; fail "docker build of docker/$file"
  fi
}
build_nats_image() { build_image swarmcast-nats nats.Dockerfile NATS 'echo "Debian'"'"'s $(nats-server --version 2>&1), runs as uid $(id -u)"'; }
build_caddy_image() { build_image swarmcast-caddy caddy.Dockerfile Caddy 'echo "Debian'"'"'s caddy $(caddy version 2>/dev/null | cut -d" " -f1), runs as uid $(id -u)"'; }
# Whether every image compose file FILE names was built by this run (else
# says which were not, as a failure): `up --no-build` must not start
# whatever an earlier run left under that name.
images_built() {
  local i missing=()
  for i in $(sed -n 's/^ *image: *//p' "$1" | tr -d "'\"" | sort -u); do
    [ -n "${built[$i]:-}" ] || missing+=("$i")
  done
  [ ${#missing[@]} = 0 ] && return 0
  fail "$(basename "$1"): not started, this run did not build its image(s) ${missing[*]}"
  return 1
}

# ------------------------------------------------------------------ 6. compose
if compose_step compose; then
  begin_step compose
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
  # Whatever an earlier run of this project left (its state volume above all).
  "$COMPOSE" "${cf[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  if images_built "$work/compose.check.yaml" && "$COMPOSE" "${cf[@]}" up -d --no-build >"$work/compose.log" 2>&1; then
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
    # Rooms with the file's own settings (open to all, kept in
    # SWARMCAST_STATE_DIR on the state volume): one made, joined by its code
    # and set up, then reopened after down + up below.
    room_file=$work/compose-room.json
    rm -f "$room_file"
    if out=$(node "$work/ws-room.mjs" create "$ws_dir" "$wire2" "$compose_ws" "$room_file" 2>&1); then pass "compose: $out"
    else fail "compose: making a room over the WebSocket: $out"; fi
    if [ -s "$room_file" ] && out=$(node "$work/ws-room.mjs" join "$ws_dir" "$wire2" "$compose_ws" "$room_file" 2>&1); then
      pass "compose: $out"
    else fail "compose: joining the room by its code: ${out:-no room was made}"; fi
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
      kept=$("$DOCKER" exec "$cid" sh -c 'ls /var/lib/swarmcast/rooms | tr "\n" " "' 2>&1 || true)
      if [ "$up" = 1 ] && [ -s "$room_file" ] && out=$(node "$work/ws-room.mjs" expect "$ws_dir" "$wire2" "$compose_ws" "$room_file" 2>&1); then
        pass "compose down + up: $out (kept: $kept)"
      else
        fail "compose down + up: the room did not reopen by its code: ${out:-no room was made} (kept: $kept)"
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
if compose_step scaled; then
  begin_step scaled
  scaled_file=$repo/docker/compose-scaled.yml
  # The passwords the compose file names (secrets/*.env beside it), new
  # ones for this run in its temporary folder, as docker/nats-secrets.sh
  # makes them for users: never a user's docker/secrets/, nor what an
  # earlier run left there. The file is validated as it is, its relative
  # paths taken from a project folder whose secrets/ is that one.
  secrets=$work/secrets
  SWARMCAST_NATS_SECRETS=$secrets "$repo/docker/nats-secrets.sh" 2>>"$work/nats-secrets.log"
  mkdir -p "$work/scaled-project"
  ln -sfn "$secrets" "$work/scaled-project/secrets"
  build_nats_image
  build_caddy_image
  scaled_config=(-p "$scaled_project" --project-directory "$work/scaled-project" -f "$scaled_file")
  if "$COMPOSE" "${scaled_config[@]}" config -q; then
    pass "docker/compose-scaled.yml is valid"
  else fail "docker-compose config of compose-scaled.yml"; fi
  # Only Caddy is published (80, 443 and 443/udp for HTTP/3).
  "$COMPOSE" "${scaled_config[@]}" config >"$work/compose-scaled.config.yaml" 2>&1 || true
  published=$(grep -oE 'published: "?[0-9]+' "$work/compose-scaled.config.yaml" | grep -oE '[0-9]+' | sort -n | tr '\n' ' ')
  if [ "$published" = "80 443 443 " ]; then pass "compose-scaled.yml publishes ports $published(Caddy's only)"
  else fail "compose-scaled.yml publishes ports '$published', expected 80 443 443 (Caddy's only)"; fi
  nats_port=$scaled_port monitor_port=$((scaled_port + 1)) sim_port=$((scaled_port + 2))
  relay_ports=($((scaled_port + 3)) $((scaled_port + 4)))
  front_http=$((scaled_port + 5)) front_https=$((scaled_port + 6)) metrics_base=$((scaled_port + 7))
  # As in 6: the same services on the host's network, each on its own
  # loopback port, NATS named by 127.0.0.1 instead of the compose network's
  # service name.
  python3 - "$scaled_file" "$work/compose-scaled.check.yaml" "$nats_port" "$monitor_port" "$sim_port" "${relay_ports[@]}" \
    "$front_http" "$front_https" "$metrics_base" "$secrets" <<'PY'
import os, sys, yaml
src, dst, nats_port, monitor_port, sim_port, r1, r2, front_http, front_https, metrics_base, secrets = sys.argv[1:]
doc = yaml.safe_load(open(src))
ports = {"sim": sim_port, "relay1": r1, "relay2": r2}
url = "nats://127.0.0.1:" + nats_port
assert set(ports) | {"nats", "caddy"} == set(doc["services"]), sorted(doc["services"])
doc.pop("networks", None)
here = os.path.dirname(os.path.abspath(src))
for name, svc in doc["services"].items():
    svc.pop("ports", None)
    svc.pop("networks", None)
    svc["network_mode"] = "host"
    env = svc.get("environment") or {}
    svc["environment"] = env
    if name == "caddy":
        # The front on its own loopback ports, the relays by their ports.
        assert env["SWARMCAST_UPSTREAMS"] == "relay1:8080 relay2:8080", env
        env["SWARMCAST_UPSTREAMS"] = "127.0.0.1:%s 127.0.0.1:%s" % (r1, r2)
        env["SWARMCAST_HTTP_PORT"], env["SWARMCAST_HTTPS_PORT"] = front_http, front_https
        svc["volumes"] = [os.path.join(here, v[2:]) if v.startswith("./") else v for v in svc["volumes"]]
        svc["build"]["context"] = here
        continue
    if "SWARMCAST_TRUSTED_PROXY" in env:
        env["SWARMCAST_TRUSTED_PROXY"] = "127.0.0.1/32"
    if "SWARMCAST_METRICS_LISTEN" in env:
        env["SWARMCAST_METRICS_LISTEN"] = "127.0.0.1:%d" % (int(metrics_base) + ["sim", "relay1", "relay2"].index(name))
    env_file = svc.get("env_file")
    assert isinstance(env_file, str) and env_file.startswith("secrets/"), (name, env_file)
    svc["env_file"] = os.path.join(secrets, env_file[len("secrets/"):])
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
  # Whatever an earlier run of this project left (Caddy's CA, the state).
  "$COMPOSE" "${sf[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  if images_built "$work/compose-scaled.check.yaml" && "$COMPOSE" "${sf[@]}" up -d --no-build >"$work/compose-scaled.log" 2>&1; then
    for i in 0 1; do
      rp=${relay_ports[$i]}
      code=""
      for _ in $(seq 120); do
        code=$(curl -sS -o "$work/relay-healthz" -w '%{http_code}' "http://127.0.0.1:$rp/healthz" 2>/dev/null) || code=""
        [ "$code" = 200 ] && break
        sleep 0.5
      done
      # The relay's detailed status, on its operations listener.
      curl -sS -o "$work/relay-healthz" "http://127.0.0.1:$((metrics_base + 1 + i))/healthz" 2>/dev/null || true
      hz=$(head -c 300 "$work/relay-healthz" 2>/dev/null || true)
      if [ "$code" = 200 ] && node -e 'const h = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.exit(h.status === "ok" ? 0 : 1)' "$work/relay-healthz"; then
        pass "scaled: relay $((i + 1)) /healthz on 127.0.0.1:$rp is 200, its detail ok: $hz"
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
import { readFileSync } from 'node:fs';
const [wsDir, wire2, url, caFile] = process.argv.slice(2);
const WebSocket = createRequire(import.meta.url)(wsDir);
// An optional root certificate to trust, for wss:// (Caddy's internal CA).
const tlsOptions = caFile ? { ca: readFileSync(caFile) } : {};
const { Wire2Decoder } = await import(wire2);
const want = 10;
const decoder = new Wire2Decoder();
let hello = null, frames = 0, last = null;
const fail = (m) => { console.log(m); process.exit(1); };
setTimeout(() => fail(`timeout: hello=${!!hello} frames=${frames}`), 15000);
const ws = new WebSocket(url, 'swarmcast.v2', tlsOptions);
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
    # The front: HTTPS from Caddy's internal CA, each viewer to a relay.
    caddy_cid=$("$COMPOSE" "${sf[@]}" ps -q caddy)
    front=https://localhost:$front_https
    if wait_front "$caddy_cid" "$front_https" "$work/scaled-root.crt"; then
      pass "scaled: $front/healthz through Caddy, its certificate verified against Caddy's internal CA: $(curl -sS --cacert "$work/scaled-root.crt" "$front/healthz" | head -c 200)"
      if out=$(node "$work/ws-v2.mjs" "$ws_dir" "$repo/client-web/net/wire2.js" "wss://localhost:$front_https/ws" "$work/scaled-root.crt" 2>&1); then
        pass "scaled: a viewer over wss:// through Caddy: $out"
      else fail "scaled: a viewer over wss:// through Caddy: $out"; fi
      if out=$(node "$work/front-check.mjs" balance "$node_modules" "wss://localhost:$front_https/ws" "$work/scaled-root.crt" 6 \
            "http://127.0.0.1:$((metrics_base + 1))/healthz" "http://127.0.0.1:$((metrics_base + 2))/healthz" 2>&1); then
        pass "scaled: Caddy balances the relays: $out"
      else fail "scaled: Caddy balancing the relays: $out"; fi
      if out=$(node "$work/front-check.mjs" page "$node_modules" "$front/" 2>&1); then pass "scaled: $out"
      else fail "scaled: the page over https:// through Caddy: $out"; fi
    else
      fail "scaled: no answer on $front/healthz through Caddy"
      "$COMPOSE" "${sf[@]}" logs --no-color caddy 2>&1 | tail -20
    fi
    # Rooms through the relays, with the file's own settings: a room made
    # at relay 1 is joined by its code at relay 2 (its viewer there made
    # the room's operator by its token), and after the simulation restarts
    # (`restart sim`: its state volume keeps the room) it reopens by its code
    # at relay 1, which asks the simulation for it again.
    room_file=$work/scaled-room.json
    rm -f "$room_file"
    relay_ws=("ws://127.0.0.1:${relay_ports[0]}/ws" "ws://127.0.0.1:${relay_ports[1]}/ws")
    if out=$(node "$work/ws-room.mjs" create "$ws_dir" "$wire2" "${relay_ws[0]}" "$room_file" 2>&1); then pass "scaled: at relay 1: $out"
    else fail "scaled: making a room at relay 1: $out"; fi
    if [ -s "$room_file" ] && out=$(node "$work/ws-room.mjs" join "$ws_dir" "$wire2" "${relay_ws[1]}" "$room_file" 2>&1); then
      pass "scaled: at relay 2: $out"
    else fail "scaled: joining the room by its code at relay 2: ${out:-no room was made}"; fi
    t0=$(now)
    "$COMPOSE" "${sf[@]}" restart sim >>"$work/compose-scaled.log" 2>&1 || true
    out="" reopened=0 tries=0
    if [ -s "$room_file" ]; then
      # Until the relay hears from the new simulation it turns viewers away
      # (1013, try again later), as it does any viewer then.
      while [ "$tries" -lt 30 ]; do
        tries=$((tries + 1))
        out=$(node "$work/ws-room.mjs" expect "$ws_dir" "$wire2" "${relay_ws[0]}" "$room_file" 2>&1) && { reopened=1; break; }
        echo "  (restart sim: try $tries at relay 1: $out)"
        sleep 1
      done
    fi
    if [ "$reopened" = 1 ]; then
      pass "scaled: restart sim, $(elapsed "$t0" "$(now)") s later (try $tries) at relay 1: $out"
    else
      fail "scaled: after restart sim, the room did not reopen by its code at relay 1 within $(elapsed "$t0" "$(now)") s: ${out:-no room was made}"
      "$COMPOSE" "${sf[@]}" logs --no-color sim relay1 2>&1 | tail -20
    fi
  else
    cat "$work/compose-scaled.log"; fail "docker-compose up of compose-scaled.yml"
  fi
  "$COMPOSE" "${sf[@]}" down -v >/dev/null 2>&1 || true
  scaled_up=0
fi

# ------------------------------------------------------------ 8. HTTPS front
if compose_step https; then
  begin_step https
  https_file=$repo/docker/compose-https.yml
  build_caddy_image
  if SWARMCAST_DOMAIN=flock.example.org "$COMPOSE" -p "$https_project" -f "$https_file" config >"$work/compose-https.config.yaml" 2>&1; then
    pass "docker/compose-https.yml is valid"
  else cat "$work/compose-https.config.yaml"; fail "docker-compose config of compose-https.yml"; fi
  published=$(grep -oE 'published: "?[0-9]+' "$work/compose-https.config.yaml" | grep -oE '[0-9]+' | sort -n | tr '\n' ' ')
  if [ "$published" = "80 443 443 " ]; then pass "compose-https.yml publishes ports $published(Caddy's only)"
  else fail "compose-https.yml publishes ports '$published', expected 80 443 443 (Caddy's only)"; fi
  if grep -q 'SWARMCAST_DOMAIN: flock.example.org' "$work/compose-https.config.yaml"; then
    pass "compose-https.yml gives Caddy SWARMCAST_DOMAIN (flock.example.org: ACME, not exercised here)"
  else fail "compose-https.yml does not pass SWARMCAST_DOMAIN to Caddy"; fi
  https_http=$https_port https_tls=$((https_port + 1)) https_server=$((https_port + 2)) https_metrics=$((https_port + 3))
  # As in 6: the same services on the host's network, Caddy on its own
  # loopback ports in front of the server's; no SWARMCAST_DOMAIN, so Caddy
  # serves https://localhost from its internal CA.
  python3 - "$https_file" "$work/compose-https.check.yaml" "$https_http" "$https_tls" "$https_server" "$https_metrics" <<'PY'
import os, sys, yaml
src, dst, http_port, https_port, server_port, metrics_port = sys.argv[1:]
doc = yaml.safe_load(open(src))
assert set(doc["services"]) == {"caddy", "swarmcast"}, sorted(doc["services"])
assert "ports" not in doc["services"]["swarmcast"], "the server must not be published"
doc.pop("networks", None)
here = os.path.dirname(os.path.abspath(src))
for name, svc in doc["services"].items():
    svc.pop("ports", None)
    svc.pop("networks", None)
    svc["network_mode"] = "host"
    env = svc.setdefault("environment", {})
    svc["build"]["context"] = os.path.abspath(os.path.join(here, svc["build"]["context"]))
    if name == "caddy":
        env["SWARMCAST_UPSTREAMS"] = "127.0.0.1:" + server_port
        env["SWARMCAST_HTTP_PORT"], env["SWARMCAST_HTTPS_PORT"] = http_port, https_port
        env["SWARMCAST_DOMAIN"] = "localhost"
        svc["volumes"] = [os.path.join(here, v[2:]) if v.startswith("./") else v for v in svc["volumes"]]
    else:
        env["SWARMCAST_PORT"] = server_port
        env["SWARMCAST_TRUSTED_PROXY"] = "127.0.0.1/32"
        env["SWARMCAST_METRICS_LISTEN"] = "127.0.0.1:" + metrics_port
        env["SWARMCAST_PUBLIC_URL"] = "https://localhost:%s/" % https_port
yaml.safe_dump(doc, open(dst, "w"), sort_keys=False)
PY
  hf=(-p "$https_project" -f "$work/compose-https.check.yaml")
  https_up=1
  front=https://localhost:$https_tls
  # Whatever an earlier run of this project left: with Caddy's old CA on
  # its volume, "down + up keeps the CA" would prove nothing.
  "$COMPOSE" "${hf[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  if images_built "$work/compose-https.check.yaml" && "$COMPOSE" "${hf[@]}" up -d --no-build >"$work/compose-https.log" 2>&1; then
    caddy_cid=$("$COMPOSE" "${hf[@]}" ps -q caddy)
    t0=$(now)
    if wait_front "$caddy_cid" "$https_tls" "$work/https-root.crt"; then
      issuer=$(openssl x509 -noout -subject -in "$work/https-root.crt" 2>/dev/null | sed 's/^subject=//' || true)
      pass "https: $front/healthz through Caddy after $(elapsed "$t0" "$(now)") s, its certificate verified against Caddy's internal CA ($issuer): $(curl -sS --cacert "$work/https-root.crt" "$front/healthz" | head -c 200)"
      code=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://localhost:$https_http/" || true)
      case "$code" in 30[18]\ https://*) pass "https: plain http:// is redirected: $code" ;;
        *) fail "https: plain http:// answered $code, expected a redirect to https://" ;; esac
      code=$(curl -sS --cacert "$work/https-root.crt" -o /dev/null -w '%{http_code}' "$front/metrics" || true)
      if [ "$code" = 404 ]; then pass "https: /metrics through Caddy is 404 (operators' figures stay off the public face)"
      else fail "https: /metrics through Caddy -> $code"; fi
      code=$(curl -sS --cacert "$work/https-root.crt" -o "$work/https-index.html" -w '%{http_code}' "$front/" || true)
      if [ "$code" = 200 ] && grep -qi '<html' "$work/https-index.html"; then pass "https: GET $front/ is 200 and HTML"
      else fail "https: GET $front/ -> $code"; fi
      if out=$(node "$work/front-check.mjs" page "$node_modules" "$front/" 2>&1); then pass "https: $out"
      else fail "https: the page over https:// in Chromium: $out"; fi
      for k in 1 2 3; do
        if out=$(node "$work/ws-check.cjs" "$ws_dir" "wss://localhost:$https_tls/ws" "$work/https-root.crt" 2>&1); then
          pass "https: viewer $k over wss://: $out"
        else fail "https: viewer $k over wss://: $out"; fi
      done
      # SWARMCAST_TRUSTED_PROXY: the server believes Caddy's X-Forwarded-For.
      if out=$(node "$work/front-check.mjs" forwarded "$node_modules" "wss://localhost:$https_tls/ws" "$work/https-root.crt" \
            127.0.0.2 "http://127.0.0.1:$https_metrics/metrics" 2>&1); then pass "https: $out"
      else fail "https: the viewer's own address behind Caddy: $out"; fi
      if out=$(node "$work/ws-state.cjs" "$ws_dir" set "wss://localhost:$https_tls/ws" "$work/https-root.crt" 2>&1); then pass "https: over wss://: $out"
      else fail "https: setting up over wss://: $out"; fi
      # down + up: new containers on the same volumes keep the set-up (the
      # state volume) and Caddy's CA and certificate (its data volume).
      "$COMPOSE" "${hf[@]}" down >/dev/null 2>&1
      if "$COMPOSE" "${hf[@]}" up -d --no-build >>"$work/compose-https.log" 2>&1; then
        caddy_cid=$("$COMPOSE" "${hf[@]}" ps -q caddy)
        if wait_front "$caddy_cid" "$https_tls" "$work/https-root-2.crt" && cmp -s "$work/https-root.crt" "$work/https-root-2.crt"; then
          pass "https: down + up: the same internal CA (Caddy's data volume kept)"
        else fail "https: down + up: Caddy's CA changed or no answer"; fi
        if out=$(node "$work/ws-state.cjs" "$ws_dir" expect "wss://localhost:$https_tls/ws" "$work/https-root.crt" 2>&1); then
          pass "https: down + up, over wss://: $out"
        else
          fail "https: down + up did not resume: $out"
          "$COMPOSE" "${hf[@]}" logs --no-color 2>&1 | tail -20
        fi
      else cat "$work/compose-https.log"; fail "docker-compose up of compose-https.yml (second time)"; fi
    else
      fail "https: no answer on $front/healthz through Caddy"
      "$COMPOSE" "${hf[@]}" logs --no-color 2>&1 | tail -30
    fi
  else
    cat "$work/compose-https.log"; fail "docker-compose up of compose-https.yml"
  fi
  "$COMPOSE" "${hf[@]}" down -v >/dev/null 2>&1 || true
  https_up=0
fi

# ------------------------------------------------------------- 9. worker pool
if compose_step pool; then
  begin_step pool
  pool_file=$repo/docker/compose-pool.yml
  build_nats_image
  if SWARMCAST_COMMIT=$commit "$COMPOSE" -p "$pool_project" -f "$pool_file" config >"$work/compose-pool.config.yaml" 2>&1; then
    pass "docker/compose-pool.yml is valid"
  else cat "$work/compose-pool.config.yaml"; fail "docker-compose config of compose-pool.yml"; fi
  # NATS has no users here: it must be reachable from this host only.
  published=$(grep -oE '^ +- [0-9.]*:?[0-9]+:[0-9]+' "$work/compose-pool.config.yaml" | tr -d ' -' | tr '\n' ' ')
  if [ "$published" = "127.0.0.1:4222:4222 " ]; then pass "compose-pool.yml publishes NATS on 127.0.0.1:4222 only"
  else fail "compose-pool.yml publishes '$published', expected NATS on 127.0.0.1:4222 only"; fi
  if grep -qE "SWARMCAST_COMMIT: '?$commit'?\$" "$work/compose-pool.config.yaml"; then
    pass "compose-pool.yml builds the workers with SWARMCAST_COMMIT ($commit)"
  else fail "compose-pool.yml does not pass SWARMCAST_COMMIT to the workers' build"; fi
  pool_nats=$pool_port pool_monitor=$((pool_port + 1))
  pool_url=nats://127.0.0.1:$pool_nats
  # As in 6: the same services on the host's network, NATS on its own
  # loopback ports and named by 127.0.0.1 instead of the service name. The
  # coordinator keeps the file's ${PWD}:/work (run from the sweep's folder).
  python3 - "$pool_file" "$work/compose-pool.check.yaml" "$pool_nats" "$pool_monitor" <<'PY'
import os, sys, yaml
src, dst, nats_port, monitor_port = sys.argv[1:]
doc = yaml.safe_load(open(src))
assert set(doc["services"]) == {"nats", "worker", "coordinator"}, sorted(doc["services"])
doc.pop("networks", None)
here = os.path.dirname(os.path.abspath(src))
for name, svc in doc["services"].items():
    svc.pop("ports", None)
    svc.pop("networks", None)
    svc["network_mode"] = "host"
    build = svc.get("build")
    if isinstance(build, dict):
        build["context"] = os.path.abspath(os.path.join(here, build["context"]))
    env = svc.setdefault("environment", {})
    if name == "nats":
        cmd = svc["command"]
        assert "-js" in cmd and cmd[cmd.index("-a") + 1] == "0.0.0.0", cmd
        for flag, value in (("-a", "127.0.0.1"), ("-p", nats_port), ("-m", monitor_port)):
            cmd[cmd.index(flag) + 1] = value
        env["NATS_MONITOR_PORT"] = monitor_port
    elif name == "worker":
        assert env.get("SWARMCAST_NATS") == "nats://nats:4222", env
        env["SWARMCAST_NATS"] = "nats://127.0.0.1:" + nats_port
    else:
        assert svc["volumes"] == ["${PWD}:/work"] and svc["working_dir"] == "/work", svc
yaml.safe_dump(doc, open(dst, "w"), sort_keys=False)
PY
  pf=(-p "$pool_project" -f "$work/compose-pool.check.yaml")
  version=$("$COMPOSE" "${pf[@]}" run --rm -T --no-deps worker --version 2>&1 | tail -n 1)
  case "$version" in
    *"(commit $commit)") pass "pool: the worker service's --version names the commit: $version" ;;
    *) fail "pool: the worker service's --version says '$version', not commit $commit" ;;
  esac
  # The sweep: experiments/delay.json with 2 delays x 3 replicates, in a
  # folder the image's user (10001) may write. 20 minutes of the flock's
  # time a run (a second or so of a core): long enough that a worker is
  # surely stopped inside one.
  pool_dir=$work/pool
  mkdir -p "$pool_dir"
  python3 - "$repo/experiments/delay.json" "$pool_dir/sweep.json" <<'PY'
import json, sys
src, dst = sys.argv[1:]
x = json.load(open(src))
x["description"] = "docker/check.sh: " + src.rsplit("/", 1)[-1] + " cut down"
x["factors"] = [{"param": "delay_ticks", "values": [0, 10]}]
x["replicates"], x["steps"], x["record_every"] = 3, 72000, 3600
json.dump(x, open(dst, "w"), indent=1)
PY
  chown -R 10001:10001 "$pool_dir"
  pool_up=1
  # Whatever an earlier run of this project left.
  "$DOCKER" rm -f "$pool_project-coordinator" >/dev/null 2>&1 || true
  "$COMPOSE" "${pf[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  if images_built "$work/compose-pool.check.yaml" && "$COMPOSE" "${pf[@]}" up -d --no-build --scale worker=2 >"$work/compose-pool.log" 2>&1; then
    code=""
    for _ in $(seq 120); do
      code=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$pool_monitor/healthz" 2>/dev/null) || code=""
      [ "$code" = 200 ] && break
      sleep 0.5
    done
    if [ "$code" = 200 ] && curl -sS "http://127.0.0.1:$pool_monitor/jsz" | grep -q '"config"'; then
      pass "pool: NATS answers on 127.0.0.1:$pool_nats with JetStream"
    else fail "pool: NATS with JetStream on 127.0.0.1:$pool_nats -> ${code:-no answer}"; fi
    mapfile -t workers < <("$COMPOSE" "${pf[@]}" ps -q worker)
    connected=0
    for _ in $(seq 120); do
      connected=0
      for w in "${workers[@]}"; do
        "$DOCKER" logs "$w" 2>&1 | grep -q "connected to $pool_url" && connected=$((connected + 1))
      done
      [ "$connected" = 2 ] && break
      sleep 0.5
    done
    if [ "${#workers[@]}" = 2 ] && [ "$connected" = 2 ]; then pass "pool: --scale worker=2 starts two workers, both connected to NATS"
    else fail "pool: ${#workers[@]} workers, $connected connected to NATS"; "$COMPOSE" "${pf[@]}" logs --no-color 2>&1 | tail -20; fi
    # The coordinator as the compose file's comment runs it, from the
    # folder it mounts at /work.
    (cd "$pool_dir" && exec "$COMPOSE" "${pf[@]}" run --rm -T --name "$pool_project-coordinator" coordinator \
       experiment run sweep.json --out pool-out --nats "$pool_url") >"$work/pool-coordinator.log" 2>&1 &
    coordinator_pid=$!
    # The worker's log: "running HASH run ID (index I, delivery D)" when it
    # takes a run, "ran HASH run ID in S s: ok" when it is done with it.
    runs_started() { "$DOCKER" logs "$1" 2>&1 | grep -c ' running .* run ' || true; }
    runs_done() { "$DOCKER" logs "$1" 2>&1 | grep -c ' ran .* run .*: ok$' || true; }
    # Once each worker has finished a run, stop the first one to take its
    # next, as soon as it does: it holds that run then (a run lasts far
    # longer than the signal takes).
    stopped="" started=() given=""
    for _ in $(seq 1200); do
      kill -0 "$coordinator_pid" 2>/dev/null || break
      if [ ${#started[@]} = 0 ]; then
        [ "$(runs_done "${workers[0]}")" -ge 1 ] && [ "$(runs_done "${workers[1]}")" -ge 1 ] &&
          started=("$(runs_started "${workers[0]}")" "$(runs_started "${workers[1]}")")
      else
        for i in 0 1; do
          if [ "$(runs_started "${workers[$i]}")" -gt "${started[$i]}" ]; then stopped=$i; break 2; fi
        done
      fi
      sleep 0.1
    done
    if [ -n "$stopped" ]; then
      w=${workers[$stopped]}
      t0=$(now)
      "$DOCKER" stop -t 5 "$w" >/dev/null
      took=$(elapsed "$t0" "$(now)")
      rc=$("$DOCKER" inspect --format '{{.State.ExitCode}}' "$w")
      given=$("$DOCKER" logs "$w" 2>&1 | sed -n 's/.*stopping: run \([0-9a-f]*\) given back.*/\1/p' | tail -n 1)
      if [ "$rc" = 0 ] && [ -n "$given" ]; then
        pass "pool: worker $((stopped + 1)) stopped mid-run (docker stop) exits 0 after $took s, giving run $given back"
      else
        fail "pool: worker $((stopped + 1)) stopped mid-run: exit code $rc after $took s, gave back '${given:-nothing}'"
        "$DOCKER" logs "$w" 2>&1 | tail -10
      fi
    else fail "pool: the sweep ended before each worker had run a run and taken another"; fi
    rc=""
    for _ in $(seq 600); do kill -0 "$coordinator_pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$coordinator_pid" 2>/dev/null; then kill "$coordinator_pid"; fi
    set +e; wait "$coordinator_pid"; rc=$?; set -e
    coordinator_pid=""
    if [ "$rc" = 0 ]; then pass "pool: the coordinator service ends the sweep, exit 0: $(tr '\r' '\n' <"$work/pool-coordinator.log" | grep -v '^$' | tail -n 1)"
    else fail "pool: the coordinator exits $rc"; tail -20 "$work/pool-coordinator.log"; fi
    ran=()
    for w in "${workers[@]}"; do ran+=("$(runs_done "$w")"); done
    if [ "${ran[0]}" -ge 1 ] && [ "${ran[1]}" -ge 1 ]; then pass "pool: both workers ran runs (${ran[0]} and ${ran[1]}, from their logs)"
    else fail "pool: runs per worker: ${ran[*]}"; fi
    # The local runner in the same image, on the same file.
    if "$DOCKER" run --rm --network none -v "$pool_dir:/work" -w /work "$image" \
         experiment run sweep.json --out local-out --workers 2 >"$work/pool-local.log" 2>&1; then
      same=()
      for f in results.csv summary.csv; do
        cmp -s "$pool_dir/pool-out/$f" "$pool_dir/local-out/$f" && same+=("$f ($(wc -l <"$pool_dir/pool-out/$f") lines)")
      done
      if [ "${#same[@]}" = 2 ]; then pass "pool: byte-identical to \`experiment run --workers 2\`: ${same[*]}"
      else fail "pool: the pool's tables differ from the local runner's (same: ${same[*]:-none})"; fi
    else tail -20 "$work/pool-local.log"; fail "pool: the local runner on the same sweep"; fi
    if out=$(python3 - "$pool_dir/pool-out/manifest.json" "$commit" "$given" <<'PY'
import json, sys
path, commit, given = sys.argv[1:]
m = json.load(open(path))
runs = m["runs"]
bad = [r["id"] for r in runs if r["status"] != "ok"]
assert not bad, "runs not ok: %s" % bad
assert m["share"] == "all (NATS pool)", m["share"]
assert m["program"]["commit"] == commit, m["program"]
again = [r for r in runs if r["id"] == given]
if given:
    assert again and again[0].get("deliveries", 0) >= 2, "run %s: %s" % (given, again)
print("%d runs ok, share %r, commit %s%s" % (len(runs), m["share"], commit,
      ", run %s delivered %d times" % (given, again[0]["deliveries"]) if given else ""))
PY
    ); then pass "pool: the manifest: $out"
    else fail "pool: the manifest: $out"; fi
  else
    cat "$work/compose-pool.log"; fail "docker-compose up of compose-pool.yml"
  fi
  "$COMPOSE" "${pf[@]}" down -v >/dev/null 2>&1 || true
  pool_up=0
  left=$("$DOCKER" ps -aq --filter "label=com.docker.compose.project=$pool_project" | wc -l)
  if [ "$left" = 0 ]; then pass "pool: down leaves no container"; else fail "pool: $left containers left after down"; fi
fi

finish

#!/usr/bin/env bash
# docker/nats-secrets.sh — makes the NATS passwords of the scaled set-up
# (docker/nats.conf), random, once: later runs keep the files there are.
#
#   docker/nats-secrets.sh [RELAYS]     RELAYS: how many relay users (default 2)
#
# Writes, readable by their owner only, into docker/secrets/ (git ignores
# it; SWARMCAST_NATS_SECRETS names another directory):
#   nats.env     every password, for nats-server (docker/nats.conf reads them
#                from its environment)
#   sim.env      SWARMCAST_NATS_USER=sim and its SWARMCAST_NATS_PASSWORD
#   relayN.env   the same for relay N (start that relay with --relay-tag N)
# docker/compose-scaled.yml passes each service its file; by hand:
#   env $(cat docker/secrets/sim.env) swarmcast --nats nats://127.0.0.1:4222 …
set -euo pipefail

dir=${SWARMCAST_NATS_SECRETS:-$(cd "$(dirname "$0")" && pwd)/secrets}
relays=${1:-2}
case "$relays" in
  '' | *[!0-9]* | 0*) echo "nats-secrets.sh: RELAYS is a number from 1 to 1023, not '$relays'" >&2; exit 2 ;;
esac
if [ "$relays" -gt 1023 ]; then
  echo "nats-secrets.sh: RELAYS is a number from 1 to 1023, not '$relays'" >&2
  exit 2
fi

umask 077
mkdir -p "$dir"

# 160 random bits in hex, after a letter: nats-server reads an environment
# value as a configuration value, and one that looks like a number is not a
# password.
password() { printf 'p%s\n' "$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')"; }

# The user's file, unless it is there already; prints its password.
user_file() {
  local user=$1 file="$dir/$1.env"
  if [ ! -s "$file" ]; then
    printf 'SWARMCAST_NATS_USER=%s\nSWARMCAST_NATS_PASSWORD=%s\n' "$user" "$(password)" >"$file.tmp"
    mv "$file.tmp" "$file"
    echo "nats-secrets.sh: wrote $file" >&2
  fi
  sed -n 's/^SWARMCAST_NATS_PASSWORD=//p' "$file"
}

{
  printf 'SWARMCAST_NATS_SIM_PASSWORD=%s\n' "$(user_file sim)"
  for n in $(seq 1 "$relays"); do
    printf 'SWARMCAST_NATS_RELAY%s_PASSWORD=%s\n' "$n" "$(user_file "relay$n")"
  done
} >"$dir/nats.env.tmp"
mv "$dir/nats.env.tmp" "$dir/nats.env"
echo "nats-secrets.sh: $dir/nats.env has the passwords of sim and relay1 … relay$relays" >&2

# The HTTPS front of docker/compose-https.yml and docker/compose-scaled.yml:
# Debian's own caddy package (2.6) on the same base as the swarmcast image,
# so that no image comes from a registry.
#
#   docker build -f docker/caddy.Dockerfile -t swarmcast-caddy docker
#
# It runs docker/Caddyfile (copied in; the compose files mount the same file):
# with SWARMCAST_DOMAIN set to a name whose DNS points at this host (ports 80
# and 443 reachable), Caddy gets and renews that name's certificate by itself
# (ACME); without it, it serves https://localhost from its own internal CA.
# Certificates, keys and the internal CA live in /data (XDG_DATA_HOME): keep it
# on a volume, or every start asks the CA again (and Let's Encrypt limits how
# often a name may be issued).
FROM debian:bookworm-slim

ARG DEBIAN_FRONTEND=noninteractive
# The package's maintainer scripts add a `caddy` system user and would enable
# a systemd unit: neither is used here (no init in a container). setcap lets
# the unprivileged user below bind ports 80 and 443 on any engine (Docker
# 20.10+ also allows it through a sysctl, other engines may not).
RUN apt-get update \
 && apt-get install -y --no-install-recommends caddy ca-certificates libcap2-bin \
 && setcap cap_net_bind_service=+ep /usr/bin/caddy \
 && apt-get purge -y libcap2-bin && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10003 caddyrun \
 && useradd --system --uid 10003 --gid caddyrun --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin caddyrun \
 && install -d -o 10003 -g 10003 -m 0700 /data /config

COPY Caddyfile /etc/swarmcast/Caddyfile

# Where Caddy keeps its state (certificates, ACME account, internal CA) and
# its autosaved configuration.
ENV XDG_DATA_HOME=/data \
    XDG_CONFIG_HOME=/config

USER 10003:10003
VOLUME ["/data"]
EXPOSE 80 443

# No admin endpoint (docker/Caddyfile: admin off) and no curl: bash's /dev/tcp
# asks the plain-HTTP port, which answers every request (a redirect to HTTPS).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\"${SWARMCAST_HTTP_PORT:-80}\" && printf 'GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1'"]

# Caddy finishes its requests and exits on SIGTERM.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/caddy"]
CMD ["run", "--config", "/etc/swarmcast/Caddyfile", "--adapter", "caddyfile"]

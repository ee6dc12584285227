# NATS for the scaled set-up (docker/compose-scaled.yml): Debian's own
# nats-server package (2.9) on the same base as the swarmcast image, so that
# no image comes from a registry.
#
#   docker build -f docker/nats.Dockerfile -t swarmcast-nats docker
#   docker/nats-secrets.sh
#   docker run --rm -p 4222:4222 --env-file docker/secrets/nats.env swarmcast-nats
# By default it runs with docker/nats.conf (users sim, relay1, relay2, each
# held to its own subjects; no anonymous client), whose passwords it takes
# from the environment: without them it does not start. The file holds no
# secret. Arguments after the image name replace the default command (the
# server's flags: `-c FILE`, `-a ADDR -p PORT`; see nats-server --help).
FROM debian:bookworm-slim

ARG DEBIAN_FRONTEND=noninteractive
# The package's maintainer scripts add a `nats` system user and would enable a
# systemd unit: neither is used here (no init in a container).
RUN apt-get update \
 && apt-get install -y --no-install-recommends nats-server \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10002 natsrun \
 && useradd --system --uid 10002 --gid natsrun --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin natsrun

COPY nats.conf /etc/swarmcast/nats.conf

USER 10002:10002
EXPOSE 4222 8222

# Port 8222 (-m; NATS_MONITOR_PORT if the command names another) is
# nats-server's monitoring endpoint: /healthz answers 200 once the server
# accepts clients. No curl in the image: bash's /dev/tcp asks it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\"${NATS_MONITOR_PORT:-8222}\" && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]

# nats-server stops on SIGTERM (lame-duck mode is SIGUSR2, not used here).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/sbin/nats-server"]
CMD ["-c", "/etc/swarmcast/nats.conf", "-a", "0.0.0.0", "-p", "4222", "-m", "8222"]

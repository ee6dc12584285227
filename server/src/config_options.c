#include "config_options.h"

#include "bridge/subjects.h"

#define SECTION(text) {0, NULL, NULL, NULL, NULL, NULL, text}

static const config_option_t options[] = {
    SECTION(""),
    {OPT_BIND, "bind", "ADDR", "SWARMCAST_BIND", "127.0.0.1", NULL, "address to listen on"},
    {OPT_PORT, "port", "N", "SWARMCAST_PORT", "8080", NULL, "TCP port, 0 for any free one"},
    {OPT_AGENTS, "agents", "N", "SWARMCAST_AGENTS", "1000", NULL, "initial number of agents"},
    {OPT_SEED, "seed", "N", "SWARMCAST_SEED", "1", NULL, "seed of the world"},
    {OPT_TICK, "tick-hz", "N", "SWARMCAST_TICK_HZ", "60", NULL, "simulation steps per second"},
    {OPT_SNAP, "snapshot-hz", "N", "SWARMCAST_SNAPSHOT_HZ", "30", NULL, "snapshots per second, at most tick-hz"},
    {OPT_WORLD, "world", "WxH", "SWARMCAST_WORLD", "1600x900", NULL, "world size in units"},
    {OPT_WEB, "web-root", "DIR", "SWARMCAST_WEB_ROOT", NULL,
     "PREFIX/share/swarmcast/client-web\nbeside bin/swarmcast, else the source tree's",
     "directory of the web client"},
    {OPT_CLIENTS, "max-clients", "N", "SWARMCAST_MAX_CLIENTS", "512", NULL, "simultaneous viewers"},
    {OPT_MAX_AGENTS, "max-agents", "N", "SWARMCAST_MAX_AGENTS", NULL,
     "derived from the world's area and\nwhat this machine steps in half a tick; printed", "population limit"},
    {OPT_THREADS, "threads", "N", "SWARMCAST_THREADS", NULL, "the machine's cores", "threads that step the world"},
    {OPT_SET, "set", "NAME=VALUE", NULL, NULL, NULL, "set a simulation parameter (repeatable)"},
    {OPT_MODEL, "model", "NAME", NULL, NULL, NULL, "the same as --set model=NAME"},
    {OPT_METRICS_HZ, "metrics-hz", "N", "SWARMCAST_METRICS_HZ", "4", NULL, "metrics messages per second, 0 for none"},
    {OPT_RECORD, "record", "FILE", NULL, NULL, NULL, "log every applied command (JSON lines) for --replay"},
    {OPT_FINAL, "final", "FILE", NULL, NULL, NULL, "write the final state as JSON at shutdown (- : stdout)"},
    {OPT_RECORD_MAX, "record-max-bytes", "N", "SWARMCAST_RECORD_MAX_BYTES", "1073741824", NULL,
     "the command log stops at this size"},
    {OPT_METRICS_LISTEN, "metrics-listen", "A:P", "SWARMCAST_METRICS_LISTEN", NULL,
     "127.0.0.1:PORT+1000;\nany free port with --port 0",
     "/metrics and the detailed /healthz here, never on\nthe public port; off: nowhere"},

    SECTION("A shared world (see docs/DEPLOYING.md, \"Sharing a world with strangers\"):"),
    {OPT_TOKEN, "control-token", "T", "SWARMCAST_CONTROL_TOKEN", NULL, "none: all open",
     "operators present T after connecting (auth); others\nmay watch and steer their own target\n"
     "(make a strong one: openssl rand -base64 18; not r_…,\nwhich is a room's)"},
    {OPT_ORIGIN, "allow-origin", "LIST", "SWARMCAST_ALLOW_ORIGIN", NULL, "any",
     "comma-separated Origins that may open /ws"},
    {OPT_ALLOW_FRAME, "allow-frame", "LIST", "SWARMCAST_ALLOW_FRAME", NULL, "none",
     "comma-separated origins (https://host[:port]) whose\npages may show this one in an <iframe>"},
    {OPT_PUBLIC_URL, "public-url", "URL", "SWARMCAST_PUBLIC_URL", NULL, NULL,
     "the address people join at, for the presenter's QR\ncode, when it is not the page's own (behind a proxy)"},
    {OPT_PER_ADDRESS, "max-per-address", "N", "SWARMCAST_MAX_PER_ADDRESS", "256", NULL,
     "WebSocket sessions per remote address (a room\nbehind one NAT; at most --max-clients counts)"},
    {OPT_CONNECT_RATE, "connect-rate", "R", "SWARMCAST_CONNECT_RATE", "10", NULL,
     "new sessions per second per address, after a burst\nof --connect-burst; faster ones get HTTP 429"},
    {OPT_CONNECT_BURST, "connect-burst", "N", "SWARMCAST_CONNECT_BURST", "200", NULL,
     "the burst of new sessions per address before\n--connect-rate applies"},
    {OPT_TRUSTED_PROXY, "trusted-proxy", "LIST", "SWARMCAST_TRUSTED_PROXY", NULL, "none",
     "comma-separated CIDRs of reverse proxies whose\nX-Forwarded-For / Forwarded name the client"},
    {OPT_AUTH_FAILURES, "auth-failures", "N", "SWARMCAST_AUTH_FAILURES", "3", NULL,
     "wrong tokens per address before each further\nguess waits 1 s, doubling up to 30 s"},
    {OPT_RATE_SCALE, "rate-scale", "F", "SWARMCAST_RATE_SCALE", "1", NULL, "every client's command budget times F"},
    {OPT_IDLE, "idle-timeout", "S", "SWARMCAST_IDLE_TIMEOUT", "30", NULL,
     "close a client silent this long, pings included"},
    {OPT_STALL, "stall-timeout", "S", "SWARMCAST_STALL_TIMEOUT", "15", NULL,
     "close a client that does not read, or leaves a\nmessage half-sent, this long"},
    {OPT_STATE_FILE, "state-file", "PATH", "SWARMCAST_STATE_FILE", NULL, NULL,
     "keep the operator's set-up here: restored at start,\nwritten every --state-every s and at shutdown"},
    {OPT_STATE_EVERY, "state-every", "S", "SWARMCAST_STATE_EVERY", "10", NULL, "seconds between state-file writes"},
    {OPT_STATE_AGENTS, "state-agents", NULL, "SWARMCAST_STATE_AGENTS", NULL, "off; 1: on",
     "the state file keeps the agents too"},

    SECTION("Rooms (worlds people make from the page, joined at /r/CODE; protocol/PROTOCOL.md \"Rooms\"):"),
    {OPT_ROOMS, "rooms", "WHO", "SWARMCAST_ROOMS", "open", NULL,
     "who may make a room: open (anyone), operators (the\ncontrol token), off"},
    {OPT_MAX_ROOMS, "max-rooms", "N", "SWARMCAST_MAX_ROOMS", "100", NULL, "rooms besides the default one"},
    {OPT_ROOM_AGENTS, "room-agents", "N", "SWARMCAST_ROOM_AGENTS", "300", NULL,
     "agents of a room made from the defaults: every\nroom takes its agents from the one --max-agents"},
    {OPT_ROOM_IDLE_STOP, "room-idle-stop", "S", "SWARMCAST_ROOM_IDLE_STOP", "60", NULL,
     "a room nobody watches stops stepping after S"},
    {OPT_ROOM_IDLE_CLOSE, "room-idle-close", "S", "SWARMCAST_ROOM_IDLE_CLOSE", "3600", NULL, "… and closes after S"},
    {OPT_EXPERIMENTS, "experiments", "DIR", "SWARMCAST_EXPERIMENTS", NULL, "none",
     "experiments' output folders (DIR/NAME) whose runs the\nexperiment page may open in a new room"},
    {OPT_STATE_DIR, "state-dir", "DIR", "SWARMCAST_STATE_DIR", NULL, NULL,
     "keep every room here: a closed room reopens by its\ncode, a restart keeps them all; the default room's\n"
     "set-up too, unless --state-file says where"},

    SECTION("The timeline (each room's past; protocol/PROTOCOL.md \"Timeline\"):"),
    {OPT_HISTORY_MINUTES, "history-minutes", "M", "SWARMCAST_HISTORY_MINUTES", "10", NULL,
     "the past each room keeps for the timeline (0: none)"},
    {OPT_HISTORY_MB, "history-mb", "N", "SWARMCAST_HISTORY_MB", "256", NULL,
     "… within N MiB per room: past it the oldest goes"},
    {OPT_HISTORY_TOTAL_MB, "history-total-mb", "N", "SWARMCAST_HISTORY_TOTAL_MB", "1024", NULL,
     "… and N MiB over all rooms"},
    {OPT_KEYFRAME_SECONDS, "keyframe-seconds", "S", "SWARMCAST_KEYFRAME_SECONDS", "0.5", NULL,
     "a keyframe of the past every S: a seek re-steps at\nmost that much"},
    {OPT_TIMELINE_SEATS, "timeline-seats", "N", "SWARMCAST_TIMELINE_SEATS", "4", NULL,
     "viewers looking at the past at once, all rooms"},

    SECTION("Streaming (protocol v2, see protocol/PROTOCOL.md):"),
    {OPT_DEFLATE, "deflate", NULL, "SWARMCAST_DEFLATE", NULL, "off; 1: on",
     "permessage-deflate for clients that offer it"},
    {OPT_DETAIL_BUDGET, "detail-budget", "N", "SWARMCAST_DETAIL_BUDGET", "200000", NULL,
     "most agents a client may ask to see one by one"},
    {OPT_MAX_VIEWS, "max-views", "N", "SWARMCAST_MAX_VIEWS", "256", NULL,
     "distinct views encoded at once; past it viewers share"},

    SECTION("The scaled set-up: NATS and relays (see docs/DEPLOYING.md, protocol/PROTOCOL.md \"NATS subjects\"):"),
    {OPT_NATS, "nats", "URL[,URL]", "SWARMCAST_NATS", NULL, "none: one process only",
     "publish the stream to these NATS servers and take the\nrelays' viewers' commands"},
    {OPT_NATS_PREFIX, "nats-prefix", "P", "SWARMCAST_NATS_PREFIX", SUBJECT_DEFAULT_PREFIX, NULL, "subject prefix"},
    {OPT_NATS_USER, "nats-user", "U", "SWARMCAST_NATS_USER", NULL, NULL, "NATS user name (with --nats-password)"},
    {OPT_NATS_PASSWORD, "nats-password", "W", "SWARMCAST_NATS_PASSWORD", NULL, NULL, "NATS password"},
    {OPT_NATS_CREDS, "nats-creds", "FILE", "SWARMCAST_NATS_CREDS", NULL, NULL,
     "NATS credentials file (user JWT and seed)"},
    {OPT_NATS_NKEY_SEED, "nats-nkey-seed", "FILE", "SWARMCAST_NATS_NKEY_SEED", NULL, NULL,
     "NATS nkey: a file with the user's seed (SU...) and\npublic key (U...), as `nk -gen user -pubout` prints"},
    {OPT_MAX_REMOTE, "max-remote-clients", "N", "SWARMCAST_MAX_REMOTE_CLIENTS", "16384", NULL,
     "relays' viewers the simulation serves"},

    SECTION("A relay (docs/DEPLOYING.md, \"Scaled set-up: NATS and relays\"): `swarmcast relay --nats URL` serves\n"
            "swarmcast.v2 viewers from a simulation's NATS subjects; no simulation of its own:"),
    {OPT_RELAY, "relay", NULL, NULL, NULL, NULL, "the same as the first argument `relay`"},
    {OPT_RELAY_TAG, "relay-tag", "N", "SWARMCAST_RELAY_TAG", NULL, "random", "1..1023, the top bits of its viewers' ids"},
    {OPT_RELAY_NAME, "relay-name", "NAME", "SWARMCAST_RELAY_NAME", NULL, "relay-TAG",
     "how it names itself to the simulation"},

    SECTION("Headless runs (no network; the same seed and inputs give byte-identical files):"),
    {OPT_HEADLESS, "headless", NULL, NULL, NULL, NULL, "step the world without serving it, then exit"},
    {OPT_STEPS, "steps", "N", NULL, NULL, NULL, "number of steps (a scenario's steps otherwise)"},
    {OPT_SCENARIO, "scenario", "FILE", "SWARMCAST_SCENARIO", NULL, NULL,
     "JSON set-up: seed, agents, world, model, params,\nobstacles, targets, agent_list, steps; live too: the\n"
     "server starts with that world (it wins over a saved\n--state-file; --agents/--seed/--world/--set win over it)"},
    {OPT_CSV, "csv", "FILE", NULL, NULL, NULL, "metrics per step as CSV (- : stdout)"},
    {OPT_METRICS_EVERY, "metrics-every", "K", NULL, "1", NULL, "a CSV row every K steps"},
    {OPT_REPLAY, "replay", "FILE", NULL, NULL, NULL,
     "re-run a --record log to its last tick\n(or to tick --steps); without --headless: serve it,\nits whole run on the timeline"},

    SECTION("This program's own texts:"),
    {OPT_HELP, "help", NULL, NULL, NULL, NULL, "this text and the parameter list"},
    {OPT_VERSION, "version", NULL, NULL, NULL, NULL, "the version"},
    {OPT_MAN, "man", NULL, NULL, NULL, NULL, "the manual page, swarmcast(1), as roff (man -l -)"},
    {OPT_BASH_COMPLETION, "bash-completion", NULL, NULL, NULL, NULL, "the bash completion script"},
    {OPT_ENV_FILE, "env-file", NULL, NULL, NULL, NULL,
     "a commented environment file of every SWARMCAST_*\nsetting (the package's /etc/swarmcast/swarmcast.env)"},
};

size_t config_options_count(void)
{
    return sizeof options / sizeof options[0];
}

const config_option_t *config_option(size_t i)
{
    return i < config_options_count() ? &options[i] : NULL;
}

const config_option_t *config_option_by_id(int id)
{
    for (size_t i = 0; i < config_options_count(); i++)
        if (options[i].id == id) return &options[i];
    return NULL;
}

#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <math.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge/subjects.h"
#include "net/http_headers.h"
#include "protocol/utf8.h"
#include "sim/params.h"

#ifndef SWARMCAST_DEFAULT_WEB_ROOT
#define SWARMCAST_DEFAULT_WEB_ROOT "client-web"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: swarmcast [options]\n"
            "       swarmcast --scenario FILE [options]   that world, live from tick 0 (one run of a sweep)\n"
            "       swarmcast --headless --steps N [options]\n"
            "       swarmcast --headless --replay FILE [--final FILE] [--csv FILE]\n"
            "       swarmcast relay --nats URL [options]\n"
            "       swarmcast experiment plan FILE   (docs/EXPERIMENTS.md; swarmcast experiment --help)\n"
            "       swarmcast worker --nats URL      (runs an experiment pool's runs; swarmcast worker --help)\n"
            "\n"
            "Steps a 2-D flock at a fixed rate and streams it to browsers over WebSocket.\n"
            "Every option can also be set by the environment variable shown.\n"
            "\n"
            "  --bind ADDR          SWARMCAST_BIND          address to listen on (127.0.0.1)\n"
            "  --port N             SWARMCAST_PORT          TCP port, 0 for any free one (8080)\n"
            "  --agents N           SWARMCAST_AGENTS        initial number of agents (1000)\n"
            "  --seed N             SWARMCAST_SEED          seed of the world (1)\n"
            "  --tick-hz N          SWARMCAST_TICK_HZ       simulation steps per second (60)\n"
            "  --snapshot-hz N      SWARMCAST_SNAPSHOT_HZ   snapshots per second, at most tick-hz (30)\n"
            "  --world WxH          SWARMCAST_WORLD         world size in units (1600x900)\n"
            "  --web-root DIR       SWARMCAST_WEB_ROOT      directory of the web client\n"
            "  --max-clients N      SWARMCAST_MAX_CLIENTS   simultaneous viewers (512)\n"
            "  --max-agents N       SWARMCAST_MAX_AGENTS    population limit (derived from the world's area and\n"
            "                                               what this machine steps in half a tick; printed)\n"
            "  --threads N          SWARMCAST_THREADS       threads that step the world (the machine's cores)\n"
            "  --set NAME=VALUE                             set a simulation parameter (repeatable)\n"
            "  --model NAME                                 the same as --set model=NAME\n"
            "  --metrics-hz N       SWARMCAST_METRICS_HZ    metrics messages per second, 0 for none (4)\n"
            "  --record FILE                                log every applied command (JSON lines) for --replay\n"
            "  --final FILE                                 write the final state as JSON at shutdown (- : stdout)\n"
            "  --record-max-bytes N SWARMCAST_RECORD_MAX_BYTES the command log stops at this size (1073741824)\n"
            "  --metrics-listen A:P SWARMCAST_METRICS_LISTEN /metrics and the detailed /healthz here, never on\n"
            "                                               the public port; off: nowhere (127.0.0.1:PORT+1000;\n"
            "                                               any free port with --port 0)\n"
            "\n"
            "A shared world (see README, \"Sharing a world with strangers\"):\n"
            "  --control-token T    SWARMCAST_CONTROL_TOKEN  operators present T after connecting (auth); others\n"
            "                                               may watch and steer their own target (none: all open)\n"
            "                                               (make a strong one: openssl rand -base64 18; not r_…,\n"
            "                                               which is a room's)\n"
            "  --allow-origin LIST  SWARMCAST_ALLOW_ORIGIN  comma-separated Origins that may open /ws (any)\n"
            "  --allow-frame LIST   SWARMCAST_ALLOW_FRAME   comma-separated origins (https://host[:port]) whose\n"
            "                                               pages may show this one in an <iframe> (none)\n"
            "  --public-url URL     SWARMCAST_PUBLIC_URL    the address people join at, for the presenter's QR\n"
            "                                               code, when it is not the page's own (behind a proxy)\n"
            "  --max-per-address N  SWARMCAST_MAX_PER_ADDRESS WebSocket sessions per remote address (256: a\n"
            "                                               room behind one NAT; at most --max-clients counts)\n"
            "  --connect-rate R     SWARMCAST_CONNECT_RATE  new sessions per second per address, after a\n"
            "  --connect-burst N    SWARMCAST_CONNECT_BURST burst of N; faster ones get HTTP 429 (10, 200)\n"
            "  --trusted-proxy LIST SWARMCAST_TRUSTED_PROXY comma-separated CIDRs of reverse proxies whose\n"
            "                                               X-Forwarded-For / Forwarded name the client (none)\n"
            "  --auth-failures N    SWARMCAST_AUTH_FAILURES wrong tokens per address before each further\n"
            "                                               guess waits 1 s, doubling up to 30 s (3)\n"
            "  --rate-scale F       SWARMCAST_RATE_SCALE    every client's command budget times F (1)\n"
            "  --idle-timeout S     SWARMCAST_IDLE_TIMEOUT  close a client silent this long, pings included (30)\n"
            "  --stall-timeout S    SWARMCAST_STALL_TIMEOUT close a client that does not read, or leaves a\n"
            "                                               message half-sent, this long (15)\n"
            "  --state-file PATH    SWARMCAST_STATE_FILE    keep the operator's set-up here: restored at start,\n"
            "                                               written every --state-every s and at shutdown\n"
            "  --state-every S      SWARMCAST_STATE_EVERY   seconds between state-file writes (10)\n"
            "  --state-agents       SWARMCAST_STATE_AGENTS  the state file keeps the agents too (1: on)\n"
            "\n"
            "Rooms (worlds people make from the page, joined at /r/CODE; protocol/PROTOCOL.md \"Rooms\"):\n"
            "  --rooms WHO          SWARMCAST_ROOMS         who may make a room: open (anyone), operators (the\n"
            "                                               control token), off (open)\n"
            "  --max-rooms N        SWARMCAST_MAX_ROOMS     rooms besides the default one (100)\n"
            "  --room-agents N      SWARMCAST_ROOM_AGENTS   agents of a room made from the defaults (300): every\n"
            "                                               room takes its agents from the one --max-agents\n"
            "  --room-idle-stop S   SWARMCAST_ROOM_IDLE_STOP a room nobody watches stops stepping after S (60)\n"
            "  --room-idle-close S  SWARMCAST_ROOM_IDLE_CLOSE … and closes after S (3600)\n"
            "  --history-minutes M  SWARMCAST_HISTORY_MINUTES the past each room keeps for the timeline (10; 0:\n"
            "                                               none)\n"
            "  --history-mb N       SWARMCAST_HISTORY_MB    … within N MiB per room (256): past it the oldest goes\n"
            "  --history-total-mb N SWARMCAST_HISTORY_TOTAL_MB … and N MiB over all rooms (1024)\n"
            "  --keyframe-seconds S SWARMCAST_KEYFRAME_SECONDS a keyframe of the past every S (0.5): a seek re-steps\n"
            "                                               at most that much\n"
            "  --timeline-seats N   SWARMCAST_TIMELINE_SEATS viewers looking at the past at once, all rooms (4)\n"
            "  --experiments DIR    SWARMCAST_EXPERIMENTS   experiments' output folders (DIR/NAME) whose runs the\n"
            "                                               experiment page may open in a new room (none)\n"
            "  --state-dir DIR      SWARMCAST_STATE_DIR     keep every room here: a closed room reopens by its\n"
            "                                               code, a restart keeps them all; the default room's\n"
            "                                               set-up too, unless --state-file says where\n"
            "\n"
            "Streaming (protocol v2, see protocol/PROTOCOL.md):\n"
            "  --deflate            SWARMCAST_DEFLATE       permessage-deflate for clients that offer it (1: on; off)\n"
            "  --detail-budget N    SWARMCAST_DETAIL_BUDGET most agents a client may ask to see one by one (200000)\n"
            "  --max-views N        SWARMCAST_MAX_VIEWS     distinct views encoded at once; past it viewers share (256)\n"
            "\n"
            "The scaled set-up: NATS and relays (see README, protocol/PROTOCOL.md \"NATS subjects\"):\n"
            "  --nats URL[,URL]     SWARMCAST_NATS          publish the stream to these NATS servers and take the\n"
            "                                               relays' viewers' commands (none: one process only)\n"
            "  --nats-prefix P      SWARMCAST_NATS_PREFIX   subject prefix (swarmcast)\n"
            "  --nats-user U        SWARMCAST_NATS_USER     NATS user name (with --nats-password)\n"
            "  --nats-password W    SWARMCAST_NATS_PASSWORD NATS password\n"
            "  --nats-creds FILE    SWARMCAST_NATS_CREDS    NATS credentials file (user JWT and seed)\n"
            "  --nats-nkey-seed FILE SWARMCAST_NATS_NKEY_SEED NATS nkey: a file with the user's seed (SU...) and\n"
            "                                               public key (U...), as `nk -gen user -pubout` prints\n"
            "  --max-remote-clients N SWARMCAST_MAX_REMOTE_CLIENTS relays' viewers the simulation serves (16384)\n"
            "\n"
            "A relay (README, \"Scaled set-up: NATS and relays\"): `swarmcast relay --nats URL` serves\n"
            "swarmcast.v2 viewers from a simulation's NATS subjects; no simulation of its own:\n"
            "  --relay                                      the same as the first argument `relay`\n"
            "  --relay-tag N        SWARMCAST_RELAY_TAG     1..1023, the top bits of its viewers' ids (random)\n"
            "  --relay-name NAME    SWARMCAST_RELAY_NAME    how it names itself to the simulation (relay-TAG)\n"
            "\n"
            "Headless runs (no network; the same seed and inputs give byte-identical files):\n"
            "  --headless                                   step the world without serving it, then exit\n"
            "  --steps N                                    number of steps (a scenario's steps otherwise)\n"
            "  --scenario FILE      SWARMCAST_SCENARIO      JSON set-up: seed, agents, world, model, params,\n"
            "                                               obstacles, targets, agent_list, steps; live too: the\n"
            "                                               server starts with that world (it wins over a saved\n"
            "                                               --state-file; --agents/--seed/--world/--set win over it)\n"
            "  --csv FILE                                   metrics per step as CSV (- : stdout)\n"
            "  --metrics-every K                            a CSV row every K steps (1)\n"
            "  --replay FILE                                re-run a --record log to its last tick (or to tick\n"
            "                                               --steps); without --headless: serve it, its whole\n"
            "                                               run on the timeline\n"
            "  --help                                       this text and the parameter list\n"
            "  --version                                    the version\n"
            "\n"
            "Parameters (--set, and set_param over the protocol):\n");
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        if (d->type == PARAM_ENUM) {
            char values[128] = "";
            for (int k = 0; k <= (int)d->max; k++) {
                strncat(values, k ? "|" : "", sizeof values - strlen(values) - 1);
                strncat(values, d->enum_names[k], sizeof values - strlen(values) - 1);
            }
            fprintf(f, "  %-16s %-22s default %-8s %s\n", d->name, values, d->enum_names[(int)d->def], d->help);
        } else {
            char range[48];
            snprintf(range, sizeof range, "%g..%g %s", d->min, d->max, d->unit);
            fprintf(f, "  %-16s %-22s default %-8g %s\n", d->name, range, d->def, d->help);
        }
    }
}

static int parse_number(const char *s, double lo, double hi, bool whole, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi || (whole && v != floor(v))) return -1;
    *out = v;
    return 0;
}

static int parse_world(const char *s, float *w, float *h)
{
    char *end;
    double a = strtod(s, &end);
    if (end == s || (*end != 'x' && *end != 'X')) return -1;
    const char *rest = end + 1;
    double b = strtod(rest, &end);
    if (end == rest || *end || !(a >= 10 && a <= 1e6) || !(b >= 10 && b <= 1e6)) return -1;
    *w = (float)a;
    *h = (float)b;
    return 0;
}

static int parse_set(config_t *c, const char *arg, FILE *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq) {
        fprintf(err, "swarmcast: --set wants NAME=VALUE, got '%s'\n", arg);
        return -1;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    int index = params_find(name);
    if (index < 0) {
        fprintf(err, "swarmcast: no parameter named '%s' (see --help)\n", name);
        return -1;
    }
    const param_desc_t *d = params_desc((size_t)index);
    const char *text = eq + 1;
    double v = NAN; /* stays NAN when the text is not a value of this type */
    if (d->type == PARAM_ENUM) {
        int k = params_enum_index(d, text);
        if (k >= 0) v = k;
    } else if (d->type == PARAM_BOOL) {
        if (strcmp(text, "true") == 0) v = 1;
        if (strcmp(text, "false") == 0) v = 0;
    } else {
        parse_number(text, -INFINITY, INFINITY, false, &v);
    }
    sim_params_t scratch;
    params_defaults(&scratch);
    char msg[160];
    if (params_set(&scratch, (size_t)index, v, msg, sizeof msg) != SIM_OK) {
        if (isnan(v) && d->type == PARAM_ENUM) {
            fprintf(err, "swarmcast: bad value '%s' for %s: must be one of", text, d->name);
            for (int k = 0; k <= (int)d->max; k++) fprintf(err, "%s %s", k ? "," : "", d->enum_names[k]);
            fputc('\n', err);
        } else {
            fprintf(err, "swarmcast: bad value '%s' for %s: %s\n", text, d->name,
                    isnan(v) ? (d->type == PARAM_BOOL ? "must be true or false" : "not a number") : msg);
        }
        return -1;
    }
    if (c->n_sets == CONFIG_MAX_SETS) {
        fprintf(err, "swarmcast: too many --set options\n");
        return -1;
    }
    c->sets[c->n_sets].param = index;
    c->sets[c->n_sets].value = v;
    c->n_sets++;
    return 0;
}

/* --metrics-listen: "off", or a numeric address and a port ("[v6]:port"). */
static int parse_listen(const char *s, config_t *c)
{
    if (strcmp(s, "off") == 0) {
        c->metrics_port = -1;
        return 0;
    }
    const char *colon = strrchr(s, ':');
    if (!colon) return -1;
    const char *addr = s;
    size_t len = (size_t)(colon - s);
    if (len >= 2 && s[0] == '[' && colon[-1] == ']') addr++, len -= 2;
    char buf[sizeof c->metrics_bind];
    unsigned char raw[16];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, addr, len);
    buf[len] = '\0';
    if (inet_pton(AF_INET, buf, raw) != 1 && inet_pton(AF_INET6, buf, raw) != 1) return -1;
    double port;
    if (parse_number(colon + 1, 0, 65535, true, &port)) return -1;
    memcpy(c->metrics_bind, buf, len + 1);
    c->metrics_port = (int)port;
    return 0;
}

/* The NATS options: credentials only with a server, one way of giving them. */
static int check_nats(const config_t *c, FILE *err)
{
    bool any_credential = c->nats_user || c->nats_password || c->nats_creds || c->nats_nkey_seed;
    if (!c->nats_url) {
        if (any_credential) {
            fprintf(err, "swarmcast: NATS credentials need --nats URL\n");
            return -1;
        }
        return 0;
    }
    if ((c->nats_user != NULL) != (c->nats_password != NULL)) {
        fprintf(err, "swarmcast: --nats-user and --nats-password go together\n");
        return -1;
    }
    if ((c->nats_user != NULL) + (c->nats_creds != NULL) + (c->nats_nkey_seed != NULL) > 1) {
        fprintf(err, "swarmcast: give one of --nats-user/--nats-password, --nats-creds, --nats-nkey-seed\n");
        return -1;
    }
    return 0;
}

/* Flags that only make sense in one mode. */
static int check_modes(const config_t *c, size_t n_set_flags, FILE *err)
{
    if (c->relay && c->headless) {
        fprintf(err, "swarmcast: a relay serves viewers; it cannot run --headless\n");
        return -1;
    }
    if (!c->relay && (c->relay_tag || c->relay_name)) {
        fprintf(err, "swarmcast: %s is for `swarmcast relay`\n", c->relay_tag ? "--relay-tag" : "--relay-name");
        return -1;
    }
    if (c->relay && !c->nats_url) {
        fprintf(err, "swarmcast: a relay needs --nats URL (the NATS servers the simulation publishes to)\n");
        return -1;
    }
    if (c->relay && (c->record || c->final_path || c->state_file || c->state_dir || c->scenario)) {
        fprintf(err, "swarmcast: %s is the simulation's: a relay has no world of its own\n",
                c->record ? "--record" : c->final_path ? "--final" : c->state_file ? "--state-file"
                : c->state_dir ? "--state-dir" : "--scenario");
        return -1;
    }
    if (!c->headless) {
        /* A live server runs a --scenario's world until stopped (its "steps" unused). */
        const char *only_headless = c->steps_given ? "--steps" : c->csv ? "--csv" : NULL;
        if (only_headless) {
            fprintf(err, "swarmcast: %s needs --headless\n", only_headless);
            return -1;
        }
        /* A served --replay: the log's header sets up the world, which
         * nothing may change. */
        const char *served_clash = !c->replay ? NULL : c->scenario ? "--scenario" : c->seed_given ? "--seed"
                                   : c->agents_given ? "--agents" : c->world_given ? "--world"
                                   : n_set_flags ? "--set/--model" : c->record ? "--record"
                                   : c->state_file ? "--state-file" : c->state_dir ? "--state-dir"
                                   : c->nats_url ? "--nats" : NULL;
        if (served_clash) {
            fprintf(err, "swarmcast: %s cannot be used with a served --replay (the log's header sets up the world)\n",
                     served_clash);
            return -1;
        }
        return check_nats(c, err);
    }
    if (c->nats_url) {
        fprintf(err, "swarmcast: --nats serves a live world; a --headless run has no viewers\n");
        return -1;
    }
    if (c->record) {
        fprintf(err, "swarmcast: --record logs a live server's commands; a --headless run has none\n");
        return -1;
    }
    if (c->replay) {
        const char *clash = c->scenario ? "--scenario" : c->seed_given ? "--seed" : c->agents_given ? "--agents"
                            : c->world_given                          ? "--world"
                            : n_set_flags                             ? "--set/--model"
                                                                      : NULL;
        if (clash) {
            fprintf(err, "swarmcast: %s cannot be used with --replay (the log's header sets up the world)\n", clash);
            return -1;
        }
        return 0;
    }
    if (!c->steps_given && !c->scenario) {
        fprintf(err, "swarmcast: --headless needs --steps N (or a --scenario with \"steps\", or --replay FILE)\n");
        return -1;
    }
    return 0;
}

const char *const config_rooms_names[3] = {"open", "operators", "off"};

enum { OPT_BIND = 1, OPT_PORT, OPT_AGENTS, OPT_SEED, OPT_TICK, OPT_SNAP, OPT_WORLD, OPT_WEB, OPT_CLIENTS,
       OPT_MAX_AGENTS, OPT_THREADS, OPT_SET, OPT_HELP, OPT_VERSION, OPT_MODEL, OPT_METRICS_HZ, OPT_RECORD,
       OPT_FINAL, OPT_HEADLESS, OPT_STEPS, OPT_SCENARIO, OPT_CSV, OPT_METRICS_EVERY, OPT_REPLAY,
       OPT_RECORD_MAX, OPT_TOKEN, OPT_ORIGIN, OPT_PER_ADDRESS, OPT_IDLE, OPT_STALL, OPT_STATE_FILE,
       OPT_STATE_EVERY, OPT_STATE_AGENTS, OPT_RATE_SCALE, OPT_DEFLATE, OPT_DETAIL_BUDGET, OPT_MAX_VIEWS,
       OPT_CONNECT_RATE, OPT_CONNECT_BURST, OPT_AUTH_FAILURES, OPT_ALLOW_FRAME, OPT_PUBLIC_URL,
       OPT_TRUSTED_PROXY, OPT_METRICS_LISTEN, OPT_ROOMS, OPT_MAX_ROOMS, OPT_ROOM_AGENTS, OPT_ROOM_IDLE_STOP, OPT_ROOM_IDLE_CLOSE, OPT_STATE_DIR, OPT_EXPERIMENTS,
       OPT_HISTORY_MINUTES, OPT_HISTORY_MB, OPT_HISTORY_TOTAL_MB, OPT_KEYFRAME_SECONDS, OPT_TIMELINE_SEATS,
       /* The scaled set-up. */
       OPT_NATS, OPT_NATS_PREFIX, OPT_NATS_USER, OPT_NATS_PASSWORD, OPT_NATS_CREDS, OPT_NATS_NKEY_SEED,
       OPT_MAX_REMOTE, OPT_RELAY, OPT_RELAY_TAG, OPT_RELAY_NAME };

/* One setting from either source; returns -1 with a message on bad values. */
static int apply(config_t *c, int opt, const char *value, const char *source, FILE *err)
{
    double v;
    int bad = 0;
    switch (opt) {
    case OPT_BIND: c->bind = value; break;
    case OPT_PORT: bad = parse_number(value, 0, 65535, true, &v); if (!bad) c->port = (int)v; break;
    case OPT_AGENTS: bad = parse_number(value, 0, 1e8, true, &v); if (!bad) c->agents = (size_t)v; break;
    case OPT_SEED: bad = parse_number(value, 0, UINT32_MAX, true, &v); if (!bad) c->seed = (uint32_t)v; break;
    case OPT_TICK: bad = parse_number(value, 1, 1000, false, &v); if (!bad) c->tick_hz = v; break;
    case OPT_SNAP: bad = parse_number(value, 0.1, 1000, false, &v); if (!bad) c->snapshot_hz = v; break;
    case OPT_WORLD: bad = parse_world(value, &c->world_width, &c->world_height); break;
    case OPT_WEB: c->web_root = value; break;
    case OPT_CLIENTS: bad = parse_number(value, 1, 4096, true, &v); if (!bad) c->max_clients = (size_t)v; break;
    case OPT_MAX_AGENTS:
        bad = parse_number(value, 1, 1e8, true, &v);
        if (!bad) c->max_agents = (size_t)v, c->max_agents_given = true;
        break;
    case OPT_THREADS: bad = parse_number(value, 1, 256, true, &v); if (!bad) c->threads = (int)v; break;
    case OPT_SET: return parse_set(c, value, err);
    case OPT_MODEL: {
        char set[128];
        if (snprintf(set, sizeof set, "model=%s", value) >= (int)sizeof set) {
            fprintf(err, "swarmcast: --model name too long\n");
            return -1;
        }
        return parse_set(c, set, err);
    }
    case OPT_METRICS_HZ: bad = parse_number(value, 0, 1000, false, &v); if (!bad) c->metrics_hz = v; break;
    case OPT_RECORD: c->record = value; break;
    case OPT_FINAL: c->final_path = value; break;
    case OPT_HEADLESS: c->headless = true; break;
    case OPT_STEPS: bad = parse_number(value, 0, 1e12, true, &v); if (!bad) c->steps = (uint64_t)v; break;
    case OPT_SCENARIO: c->scenario = value; break;
    case OPT_CSV: c->csv = value; break;
    case OPT_METRICS_EVERY: bad = parse_number(value, 1, 1e12, true, &v); if (!bad) c->metrics_every = (uint64_t)v; break;
    case OPT_REPLAY: c->replay = value; break;
    case OPT_RECORD_MAX: bad = parse_number(value, 4096, 1e15, true, &v); if (!bad) c->record_max_bytes = (uint64_t)v; break;
    case OPT_TOKEN:
        /* An empty token would let anyone in while looking protected; one
         * shaped like a room's token ("r_…") would never be compared. */
        bad = !*value || strlen(value) > CONFIG_MAX_TOKEN || !strncmp(value, "r_", 2);
        if (!bad) c->control_token = value;
        break;
    case OPT_ORIGIN: c->allow_origin = *value ? value : NULL; break;
    case OPT_ALLOW_FRAME: bad = !http_frame_origins_valid(value); if (!bad) c->allow_frame = value; break;
    case OPT_PUBLIC_URL: bad = !http_public_url_valid(value); if (!bad) c->public_url = value; break;
    case OPT_PER_ADDRESS: bad = parse_number(value, 1, 4096, true, &v); if (!bad) c->max_per_address = (size_t)v; break;
    case OPT_CONNECT_RATE: bad = parse_number(value, 0.01, 1e6, false, &v); if (!bad) c->connect_per_s = v; break;
    case OPT_CONNECT_BURST: bad = parse_number(value, 1, 1e6, true, &v); if (!bad) c->connect_burst = v; break;
    case OPT_AUTH_FAILURES: bad = parse_number(value, 1, 1e6, true, &v); if (!bad) c->auth_free_failures = (unsigned)v; break;
    case OPT_TRUSTED_PROXY: {
        char why[160];
        if (!trusted_proxies_parse(value, &c->trusted_proxies, why, sizeof why)) {
            fprintf(err, "swarmcast: bad value for %s: %s (want CIDR[,CIDR...], e.g. 10.0.0.0/8,::1)\n", source, why);
            return -1;
        }
        break;
    }
    case OPT_METRICS_LISTEN:
        if (parse_listen(value, c)) {
            fprintf(err, "swarmcast: bad value '%s' for %s: want ADDR:PORT (127.0.0.1:9080, [::1]:9080) or off\n",
                    value, source);
            return -1;
        }
        c->metrics_listen_given = true;
        break;
    case OPT_RATE_SCALE: bad = parse_number(value, 0.01, 1e6, false, &v); if (!bad) c->rate_scale = v; break;
    case OPT_IDLE: bad = parse_number(value, 1, 3600, false, &v); if (!bad) c->idle_timeout_s = v; break;
    case OPT_STALL: bad = parse_number(value, 1, 3600, false, &v); if (!bad) c->stall_timeout_s = v; break;
    case OPT_STATE_FILE: c->state_file = *value ? value : NULL; break;
    case OPT_STATE_EVERY: bad = parse_number(value, 0.1, 86400, false, &v); if (!bad) c->state_every_s = v; break;
    case OPT_STATE_AGENTS:
        bad = !(strcmp(value, "1") == 0 || strcmp(value, "0") == 0);
        if (!bad) c->state_agents = value[0] == '1';
        break;
    case OPT_DEFLATE:
        bad = !(strcmp(value, "1") == 0 || strcmp(value, "0") == 0);
        if (!bad) c->deflate = value[0] == '1';
        break;
    case OPT_DETAIL_BUDGET: bad = parse_number(value, 1, 1e8, true, &v); if (!bad) c->detail_budget = (size_t)v; break;
    case OPT_MAX_VIEWS: bad = parse_number(value, 1, 65536, true, &v); if (!bad) c->max_views = (size_t)v; break;
    case OPT_ROOMS:
        bad = 1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(value, config_rooms_names[k])) c->rooms = k, bad = 0;
        break;
    case OPT_MAX_ROOMS: bad = parse_number(value, 0, 4096, true, &v); if (!bad) c->max_rooms = (size_t)v; break;
    case OPT_ROOM_AGENTS: bad = parse_number(value, 0, 1e8, true, &v); if (!bad) c->room_agents = (size_t)v; break;
    case OPT_HISTORY_MINUTES: bad = parse_number(value, 0, 1440, false, &v); if (!bad) c->history_minutes = v; break;
    case OPT_HISTORY_MB: bad = parse_number(value, 1, 1048576, false, &v); if (!bad) c->history_mb = v; break;
    case OPT_HISTORY_TOTAL_MB: bad = parse_number(value, 1, 1048576, false, &v); if (!bad) c->history_total_mb = v; break;
    case OPT_KEYFRAME_SECONDS: bad = parse_number(value, 0.05, 60, false, &v); if (!bad) c->keyframe_seconds = v; break;
    case OPT_TIMELINE_SEATS: bad = parse_number(value, 0, 64, true, &v); if (!bad) c->timeline_seats = (size_t)v; break;
    case OPT_ROOM_IDLE_STOP: bad = parse_number(value, 0.1, 604800, false, &v); if (!bad) c->room_idle_stop_s = v; break;
    case OPT_ROOM_IDLE_CLOSE: bad = parse_number(value, 0.1, 31536000, false, &v); if (!bad) c->room_idle_close_s = v; break;
    case OPT_STATE_DIR: c->state_dir = *value ? value : NULL; break;
    case OPT_EXPERIMENTS: c->experiments = *value ? value : NULL; break;
    case OPT_RELAY: c->relay = true; break;
    case OPT_RELAY_TAG:
        bad = parse_number(value, 1, CONFIG_MAX_RELAY_TAG, true, &v);
        if (!bad) c->relay_tag = (unsigned)v;
        break;
    case OPT_RELAY_NAME:
        /* It goes into JSON (/healthz) as is: printable UTF-8, no quote or backslash. */
        bad = !*value || strlen(value) > CONFIG_MAX_RELAY_NAME || strpbrk(value, "\"\\") != NULL ||
              !utf8_valid(value, strlen(value));
        for (const char *ch = value; !bad && *ch; ch++) bad = (unsigned char)*ch < 0x20 || *ch == 0x7f;
        if (!bad) c->relay_name = value;
        break;
    /* The scaled set-up. */
    case OPT_NATS: c->nats_url = *value ? value : NULL; break;
    case OPT_NATS_PREFIX: bad = !subject_prefix_valid(value); if (!bad) c->nats_prefix = value; break;
    case OPT_NATS_USER: c->nats_user = *value ? value : NULL; break;
    case OPT_NATS_PASSWORD: c->nats_password = *value ? value : NULL; break;
    case OPT_NATS_CREDS: c->nats_creds = *value ? value : NULL; break;
    case OPT_NATS_NKEY_SEED: c->nats_nkey_seed = *value ? value : NULL; break;
    case OPT_MAX_REMOTE:
        bad = parse_number(value, 0, 1 << 20, true, &v);
        if (!bad) c->max_remote_clients = (size_t)v;
        break;
    default: return -1;
    }
    if (bad) fprintf(err, "swarmcast: bad value '%s' for %s (see --help)\n", value, source);
    return bad ? -1 : 0;
}

static const struct {
    int opt;
    const char *env;
} env_vars[] = {
    {OPT_BIND, "SWARMCAST_BIND"},       {OPT_PORT, "SWARMCAST_PORT"},
    {OPT_AGENTS, "SWARMCAST_AGENTS"},   {OPT_SEED, "SWARMCAST_SEED"},
    {OPT_TICK, "SWARMCAST_TICK_HZ"},    {OPT_SNAP, "SWARMCAST_SNAPSHOT_HZ"},
    {OPT_WORLD, "SWARMCAST_WORLD"},     {OPT_WEB, "SWARMCAST_WEB_ROOT"},
    {OPT_CLIENTS, "SWARMCAST_MAX_CLIENTS"}, {OPT_MAX_AGENTS, "SWARMCAST_MAX_AGENTS"},
    {OPT_THREADS, "SWARMCAST_THREADS"}, {OPT_METRICS_HZ, "SWARMCAST_METRICS_HZ"},
    {OPT_RECORD_MAX, "SWARMCAST_RECORD_MAX_BYTES"}, {OPT_TOKEN, "SWARMCAST_CONTROL_TOKEN"},
    {OPT_ORIGIN, "SWARMCAST_ALLOW_ORIGIN"}, {OPT_PER_ADDRESS, "SWARMCAST_MAX_PER_ADDRESS"},
    {OPT_IDLE, "SWARMCAST_IDLE_TIMEOUT"}, {OPT_STALL, "SWARMCAST_STALL_TIMEOUT"},
    {OPT_STATE_FILE, "SWARMCAST_STATE_FILE"}, {OPT_STATE_EVERY, "SWARMCAST_STATE_EVERY"},
    {OPT_STATE_AGENTS, "SWARMCAST_STATE_AGENTS"}, {OPT_RATE_SCALE, "SWARMCAST_RATE_SCALE"},
    {OPT_DEFLATE, "SWARMCAST_DEFLATE"}, {OPT_DETAIL_BUDGET, "SWARMCAST_DETAIL_BUDGET"},
    {OPT_MAX_VIEWS, "SWARMCAST_MAX_VIEWS"},
    {OPT_ROOMS, "SWARMCAST_ROOMS"}, {OPT_MAX_ROOMS, "SWARMCAST_MAX_ROOMS"}, {OPT_ROOM_AGENTS, "SWARMCAST_ROOM_AGENTS"},
    {OPT_ROOM_IDLE_STOP, "SWARMCAST_ROOM_IDLE_STOP"}, {OPT_ROOM_IDLE_CLOSE, "SWARMCAST_ROOM_IDLE_CLOSE"},
    {OPT_STATE_DIR, "SWARMCAST_STATE_DIR"}, {OPT_EXPERIMENTS, "SWARMCAST_EXPERIMENTS"},
    {OPT_HISTORY_MINUTES, "SWARMCAST_HISTORY_MINUTES"}, {OPT_HISTORY_MB, "SWARMCAST_HISTORY_MB"},
    {OPT_HISTORY_TOTAL_MB, "SWARMCAST_HISTORY_TOTAL_MB"}, {OPT_KEYFRAME_SECONDS, "SWARMCAST_KEYFRAME_SECONDS"}, {OPT_TIMELINE_SEATS, "SWARMCAST_TIMELINE_SEATS"},
    {OPT_CONNECT_RATE, "SWARMCAST_CONNECT_RATE"}, {OPT_CONNECT_BURST, "SWARMCAST_CONNECT_BURST"},
    {OPT_AUTH_FAILURES, "SWARMCAST_AUTH_FAILURES"},
    {OPT_ALLOW_FRAME, "SWARMCAST_ALLOW_FRAME"}, {OPT_PUBLIC_URL, "SWARMCAST_PUBLIC_URL"},
    {OPT_TRUSTED_PROXY, "SWARMCAST_TRUSTED_PROXY"},
    {OPT_METRICS_LISTEN, "SWARMCAST_METRICS_LISTEN"},
    {OPT_SCENARIO, "SWARMCAST_SCENARIO"},
    {OPT_RELAY_TAG, "SWARMCAST_RELAY_TAG"}, {OPT_RELAY_NAME, "SWARMCAST_RELAY_NAME"},
    /* The scaled set-up. */
    {OPT_NATS, "SWARMCAST_NATS"}, {OPT_NATS_PREFIX, "SWARMCAST_NATS_PREFIX"},
    {OPT_NATS_USER, "SWARMCAST_NATS_USER"}, {OPT_NATS_PASSWORD, "SWARMCAST_NATS_PASSWORD"},
    {OPT_NATS_CREDS, "SWARMCAST_NATS_CREDS"}, {OPT_NATS_NKEY_SEED, "SWARMCAST_NATS_NKEY_SEED"},
    {OPT_MAX_REMOTE, "SWARMCAST_MAX_REMOTE_CLIENTS"},
};

static int load(config_t *c, int argc, char **argv, FILE *out, FILE *err, bool from_environment);

int config_load(config_t *c, int argc, char **argv, FILE *out, FILE *err)
{
    return load(c, argc, argv, out, err, true);
}

int config_load_args(config_t *c, int argc, char **argv, FILE *out, FILE *err)
{
    return load(c, argc, argv, out, err, false);
}

static int load(config_t *c, int argc, char **argv, FILE *out, FILE *err, bool from_environment)
{
    *c = (config_t){
        .bind = "127.0.0.1",
        .port = 8080,
        .agents = 1000,
        .seed = 1,
        .tick_hz = 60,
        .snapshot_hz = 30,
        .world_width = 1600,
        .world_height = 900,
        .web_root = SWARMCAST_DEFAULT_WEB_ROOT,
        .max_clients = 512,
        .max_agents = 1000000,
        .threads = (int)sysconf(_SC_NPROCESSORS_ONLN),
        .metrics_hz = 4,
        .metrics_every = 1,
        .record_max_bytes = 1ull << 30,
        .max_per_address = 256,
        .connect_per_s = 10,
        .connect_burst = 200,
        .metrics_bind = "127.0.0.1",
        .auth_free_failures = 3,
        .rate_scale = 1,
        .idle_timeout_s = 30,
        .stall_timeout_s = 15,
        .state_every_s = 10,
        .detail_budget = 200000,
        .max_views = 256,
        .rooms = CONFIG_ROOMS_OPEN,
        .max_rooms = 100,
        .room_agents = 300,
        .room_idle_stop_s = 60,
        .history_minutes = 10,
        .history_mb = 256,
        .history_total_mb = 1024,
        .keyframe_seconds = 0.5,
        .timeline_seats = 4,
        .room_idle_close_s = 3600,
        .nats_prefix = SUBJECT_DEFAULT_PREFIX,
        .max_remote_clients = 16384,
    };
    if (c->threads < 1) c->threads = 1;
    for (size_t i = 0; from_environment && i < sizeof env_vars / sizeof env_vars[0]; i++) {
        const char *v = getenv(env_vars[i].env);
        if (v && *v && apply(c, env_vars[i].opt, v, env_vars[i].env, err)) return CONFIG_EXIT_USAGE;
    }

    static const struct option options[] = {
        {"bind", required_argument, NULL, OPT_BIND},
        {"port", required_argument, NULL, OPT_PORT},
        {"agents", required_argument, NULL, OPT_AGENTS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"tick-hz", required_argument, NULL, OPT_TICK},
        {"snapshot-hz", required_argument, NULL, OPT_SNAP},
        {"world", required_argument, NULL, OPT_WORLD},
        {"web-root", required_argument, NULL, OPT_WEB},
        {"max-clients", required_argument, NULL, OPT_CLIENTS},
        {"max-agents", required_argument, NULL, OPT_MAX_AGENTS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"set", required_argument, NULL, OPT_SET},
        {"help", no_argument, NULL, OPT_HELP},
        {"version", no_argument, NULL, OPT_VERSION},
        {"model", required_argument, NULL, OPT_MODEL},
        {"metrics-hz", required_argument, NULL, OPT_METRICS_HZ},
        {"record", required_argument, NULL, OPT_RECORD},
        {"final", required_argument, NULL, OPT_FINAL},
        {"headless", no_argument, NULL, OPT_HEADLESS},
        {"steps", required_argument, NULL, OPT_STEPS},
        {"scenario", required_argument, NULL, OPT_SCENARIO},
        {"csv", required_argument, NULL, OPT_CSV},
        {"metrics-every", required_argument, NULL, OPT_METRICS_EVERY},
        {"replay", required_argument, NULL, OPT_REPLAY},
        {"record-max-bytes", required_argument, NULL, OPT_RECORD_MAX},
        {"control-token", required_argument, NULL, OPT_TOKEN},
        {"allow-origin", required_argument, NULL, OPT_ORIGIN},
        {"max-per-address", required_argument, NULL, OPT_PER_ADDRESS},
        {"idle-timeout", required_argument, NULL, OPT_IDLE},
        {"stall-timeout", required_argument, NULL, OPT_STALL},
        {"state-file", required_argument, NULL, OPT_STATE_FILE},
        {"state-every", required_argument, NULL, OPT_STATE_EVERY},
        {"state-agents", no_argument, NULL, OPT_STATE_AGENTS},
        {"rate-scale", required_argument, NULL, OPT_RATE_SCALE},
        {"deflate", no_argument, NULL, OPT_DEFLATE},
        {"detail-budget", required_argument, NULL, OPT_DETAIL_BUDGET},
        {"max-views", required_argument, NULL, OPT_MAX_VIEWS},
        {"rooms", required_argument, NULL, OPT_ROOMS},
        {"max-rooms", required_argument, NULL, OPT_MAX_ROOMS},
        {"room-agents", required_argument, NULL, OPT_ROOM_AGENTS},
        {"room-idle-stop", required_argument, NULL, OPT_ROOM_IDLE_STOP},
        {"room-idle-close", required_argument, NULL, OPT_ROOM_IDLE_CLOSE},
        {"state-dir", required_argument, NULL, OPT_STATE_DIR},
        {"experiments", required_argument, NULL, OPT_EXPERIMENTS},
        {"history-minutes", required_argument, NULL, OPT_HISTORY_MINUTES},
        {"history-mb", required_argument, NULL, OPT_HISTORY_MB},
        {"history-total-mb", required_argument, NULL, OPT_HISTORY_TOTAL_MB},
        {"keyframe-seconds", required_argument, NULL, OPT_KEYFRAME_SECONDS},
        {"timeline-seats", required_argument, NULL, OPT_TIMELINE_SEATS},
        {"connect-rate", required_argument, NULL, OPT_CONNECT_RATE},
        {"connect-burst", required_argument, NULL, OPT_CONNECT_BURST},
        {"auth-failures", required_argument, NULL, OPT_AUTH_FAILURES},
        {"allow-frame", required_argument, NULL, OPT_ALLOW_FRAME},
        {"public-url", required_argument, NULL, OPT_PUBLIC_URL},
        {"trusted-proxy", required_argument, NULL, OPT_TRUSTED_PROXY},
        {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
        {"relay", no_argument, NULL, OPT_RELAY},
        {"relay-tag", required_argument, NULL, OPT_RELAY_TAG},
        {"relay-name", required_argument, NULL, OPT_RELAY_NAME},
        /* The scaled set-up. */
        {"nats", required_argument, NULL, OPT_NATS},
        {"nats-prefix", required_argument, NULL, OPT_NATS_PREFIX},
        {"nats-user", required_argument, NULL, OPT_NATS_USER},
        {"nats-password", required_argument, NULL, OPT_NATS_PASSWORD},
        {"nats-creds", required_argument, NULL, OPT_NATS_CREDS},
        {"nats-nkey-seed", required_argument, NULL, OPT_NATS_NKEY_SEED},
        {"max-remote-clients", required_argument, NULL, OPT_MAX_REMOTE},
        {NULL, 0, NULL, 0},
    };
    /* `swarmcast relay …`: the same flags after the mode word. */
    if (argc > 1 && strcmp(argv[1], "relay") == 0) {
        c->relay = true;
        argc--;
        argv++;
    }
    optind = 1;
    int opt;
    size_t n_set_flags = 0;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == OPT_HELP) {
            usage(out);
            return CONFIG_EXIT_OK;
        }
        if (opt == OPT_VERSION) {
            fprintf(out, "swarmcast %s (commit %s)\n", SWARMCAST_VERSION, SWARMCAST_COMMIT);
            return CONFIG_EXIT_OK;
        }
        if (opt == '?') {
            fprintf(err, "swarmcast: see --help\n");
            return CONFIG_EXIT_USAGE;
        }
        char source[32];
        const char *name = "?";
        for (size_t k = 0; options[k].name; k++)
            if (options[k].val == opt) name = options[k].name;
        snprintf(source, sizeof source, "--%s", name);
        if (apply(c, opt, opt == OPT_STATE_AGENTS || opt == OPT_DEFLATE || opt == OPT_RELAY ? "1" : optarg, source, err))
            return CONFIG_EXIT_USAGE;
        if (opt == OPT_SEED) c->seed_given = true;
        if (opt == OPT_AGENTS) c->agents_given = true;
        if (opt == OPT_WORLD) c->world_given = true;
        if (opt == OPT_STEPS) c->steps_given = true;
        if (opt == OPT_SET || opt == OPT_MODEL) n_set_flags++;
    }
    if (optind < argc) {
        fprintf(err, "swarmcast: unexpected argument '%s' (see --help)\n", argv[optind]);
        return CONFIG_EXIT_USAGE;
    }
    if (c->snapshot_hz > c->tick_hz) c->snapshot_hz = c->tick_hz;
    if (c->metrics_hz > c->tick_hz) c->metrics_hz = c->tick_hz;
    if (check_modes(c, n_set_flags, err)) return CONFIG_EXIT_USAGE;
    if (c->headless) {
        c->metrics_port = -1; /* no network at all */
    } else if (!c->metrics_listen_given) {
        /* Beside the public port (any free one when that is any free one). */
        c->metrics_port = c->port == 0 ? 0 : c->port + 1000;
        if (c->metrics_port > 65535) {
            fprintf(err, "swarmcast: --port %d leaves no room for the metrics port (+1000): give --metrics-listen\n",
                    c->port);
            return CONFIG_EXIT_USAGE;
        }
    } else if (c->metrics_port == c->port && c->port != 0) {
        fprintf(err, "swarmcast: --metrics-listen must not use the public port %d\n", c->port);
        return CONFIG_EXIT_USAGE;
    }
    /* With an IPv4 --bind, libwebsockets listens for IPv4 only (net.c), and
     * an IPv6 metrics address would silently become every interface. */
    unsigned char v4[4];
    if (c->metrics_port >= 0 && strchr(c->metrics_bind, ':') && inet_pton(AF_INET, c->bind, v4) == 1) {
        fprintf(err, "swarmcast: --metrics-listen [%s] is IPv6 but --bind %s is IPv4: give an IPv4 metrics address "
                     "(127.0.0.1:PORT) or an IPv6 --bind\n", c->metrics_bind, c->bind);
        return CONFIG_EXIT_USAGE;
    }
    /* A live server without --max-agents derives its limit at start-up (app/app.c). */
    if (c->agents > c->max_agents && (c->headless || c->max_agents_given)) {
        fprintf(err, "swarmcast: --agents %zu is above --max-agents %zu\n", c->agents, c->max_agents);
        return CONFIG_EXIT_USAGE;
    }
    return CONFIG_RUN;
}

#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge/subjects.h"
#include "config_help.h"
#include "config_options.h"
#include "install_paths.h"
#include "net/http_headers.h"
#include "protocol/utf8.h"
#include "sim/params.h"

#ifndef SWARMCAST_DEFAULT_WEB_ROOT
#define SWARMCAST_DEFAULT_WEB_ROOT "client-web"
#endif
/* Options in the table, at most (getopt's copy of it is static). */
#define CONFIG_MAX_OPTIONS 96

/* An installed binary's share/swarmcast/client-web, else the source tree's
 * (a build tree's binary: CMakeLists.txt names it). */
static char installed_web_root[4096];
static bool is_installed;
static void find_web_root(void)
{
    is_installed = install_share_dir("client-web", installed_web_root, sizeof installed_web_root) == 0;
}
static const char *default_web_root(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_web_root);
    return is_installed ? installed_web_root : SWARMCAST_DEFAULT_WEB_ROOT;
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
    /* What the option table cannot say in a value: the rest of the defaults
     * are its own (config_options.c), so --help and the manual show them. */
    *c = (config_t){
        .web_root = default_web_root(),
        .max_agents = 1000000, /* a live server derives its own (app/app.c) */
        .threads = (int)sysconf(_SC_NPROCESSORS_ONLN),
        .metrics_bind = "127.0.0.1",
    };
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (o->def && apply(c, o->id, o->def, "the default", err)) return CONFIG_EXIT_USAGE;
    }
    if (c->threads < 1) c->threads = 1;
    for (size_t i = 0; from_environment && i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        const char *v = o->env ? getenv(o->env) : NULL;
        if (v && *v && apply(c, o->id, v, o->env, err)) return CONFIG_EXIT_USAGE;
    }

    /* getopt's table, from the option table. */
    static struct option options[CONFIG_MAX_OPTIONS + 1];
    size_t n_options = 0;
    for (size_t i = 0; i < config_options_count() && n_options < CONFIG_MAX_OPTIONS; i++) {
        const config_option_t *o = config_option(i);
        if (o->id)
            options[n_options++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
    }
    options[n_options] = (struct option){0};
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
            config_help(out);
            return CONFIG_EXIT_OK;
        }
        if (opt == OPT_MAN || opt == OPT_BASH_COMPLETION || opt == OPT_ENV_FILE) return opt == OPT_MAN ? CONFIG_PRINT_MAN : opt == OPT_BASH_COMPLETION ? CONFIG_PRINT_BASH_COMPLETION : CONFIG_PRINT_ENV_FILE;
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

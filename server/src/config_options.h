/* config_options: the one table of the server's command-line options. Every
 * text that lists them is printed from it: --help (config_help.c), the
 * manual page, the bash completion and the packaged environment file
 * (server/src/docs/), so none of them can disagree with the others or with
 * what config.c parses. */
#ifndef SWARMCAST_CONFIG_OPTIONS_H
#define SWARMCAST_CONFIG_OPTIONS_H

#include <stddef.h>

/* An id is what getopt_long returns for its option: they start past every
 * character, so that none is '?' (an unknown option) or ':'. */
enum {
    OPT_BIND = 256, OPT_PORT, OPT_AGENTS, OPT_SEED, OPT_TICK, OPT_SNAP, OPT_WORLD, OPT_WEB, OPT_CLIENTS,
    OPT_MAX_AGENTS, OPT_THREADS, OPT_SET, OPT_HELP, OPT_VERSION, OPT_MODEL, OPT_METRICS_HZ, OPT_RECORD,
    OPT_FINAL, OPT_HEADLESS, OPT_STEPS, OPT_SCENARIO, OPT_CSV, OPT_METRICS_EVERY, OPT_REPLAY,
    OPT_RECORD_MAX, OPT_TOKEN, OPT_ORIGIN, OPT_PER_ADDRESS, OPT_IDLE, OPT_STALL, OPT_STATE_FILE,
    OPT_STATE_EVERY, OPT_STATE_AGENTS, OPT_RATE_SCALE, OPT_DEFLATE, OPT_DETAIL_BUDGET, OPT_MAX_VIEWS,
    OPT_CONNECT_RATE, OPT_CONNECT_BURST, OPT_AUTH_FAILURES, OPT_ALLOW_FRAME, OPT_PUBLIC_URL,
    OPT_TRUSTED_PROXY, OPT_METRICS_LISTEN, OPT_ROOMS, OPT_MAX_ROOMS, OPT_ROOM_AGENTS, OPT_ROOM_IDLE_STOP,
    OPT_ROOM_IDLE_CLOSE, OPT_STATE_DIR, OPT_EXPERIMENTS,
    /* The scaled set-up. */
    OPT_NATS, OPT_NATS_PREFIX, OPT_NATS_USER, OPT_NATS_PASSWORD, OPT_NATS_CREDS, OPT_NATS_NKEY_SEED,
    OPT_MAX_REMOTE, OPT_RELAY, OPT_RELAY_TAG, OPT_RELAY_NAME,
    /* The generated texts. */
    OPT_MAN, OPT_BASH_COMPLETION, OPT_ENV_FILE,
    /* The timeline. */
    OPT_HISTORY_MINUTES, OPT_HISTORY_MB, OPT_HISTORY_TOTAL_MB, OPT_KEYFRAME_SECONDS, OPT_TIMELINE_SEATS,
};

typedef struct config_option {
    int id;            /* OPT_*; 0: a section heading (help is its text) */
    const char *name;  /* the long option without "--" */
    const char *arg;   /* the argument's name in the help; NULL: a flag without one */
    const char *env;   /* SWARMCAST_* that sets it too, or NULL */
    const char *def;   /* the default, as the option's value: config.c applies it before anything else */
    const char *shown; /* with def NULL: what the default is, in words; NULL: none */
    const char *help;  /* what it does; '\n' starts a new line of --help */
} config_option_t;

size_t config_options_count(void);
const config_option_t *config_option(size_t i);
/* The entry of OPT_* id, or NULL. */
const config_option_t *config_option_by_id(int id);

#endif

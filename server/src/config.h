/* config: the server's settings, from defaults, then SWARMCAST_* environment
 * variables, then command-line flags (later wins). */
#ifndef SWARMCAST_CONFIG_H
#define SWARMCAST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "net/trusted_proxies.h"

#define CONFIG_MAX_SETS 64
#define CONFIG_MAX_TOKEN 256 /* bytes of --control-token */
#define CONFIG_MAX_RELAY_TAG 1023 /* a relay tag fills the top 10 bits of a client id */
#define CONFIG_MAX_RELAY_NAME 48 /* + "#instance" fits a lease's 63 bytes */

typedef struct config {
    const char *bind;
    int port;                /* 0: any free port */
    size_t agents;
    uint32_t seed;
    double tick_hz, snapshot_hz;
    float world_width, world_height;
    const char *web_root;
    size_t max_clients;
    size_t max_agents;
    int threads;             /* that step the world */
    struct {
        int param;
        double value;
    } sets[CONFIG_MAX_SETS]; /* --set NAME=VALUE, validated against the registry */
    size_t n_sets;
    double metrics_hz;       /* live metrics messages per second; 0: none */
    const char *record;      /* live server: command log (JSON lines), or NULL */
    const char *final_path;  /* final state as JSON at the end ("-": stdout), or NULL */
    uint64_t record_max_bytes; /* the command log stops (with a warning) at this size */
    bool max_agents_given;   /* otherwise derived from the world and this machine */
    /* /metrics and the detailed /healthz (--metrics-listen): on their own
     * listener, loopback by default; metrics_port < 0: none. */
    char metrics_bind[48];
    int metrics_port;        /* 0: any free one */
    bool metrics_listen_given;

    /* Sharing one world with strangers. */
    const char *control_token;  /* operators present it (auth); NULL: everyone is an operator */
    const char *allow_origin;   /* comma-separated Origins that may open /ws; NULL: any */
    const char *allow_frame;    /* comma-separated origins that may show the pages in a frame; NULL: none */
    const char *public_url;     /* the address people join at (hello's public_url); NULL: the page's own */
    size_t max_per_address;     /* WebSocket sessions per remote address */
    double connect_per_s;       /* new sessions per second per address, after … */
    double connect_burst;       /* … a burst of this many */
    unsigned auth_free_failures; /* wrong tokens per address before each further guess waits */
    trusted_proxies_t trusted_proxies; /* --trusted-proxy: whose X-Forwarded-For/Forwarded is believed */
    double rate_scale;          /* every client's command budget, times this */
    double idle_timeout_s;      /* nothing received (message or pong) this long: closed */
    double stall_timeout_s;     /* output stuck, or a message left half-sent, this long: closed */
    const char *state_file;     /* the operator's set-up, restored at start and kept; NULL: none */
    double state_every_s;       /* period of state-file writes */
    bool state_agents;          /* the state file also keeps the agents */

    /* Rooms (PROTOCOL.md "Rooms"): worlds people make from the page, each
     * joined by a code; the default room is the world at /. */
    int rooms;                  /* who may make rooms: CONFIG_ROOMS_* */
    size_t max_rooms;           /* rooms besides the default one */
    size_t room_agents;         /* the population of a room made from the defaults */
    double room_idle_stop_s;    /* a room nobody watches stops stepping after this long … */
    double room_idle_close_s;   /* … and closes after this long */
    const char *experiments;    /* experiments' output folders the experiment page may open in a room, by
                                   name (create_room from a run); NULL: none */
    const char *state_dir;      /* every room's set-up kept here (the default room's too, without
                                   --state-file): a closed room reopens by its code; NULL: none */

    /* The timeline (PROTOCOL.md "Timeline"): each room keeps its past. */
    double history_minutes;     /* the past kept behind the live tick (0: none) */
    double history_mb;          /* … within this many MiB per room (keyframes and commands) … */
    double history_total_mb;    /* … and this many over all rooms */
    double keyframe_seconds;    /* a keyframe every this long: a seek re-steps at most this much */
    size_t timeline_seats;      /* viewers scrubbing at once, across rooms */

    /* Streaming (protocol v2). */
    bool deflate;               /* permessage-deflate for clients that offer it */
    size_t detail_budget;       /* the largest budget a client's view request may name */
    size_t max_views;           /* distinct views encoded at once */

    /* A relay (first argument "relay"): no simulation; serves v2 viewers
     * from what a simulation publishes over NATS. */
    bool relay;
    unsigned relay_tag;         /* 1..CONFIG_MAX_RELAY_TAG; 0: a random one */
    const char *relay_name;     /* in its leases and logs; NULL: "relay-<tag>" */

    /* The scaled set-up (docs/DEPLOYING.md "Scaled set-up: NATS and relays"): the
     * simulation publishes to NATS and takes relays' viewers' commands. */
    const char *nats_url;       /* "nats://h:p[,nats://h2:p2…]"; NULL: no NATS, one process does everything */
    const char *nats_prefix;    /* subject prefix (swarmcast) */
    const char *nats_user, *nats_password; /* both or neither */
    const char *nats_creds;     /* a .creds file (user JWT + seed), or NULL */
    const char *nats_nkey_seed; /* a file with the user's nkey seed and public key, or NULL */
    size_t max_remote_clients;  /* relays' viewers the simulation keeps slots for (with --nats) */

    /* Headless runs (--headless): no network. */
    bool headless;
    uint64_t steps;
    uint64_t metrics_every;  /* CSV row every this many steps */
    const char *scenario;    /* JSON file (a headless run's, or a live server's first world), or NULL */
    const char *csv;         /* metrics CSV ("-": stdout), or NULL */
    const char *replay;      /* a --record log to replay, or NULL */
    /* Which settings came from command-line flags: those override a
     * scenario file's (defaults and the environment do not). */
    bool seed_given, agents_given, world_given, steps_given;
} config_t;

enum { CONFIG_RUN = 0, CONFIG_EXIT_OK = 1, CONFIG_EXIT_USAGE = 2 };
/* --man, --bash-completion, --env-file: the caller prints that text
 * (server/src/docs/) and exits 0. */
enum { CONFIG_PRINT_MAN = 3, CONFIG_PRINT_BASH_COMPLETION = 4, CONFIG_PRINT_ENV_FILE = 5 };
/* --rooms: anyone may make a room, only operators (the control token), or nobody. */
enum { CONFIG_ROOMS_OPEN = 0, CONFIG_ROOMS_OPERATORS = 1, CONFIG_ROOMS_OFF = 2 };
extern const char *const config_rooms_names[3];

/* Fills c from the defaults, the SWARMCAST_* environment, then argv; prints
 * help, version or the error to out/err. Returns CONFIG_*. */
int config_load(config_t *c, int argc, char **argv, FILE *out, FILE *err);
/* The same from the defaults and argv alone: an experiment's run is what its
 * files say, never what a shell or a container exported (SWARMCAST_AGENTS,
 * _WORLD, _TICK_HZ, _NATS would change a run and not its id). */
int config_load_args(config_t *c, int argc, char **argv, FILE *out, FILE *err);

#endif

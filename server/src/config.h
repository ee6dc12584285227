/* config: the server's settings, from defaults, then SWARMCAST_* environment
 * variables, then command-line flags (later wins). */
#ifndef SWARMCAST_CONFIG_H
#define SWARMCAST_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_MAX_SETS 64

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
} config_t;

enum { CONFIG_RUN = 0, CONFIG_EXIT_OK = 1, CONFIG_EXIT_USAGE = 2 };

/* Fills c; prints help, version or the error to out/err. Returns CONFIG_*. */
int config_load(config_t *c, int argc, char **argv, FILE *out, FILE *err);

#endif

/* metrics: order parameters of the flock, computed from a world's state
 * without changing it — what the viewers' panel shows a few times a second
 * and the headless runner writes per step. */
#ifndef SWARMCAST_METRICS_H
#define SWARMCAST_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/grid.h"
#include "sim/world.h"

typedef struct metrics {
    uint64_t tick;
    size_t agents;
    double polarization;       /* |Σ v̂_i| / N: 1 when all fly alike, ~0 when random */
    double milling;            /* |Σ r̂_i × v̂_i| / N about the centroid: 1 for a perfect mill */
    double mean_nn_distance;   /* mean distance to the nearest other agent (u); NAN when N < 2 */
    double oscillation;        /* mean |change of heading| per second over the last step (rad/s):
                                  seed 001 §5.4.2's swaying; NAN before a step */
    uint32_t clusters;         /* connected groups, agents linked within cluster_radius */
    uint32_t largest_cluster;  /* agents in the biggest group */
    uint32_t collisions;       /* pairs closer than collision_distance */
    uint32_t penetrations;     /* agents inside an obstacle's radius */
    double min_clearance;      /* smallest (distance to obstacle centre − radius) over agents and
                                  obstacles, in u; negative when inside; NAN without obstacles */
    bool pairs_skipped;        /* the pair metrics (nearest neighbour, clusters, collisions) were
                                  over max_pairs and not computed: they read NAN and 0 */
} metrics_t;

typedef struct metrics_config {
    float cluster_radius;      /* default: the model's range of interaction (cohesion radius;
                                  Olfati-Saber's r) */
    float collision_distance;  /* default: 2 u */
    uint64_t max_pairs;        /* skip the pair metrics when the grid's blocks hold more candidate
                                  pairs than this (their cost grows with the square of density);
                                  0: no limit (the default: exact, for research runs) */
} metrics_config_t;

/* The pair kernel's vector width: the position copies are padded by this. */
#define METRICS_LANES 8

/* Working memory, kept between calls so that computing metrics allocates
 * only when the population grows. */
typedef struct metrics_state {
    grid_t grid;
    uint32_t *parent;          /* union-find over agents, cap + METRICS_LANES entries */
    float *x, *y;              /* positions in the grid's cell order, cap + METRICS_LANES entries */
    float *nn2;                /* squared nearest-neighbour distance per agent, as many */
    size_t cap;
} metrics_state_t;

void metrics_init(metrics_state_t *s);
void metrics_free(metrics_state_t *s);
/* 0, or −1 when out of memory (out untouched). Distances follow the world's
 * border: shortest displacement on a torus when wrapping. */
int metrics_compute(metrics_state_t *s, const world_t *w, const metrics_config_t *cfg, metrics_t *out);
/* The configuration the world's parameters imply (cluster radius = the
 * range within which the model links two agents: the cohesion radius, or
 * for Olfati-Saber's models r, so that clusters are the components of the
 * paper's proximity net and "fragmentation" its sense of it; collision
 * distance 2 u). */
metrics_config_t metrics_default_config(const world_t *w);

#endif

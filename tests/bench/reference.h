/* reference: a plain uniform-grid boids step, the yardstick of the benchmark.
 *
 * It is what one writes first, and what the anchor measures: an array
 * of agent structs, cells one radius wide, a counting sort into an index
 * list (the agents themselves stay put), a 9-cell scan with a square root per
 * pair, and the same rules as the simulation (Reynolds zones, field of view,
 * separation weighted by 1/distance, steering limited to max force, weighted
 * average, speed limit, wrap borders). It shares no code with server/. */
#ifndef SWARMCAST_REFERENCE_H
#define SWARMCAST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ref_agent {
    float x, y, vx, vy;
} ref_agent_t;

typedef struct ref_world {
    size_t n;
    ref_agent_t *agents, *next;
    float width, height, dt;
    float sep_r, ali_r, coh_r, fov_deg, w_sep, w_ali, w_coh, max_speed, max_force;
    int nx, ny;
    float cell_w, cell_h;
    uint32_t *cell_start, *cell_count, *index;
    double mean_neighbours;
} ref_world_t;

/* The same initial state as the simulation's own agents: copied in. */
int ref_init(ref_world_t *r, size_t n, const float *x, const float *y, const float *vx, const float *vy,
             float width, float height, float dt);
void ref_step(ref_world_t *r);
void ref_free(ref_world_t *r);

#endif

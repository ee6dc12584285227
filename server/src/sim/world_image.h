/* world_image: an exact copy of everything a world's future depends on —
 * the agents in their storage order, the per-agent feature state, the
 * delayed-feedback memory, obstacles with their ids and owners, targets,
 * predators, the references, the generator, the tick and the parameters —
 * so that a world restored from it steps on bit for bit as the original
 * did. The timeline's keyframes (timeline/history.h) are these.
 *
 * Unlike the state file's image (persist/state_file.h), which keeps what an
 * operator set up and starts the delay memory again, nothing is left out;
 * and it is binary, never parsed from outside. What it does not hold is
 * what a step recomputes before reading (the grid, the kernel's scratch,
 * the headings of alignment by heading, `next`). */
#ifndef SWARMCAST_WORLD_IMAGE_H
#define SWARMCAST_WORLD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/world.h"

typedef struct world_image {
    sim_params_t params;
    sim_params_t species_params[SIM_MAX_SPECIES];
    uint32_t seed;
    uint64_t tick;
    prng_t rng;
    bool paused;
    float gamma_x, gamma_y;
    double mean_neighbours;
    size_t n;
    agents_t cur;                            /* n entries each */
    float *radius_ali, *radius_coh, *wander; /* by id, n each; NULL when the world has none */
    float *history;                          /* history_frames × 4 × n floats (x, y, vx, vy by id) */
    size_t history_frames;
    obstacle_t obstacles[SIM_MAX_OBSTACLES];
    size_t n_obstacles;
    uint32_t next_obstacle_id;
    target_t *targets;
    size_t n_targets;
    predator_t predators[SIM_MAX_PREDATORS];
    size_t n_predators;
} world_image_t;

/* Copies w into img (start from a zeroed image or one to reuse: its arrays
 * are grown as needed). 0, or -1 when out of memory (img is then freed). */
int world_image_capture(world_image_t *img, const world_t *w);

/* Puts img into w, a world of the same size, dt and limits (world_init'd
 * from the same world_config_t, any thread count). 0, or -1 when out of
 * memory (w is then partly restored: restore again or free it). */
int world_image_restore(const world_image_t *img, world_t *w);

/* Sets every parameter of w to params and each species' to species[s],
 * through the validated setters (which also size the grid, the feature
 * arrays and the delay memory); nothing when they are already equal.
 * 0, or -1 when out of memory (w is then partly set). */
int world_adopt_params(world_t *w, const sim_params_t *params, const sim_params_t species[SIM_MAX_SPECIES]);

/* Bytes the image holds on the heap (its arrays), for budgets. */
size_t world_image_bytes(const world_image_t *img);

void world_image_free(world_image_t *img);

#endif

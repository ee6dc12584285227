/* capture: a copy of what a snapshot shows of the world (agents' arrays,
 * predators, obstacles, targets, tick). The simulation thread fills one and
 * goes on stepping; the encoder worker reads it at leisure. Copying is all
 * the simulation thread does for the stream: quantizing and encoding happen
 * on the worker. */
#ifndef SWARMCAST_CAPTURE_H
#define SWARMCAST_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/snapshot.h"
#include "sim/world.h"

typedef struct capture {
    uint32_t tick;
    bool paused;
    float width, height;
    size_t n, cap;
    float *x, *y, *vx, *vy;
    uint32_t *id;
    uint8_t *flags;
    obstacle_t obstacles[SIM_MAX_OBSTACLES];
    size_t n_obstacles;
    target_t *targets;
    size_t n_targets, targets_cap;
    predator_t predators[SIM_MAX_PREDATORS];
    size_t n_predators;
} capture_t;

/* Copies the world into c, growing its arrays; 0, or -1 when out of memory
 * (c then holds no agents). Start from a zeroed capture. */
int capture_world(capture_t *c, const world_t *w);
/* A view of the copy, for the encoders. */
void capture_view(const capture_t *c, snap_view_t *v);
/* Whether the scene (world size, obstacles, targets) differs between two captures. */
bool capture_scene_differs(const capture_t *a, const capture_t *b);
/* Copies only the scene (world size, obstacles, targets) of src into dst; 0 or -1. */
int capture_copy_scene(capture_t *dst, const capture_t *src);
void capture_free(capture_t *c);

#endif

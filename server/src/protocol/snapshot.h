/* snapshot: encodes the binary snapshot frame of protocol v1 (see
 * protocol/PROTOCOL.md). The encoder reads a plain view, not the world, so
 * tests can encode exactly the content of a test vector. */
#ifndef SWARMCAST_SNAPSHOT_H
#define SWARMCAST_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/world.h"

#define SNAP_KIND 0x53u
#define SNAP_VERSION 1u
#define SNAP_HEADER_BYTES 24u
#define SNAP_AGENT_BYTES 6u
#define SNAP_OBSTACLE_BYTES 16u
#define SNAP_TARGET_BYTES 12u
#define SNAP_FLAG_PAUSED 0x0001u
#define SNAP_HEADING_STEPS 256u

typedef struct snap_view {
    uint32_t tick;
    bool paused;
    float width, height;
    size_t n;
    const float *x, *y, *vx, *vy;
    const uint32_t *id; /* id of each entry (a permutation of 0…n−1); NULL: entry i is id i */
    const uint8_t *flags;
    const obstacle_t *obstacles;
    size_t n_obstacles;
    const target_t *targets;
    size_t n_targets;
    const predator_t *predators; /* listed after the agents, flagged AGENT_PREDATOR */
    size_t n_predators;
} snap_view_t;

void snap_view_of_world(const world_t *w, snap_view_t *v);
size_t snap_size(const snap_view_t *v);
/* Writes the frame to out; returns its size, or 0 if cap is too small or a
 * count does not fit its field. Any float is encoded without undefined
 * behaviour: a NaN position gives 0, a velocity with a NaN component (or
 * two infinite ones) heading 0. */
size_t snap_encode(const snap_view_t *v, uint8_t *out, size_t cap);

#endif

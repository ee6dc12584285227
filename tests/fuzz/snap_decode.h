/* snap_decode: a C reader of the snapshot frame of protocol/PROTOCOL.md,
 * written from the document for the tests (the client's reader is
 * JavaScript). It keeps pointers into the frame and reads records on demand. */
#ifndef SWARMCAST_FUZZ_SNAP_DECODE_H
#define SWARMCAST_FUZZ_SNAP_DECODE_H

#include <stddef.h>
#include <stdint.h>

typedef struct snap_frame {
    uint16_t flags;
    uint32_t tick;
    float width, height;
    uint32_t n_agents; /* agents and predators */
    uint16_t n_obstacles, n_targets;
    const uint8_t *agents, *obstacles, *targets; /* into the frame */
} snap_frame_t;

typedef struct snap_agent_rec {
    uint16_t x_q, y_q;
    uint8_t heading_q, flags;
} snap_agent_rec_t;

typedef struct snap_obstacle_rec {
    uint32_t id;
    float x, y, radius;
} snap_obstacle_rec_t;

typedef struct snap_target_rec {
    uint32_t client_id;
    float x, y;
} snap_target_rec_t;

/* 0 when frame[0, len) is a snapshot this reader knows (kind 'S', version 1,
 * length exactly the size its counts give); -1 otherwise. */
int snap_decode(const uint8_t *frame, size_t len, snap_frame_t *out);

snap_agent_rec_t snap_agent(const snap_frame_t *f, uint32_t i);
snap_obstacle_rec_t snap_obstacle(const snap_frame_t *f, uint32_t i);
snap_target_rec_t snap_target(const snap_frame_t *f, uint32_t i);

/* The spec's decoding of a quantized position and heading. */
double snap_position(uint16_t q, float extent);
double snap_heading(uint8_t q);

#endif

#include "snap_decode.h"

#include <string.h>

#define HEADER_BYTES 24u
#define AGENT_BYTES 6u
#define OBSTACLE_BYTES 16u
#define TARGET_BYTES 12u

static uint16_t u16_at(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float f32_at(const uint8_t *p)
{
    uint32_t bits = u32_at(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int snap_decode(const uint8_t *frame, size_t len, snap_frame_t *out)
{
    if (len < HEADER_BYTES || frame[0] != 0x53 || frame[1] != 1) return -1;
    snap_frame_t f = {
        .flags = u16_at(frame + 2),
        .tick = u32_at(frame + 4),
        .width = f32_at(frame + 8),
        .height = f32_at(frame + 12),
        .n_agents = u32_at(frame + 16),
        .n_obstacles = u16_at(frame + 20),
        .n_targets = u16_at(frame + 22),
    };
    /* 64-bit arithmetic: no count can overflow it */
    uint64_t size = HEADER_BYTES + (uint64_t)AGENT_BYTES * f.n_agents + (uint64_t)OBSTACLE_BYTES * f.n_obstacles +
                    (uint64_t)TARGET_BYTES * f.n_targets;
    if (size != len) return -1;
    f.agents = frame + HEADER_BYTES;
    f.obstacles = f.agents + (size_t)AGENT_BYTES * f.n_agents;
    f.targets = f.obstacles + (size_t)OBSTACLE_BYTES * f.n_obstacles;
    *out = f;
    return 0;
}

snap_agent_rec_t snap_agent(const snap_frame_t *f, uint32_t i)
{
    const uint8_t *p = f->agents + (size_t)AGENT_BYTES * i;
    return (snap_agent_rec_t){u16_at(p), u16_at(p + 2), p[4], p[5]};
}

snap_obstacle_rec_t snap_obstacle(const snap_frame_t *f, uint32_t i)
{
    const uint8_t *p = f->obstacles + (size_t)OBSTACLE_BYTES * i;
    return (snap_obstacle_rec_t){u32_at(p), f32_at(p + 4), f32_at(p + 8), f32_at(p + 12)};
}

snap_target_rec_t snap_target(const snap_frame_t *f, uint32_t i)
{
    const uint8_t *p = f->targets + (size_t)TARGET_BYTES * i;
    return (snap_target_rec_t){u32_at(p), f32_at(p + 4), f32_at(p + 8)};
}

double snap_position(uint16_t q, float extent) { return (double)q * (double)extent / 65536.0; }

double snap_heading(uint8_t q) { return (double)q * 6.283185307179586 / 256.0; }

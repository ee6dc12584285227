#include "protocol/snapshot.h"

#include <math.h>
#include <string.h>

static void put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_f32(uint8_t *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_u32(p, bits);
}

void snap_view_of_world(const world_t *w, snap_view_t *v)
{
    *v = (snap_view_t){
        .tick = (uint32_t)w->tick,
        .paused = w->paused,
        .width = w->width,
        .height = w->height,
        .n = w->n,
        .x = w->cur.x,
        .y = w->cur.y,
        .vx = w->cur.vx,
        .vy = w->cur.vy,
        .id = w->cur.id,
        .flags = w->cur.flags,
        .obstacles = w->obstacles,
        .n_obstacles = w->n_obstacles,
        .targets = w->targets,
        .n_targets = w->n_targets,
    };
}

size_t snap_size(const snap_view_t *v)
{
    return SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * v->n + SNAP_OBSTACLE_BYTES * v->n_obstacles +
           SNAP_TARGET_BYTES * v->n_targets;
}

/* round(u · scale) clamped to [0, 65535]: position quantization. */
static uint32_t quantize_u16(float u, double scale)
{
    double q = floor((double)u * scale + 0.5);
    return q < 0.0 ? 0u : (q > 65535.0 ? 65535u : (uint32_t)q);
}

size_t snap_encode(const snap_view_t *v, uint8_t *out, size_t cap)
{
    size_t size = snap_size(v);
    if (size > cap || v->n > UINT32_MAX || v->n_obstacles > 0xffff || v->n_targets > 0xffff) return 0;

    out[0] = SNAP_KIND;
    out[1] = SNAP_VERSION;
    put_u16(out + 2, v->paused ? SNAP_FLAG_PAUSED : 0u);
    put_u32(out + 4, v->tick);
    put_f32(out + 8, v->width);
    put_f32(out + 12, v->height);
    put_u32(out + 16, (uint32_t)v->n);
    put_u16(out + 20, (uint32_t)v->n_obstacles);
    put_u16(out + 22, (uint32_t)v->n_targets);

    /* The world keeps agents sorted by grid cell; the frame lists them by id,
     * so each record is scattered to its id's slot. */
    uint8_t *agents = out + SNAP_HEADER_BYTES;
    const double sx = 65536.0 / (double)v->width, sy = 65536.0 / (double)v->height;
    const double to_q = 256.0 / (2.0 * M_PI);
    for (size_t i = 0; i < v->n; i++) {
        uint8_t *rec = agents + SNAP_AGENT_BYTES * (v->id ? v->id[i] : i);
        put_u16(rec, quantize_u16(v->x[i], sx));
        put_u16(rec + 2, quantize_u16(v->y[i], sy));
        double heading = atan2((double)v->vy[i], (double)v->vx[i]);
        rec[4] = (uint8_t)((int)floor(heading * to_q + 0.5) & 0xff);
        rec[5] = v->flags[i];
    }

    uint8_t *p = agents + SNAP_AGENT_BYTES * v->n;
    for (size_t k = 0; k < v->n_obstacles; k++, p += SNAP_OBSTACLE_BYTES) {
        put_u32(p, v->obstacles[k].id);
        put_f32(p + 4, v->obstacles[k].x);
        put_f32(p + 8, v->obstacles[k].y);
        put_f32(p + 12, v->obstacles[k].r);
    }
    for (size_t k = 0; k < v->n_targets; k++, p += SNAP_TARGET_BYTES) {
        put_u32(p, v->targets[k].client_id);
        put_f32(p + 4, v->targets[k].x);
        put_f32(p + 8, v->targets[k].y);
    }
    return size;
}

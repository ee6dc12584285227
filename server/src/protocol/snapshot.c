#include "protocol/snapshot.h"

#include "protocol/heading.h"
#include "protocol/le_bytes.h"

#include <math.h>
#include <string.h>

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
        .predators = w->predators,
        .n_predators = w->n_predators,
    };
}

size_t snap_size(const snap_view_t *v)
{
    return SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * (v->n + v->n_predators) + SNAP_OBSTACLE_BYTES * v->n_obstacles +
           SNAP_TARGET_BYTES * v->n_targets;
}

/* round(u · scale) clamped to [0, 65535]: position quantization. Truncation
 * of a non-negative value is floor, without a libm call. NaN gives 0 (the
 * test is written so that NaN fails it): converting NaN to an integer would
 * be undefined. */
static uint32_t quantize_u16(float u, double scale)
{
    double q = (double)u * scale + 0.5;
    return !(q > 0.0) ? 0u : (q >= 65535.0 ? 65535u : (uint32_t)q);
}

size_t snap_encode(const snap_view_t *v, uint8_t *out, size_t cap)
{
    size_t size = snap_size(v);
    if (size > cap || v->n + v->n_predators > UINT32_MAX || v->n_obstacles > 0xffff || v->n_targets > 0xffff) return 0;

    out[0] = SNAP_KIND;
    out[1] = SNAP_VERSION;
    put_u16(out + 2, v->paused ? SNAP_FLAG_PAUSED : 0u);
    put_u32(out + 4, v->tick);
    put_f32(out + 8, v->width);
    put_f32(out + 12, v->height);
    put_u32(out + 16, (uint32_t)(v->n + v->n_predators));
    put_u16(out + 20, (uint32_t)v->n_obstacles);
    put_u16(out + 22, (uint32_t)v->n_targets);

    /* The world keeps agents sorted by grid cell; the frame lists them by id,
     * so each record is scattered to its id's slot. */
    uint8_t *agents = out + SNAP_HEADER_BYTES;
    const double sx = 65536.0 / (double)v->width, sy = 65536.0 / (double)v->height;
    for (size_t i = 0; i < v->n; i++) {
        uint8_t *rec = agents + SNAP_AGENT_BYTES * (v->id ? v->id[i] : i);
        put_u16(rec, quantize_u16(v->x[i], sx));
        put_u16(rec + 2, quantize_u16(v->y[i], sy));
        rec[4] = (uint8_t)heading_quantize(v->vx[i], v->vy[i], SNAP_HEADING_STEPS);
        rec[5] = v->flags[i];
    }

    for (size_t k = 0; k < v->n_predators; k++) {
        const predator_t *pr = &v->predators[k];
        uint8_t *rec = agents + SNAP_AGENT_BYTES * (v->n + k);
        put_u16(rec, quantize_u16(pr->x, sx));
        put_u16(rec + 2, quantize_u16(pr->y, sy));
        rec[4] = (uint8_t)heading_quantize(pr->vx, pr->vy, SNAP_HEADING_STEPS);
        rec[5] = AGENT_PREDATOR;
    }

    uint8_t *p = agents + SNAP_AGENT_BYTES * (v->n + v->n_predators);
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

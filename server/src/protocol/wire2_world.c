/* The quantized world of protocol v2 and the geometry of view rectangles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/heading.h"
#include "protocol/wire2.h"

uint32_t wire2_quanta_of(float size)
{
    double q = ceil((double)size * WIRE2_QUANTA_PER_UNIT);
    /* Written so that NaN fails the test. */
    if (!(q >= 1.0 && q <= 2147483648.0)) return 0;
    return (uint32_t)q;
}

wire2_bounds_t wire2_rect_bounds(wire2_rect_t r, uint32_t wq, uint32_t hq)
{
    unsigned L = r.level & 7u;
    return (wire2_bounds_t){
        .qx0 = ((uint64_t)r.x0 * wq) >> L,
        .qy0 = ((uint64_t)r.y0 * hq) >> L,
        .qx1 = ((uint64_t)r.x1 * wq) >> L,
        .qy1 = ((uint64_t)r.y1 * hq) >> L,
    };
}

/* clamp(floor(u·16 + 0.5), 0, limit − 1); NaN → 0. Truncation of a
 * non-negative double is floor. */
static uint32_t quantize_pos(float u, uint32_t limit)
{
    double t = (double)u * WIRE2_QUANTA_PER_UNIT + 0.5;
    if (!(t > 0.0)) return 0;
    if (t >= (double)limit) return limit ? limit - 1u : 0u;
    return (uint32_t)t;
}

uint16_t wire2_quantize_heading(float vx, float vy)
{
    return (uint16_t)heading_quantize(vx, vy, WIRE2_HEADING_STEPS);
}

static int reserve(wire2_world_t *q, size_t n)
{
    if (n <= q->cap) return 0;
    size_t cap = n + n / 8 + 16;
    uint32_t *qx = realloc(q->qx, cap * sizeof *qx);
    if (!qx) return WIRE2_E_NOMEM;
    q->qx = qx;
    uint32_t *qy = realloc(q->qy, cap * sizeof *qy);
    if (!qy) return WIRE2_E_NOMEM;
    q->qy = qy;
    uint16_t *h = realloc(q->h, cap * sizeof *h);
    if (!h) return WIRE2_E_NOMEM;
    q->h = h;
    uint8_t *f = realloc(q->f, cap * sizeof *f);
    if (!f) return WIRE2_E_NOMEM;
    q->f = f;
    uint32_t *by = realloc(q->by_tile, cap * sizeof *by);
    if (!by) return WIRE2_E_NOMEM;
    q->by_tile = by;
    uint8_t *t = realloc(q->tile_of, cap * sizeof *t);
    if (!t) return WIRE2_E_NOMEM;
    q->tile_of = t;
    q->cap = cap;
    return 0;
}

#define INDEX_SIDE (1u << WIRE2_INDEX_LEVEL)
#define INDEX_TILES (INDEX_SIDE * INDEX_SIDE)

/* A counting sort of the ids by tile: floor(qx·side/Wq) is monotonic in qx,
 * so the tiles a rect's quanta fall in are a range (wire2_world_tiles). */
static void build_index(wire2_world_t *q)
{
    uint32_t counts[INDEX_TILES] = {0};
    bool usable = q->wq && q->hq; /* else no view holds anything: one tile */
    for (size_t i = 0; i < q->n; i++) {
        if (!usable) {
            q->tile_of[i] = 0;
            counts[0]++;
            continue;
        }
        unsigned tx = (unsigned)(((uint64_t)q->qx[i] * INDEX_SIDE) / q->wq);
        unsigned ty = (unsigned)(((uint64_t)q->qy[i] * INDEX_SIDE) / q->hq);
        uint8_t t = (uint8_t)(ty * INDEX_SIDE + tx);
        q->tile_of[i] = t;
        counts[t]++;
    }
    uint32_t sum = 0;
    for (unsigned t = 0; t < INDEX_TILES; t++) {
        q->tile_start[t] = sum;
        sum += counts[t];
    }
    q->tile_start[INDEX_TILES] = sum;
    uint32_t next[INDEX_TILES];
    memcpy(next, q->tile_start, sizeof next);
    for (size_t i = 0; i < q->n; i++) q->by_tile[next[q->tile_of[i]]++] = (uint32_t)i;
}

void wire2_world_tiles(const wire2_world_t *q, const wire2_bounds_t *b, unsigned *tx0, unsigned *ty0, unsigned *tx1,
                       unsigned *ty1)
{
    if (!q->wq || !q->hq) {
        *tx0 = *ty0 = *tx1 = *ty1 = 0;
        return;
    }
    *tx0 = (unsigned)((b->qx0 * INDEX_SIDE) / q->wq);
    *ty0 = (unsigned)((b->qy0 * INDEX_SIDE) / q->hq);
    *tx1 = b->qx1 > b->qx0 ? (unsigned)(((b->qx1 - 1) * INDEX_SIDE) / q->wq) + 1 : *tx0;
    *ty1 = b->qy1 > b->qy0 ? (unsigned)(((b->qy1 - 1) * INDEX_SIDE) / q->hq) + 1 : *ty0;
    if (*tx1 > INDEX_SIDE) *tx1 = INDEX_SIDE;
    if (*ty1 > INDEX_SIDE) *ty1 = INDEX_SIDE;
    if (*tx0 > *tx1) *tx0 = *tx1;
    if (*ty0 > *ty1) *ty0 = *ty1;
}

int wire2_world_quantize(wire2_world_t *q, const snap_view_t *v, uint32_t seq)
{
    size_t n = v->n + v->n_predators;
    if (n > WIRE2_MAX_COUNT) return WIRE2_E_ARG;
    if (reserve(q, n) < 0) return WIRE2_E_NOMEM;
    q->seq = seq;
    q->tick = v->tick;
    q->paused = v->paused;
    q->width = v->width;
    q->height = v->height;
    q->wq = wire2_quanta_of(v->width);
    q->hq = wire2_quanta_of(v->height);
    q->n = n;
    q->n_agents = v->n;
    /* The world keeps agents sorted by grid cell; q is by id. */
    for (size_t i = 0; i < v->n; i++) {
        size_t id = v->id ? v->id[i] : i;
        if (id >= v->n) return WIRE2_E_ARG;
        q->qx[id] = quantize_pos(v->x[i], q->wq);
        q->qy[id] = quantize_pos(v->y[i], q->hq);
        q->h[id] = wire2_quantize_heading(v->vx[i], v->vy[i]);
        q->f[id] = v->flags[i];
    }
    for (size_t k = 0; k < v->n_predators; k++) {
        const predator_t *p = &v->predators[k];
        size_t id = v->n + k;
        q->qx[id] = quantize_pos(p->x, q->wq);
        q->qy[id] = quantize_pos(p->y, q->hq);
        q->h[id] = wire2_quantize_heading(p->vx, p->vy);
        q->f[id] = AGENT_PREDATOR;
    }
    build_index(q);
    return 0;
}

void wire2_world_free(wire2_world_t *q)
{
    free(q->qx);
    free(q->qy);
    free(q->h);
    free(q->f);
    free(q->by_tile);
    free(q->tile_of);
    *q = (wire2_world_t){0};
}

size_t wire2_world_count_in(const wire2_world_t *q, wire2_rect_t r)
{
    if (!wire2_rect_valid(r) || !q->wq || !q->hq) return 0;
    wire2_bounds_t b = wire2_rect_bounds(r, q->wq, q->hq);
    unsigned tx0, ty0, tx1, ty1;
    wire2_world_tiles(q, &b, &tx0, &ty0, &tx1, &ty1);
    size_t count = 0;
    for (unsigned ty = ty0; ty < ty1; ty++)
        for (uint32_t k = q->tile_start[ty * INDEX_SIDE + tx0]; k < q->tile_start[ty * INDEX_SIDE + tx1]; k++) {
            uint32_t i = q->by_tile[k];
            count += q->qx[i] >= b.qx0 && q->qx[i] < b.qx1 && q->qy[i] >= b.qy0 && q->qy[i] < b.qy1;
        }
    return count;
}

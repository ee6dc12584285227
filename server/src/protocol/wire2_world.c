/* The quantized world of protocol v2 and the geometry of view rectangles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/bit_select.h"
#include "protocol/heading.h"
#include "protocol/wire2.h"
#include "sim/clones.h"

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

typedef struct pos_limit {
    double limit, top; /* limit, and the largest quantum below it (0 for limit 0) */
} pos_limit_t;

static inline pos_limit_t pos_limit_of(uint32_t limit)
{
    return (pos_limit_t){(double)limit, limit ? (double)(limit - 1u) : 0.0};
}

/* clamp(floor(u·16 + 0.5), 0, limit − 1); NaN → 0. Truncation of a
 * non-negative double is floor. Selects on the bits, not ?: (bit_select.h),
 * so that a loop of it vectorizes; the result is below limit ≤ 2^31, so it
 * fits an int32. */
static inline uint32_t quantize_pos(float u, pos_limit_t l)
{
    double t = (double)u * WIRE2_QUANTA_PER_UNIT + 0.5;
    double r = select_double(t >= l.limit, l.top, t);
    r = select_double(t > 0.0, r, 0.0);
    return (uint32_t)(int32_t)r;
}

uint16_t wire2_quantize_heading(float vx, float vy)
{
    return (uint16_t)heading_quantize(vx, vy, WIRE2_HEADING_STEPS);
}

/* Agents quantized a block at a time: a fixed count, so that the compiler
 * vectorizes the loop (at -O2 it does so only for whole vectors), into a
 * block small enough to stay in L1 until it is scattered by id. */
#define QUANTIZE_BLOCK 64

typedef struct quantized_block {
    uint32_t qx[QUANTIZE_BLOCK], qy[QUANTIZE_BLOCK];
    uint16_t h[QUANTIZE_BLOCK];
} quantized_block_t;

typedef struct agent_block {
    float x[QUANTIZE_BLOCK], y[QUANTIZE_BLOCK], vx[QUANTIZE_BLOCK], vy[QUANTIZE_BLOCK];
} agent_block_t;

KERNEL_CLONES static void quantize_block(const float *restrict x, const float *restrict y, const float *restrict vx,
                                         const float *restrict vy, uint32_t wq, uint32_t hq,
                                         const float *restrict atan_table, quantized_block_t *restrict out)
{
    const pos_limit_t lx = pos_limit_of(wq), ly = pos_limit_of(hq);
    for (int i = 0; i < QUANTIZE_BLOCK; i++) {
        out->qx[i] = quantize_pos(x[i], lx);
        out->qy[i] = quantize_pos(y[i], ly);
        out->h[i] = (uint16_t)heading_quantize_with(atan_table, vx[i], vy[i], WIRE2_HEADING_STEPS);
    }
}

/* Positions only (no view needs headings): the census's pass. */
KERNEL_CLONES static void quantize_block_positions(const float *restrict x, const float *restrict y, uint32_t wq,
                                                   uint32_t hq, quantized_block_t *restrict out)
{
    const pos_limit_t lx = pos_limit_of(wq), ly = pos_limit_of(hq);
    for (int i = 0; i < QUANTIZE_BLOCK; i++) {
        out->qx[i] = quantize_pos(x[i], lx);
        out->qy[i] = quantize_pos(y[i], ly);
    }
}

/* Agents [start, start + count) of v, count ≤ QUANTIZE_BLOCK: a short tail
 * is copied into a zeroed block first (its extra lanes are not used). */
static void quantize_agents(const snap_view_t *v, size_t start, size_t count, uint32_t wq, uint32_t hq,
                            const float *atan_table, quantized_block_t *out)
{
    if (count == QUANTIZE_BLOCK) {
        quantize_block(v->x + start, v->y + start, v->vx + start, v->vy + start, wq, hq, atan_table, out);
        return;
    }
    agent_block_t in = {0};
    memcpy(in.x, v->x + start, count * sizeof *in.x);
    memcpy(in.y, v->y + start, count * sizeof *in.y);
    memcpy(in.vx, v->vx + start, count * sizeof *in.vx);
    memcpy(in.vy, v->vy + start, count * sizeof *in.vy);
    quantize_block(in.x, in.y, in.vx, in.vy, wq, hq, atan_table, out);
}

/* The same with positions only (out->h is left as it was). */
static void quantize_agent_positions(const snap_view_t *v, size_t start, size_t count, uint32_t wq, uint32_t hq,
                                     quantized_block_t *out)
{
    if (count == QUANTIZE_BLOCK) {
        quantize_block_positions(v->x + start, v->y + start, wq, hq, out);
        return;
    }
    agent_block_t in = {0};
    memcpy(in.x, v->x + start, count * sizeof *in.x);
    memcpy(in.y, v->y + start, count * sizeof *in.y);
    quantize_block_positions(in.x, in.y, wq, hq, out);
}

/* A predator, as both the world by id and the blocks list it (after the
 * agents); its heading 0 when no view needs headings. */
static wire2_agent_t quantize_predator(const predator_t *p, uint32_t wq, uint32_t hq, bool heading)
{
    return (wire2_agent_t){quantize_pos(p->x, pos_limit_of(wq)), quantize_pos(p->y, pos_limit_of(hq)),
                           heading ? wire2_quantize_heading(p->vx, p->vy) : 0, AGENT_PREDATOR};
}

static int reserve(wire2_world_t *q, size_t n)
{
    if (n <= q->cap) return 0;
    size_t cap = n + n / 8 + 16;
    wire2_agent_t *agent = realloc(q->agent, cap * sizeof *agent);
    if (!agent) return WIRE2_E_NOMEM;
    q->agent = agent;
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
        unsigned tx = wire2_scale_floor(q->agent[i].qx, INDEX_SIDE, q->wq);
        unsigned ty = wire2_scale_floor(q->agent[i].qy, INDEX_SIDE, q->hq);
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

/* The fields of q that are not per agent. */
static void set_header(wire2_world_t *q, const snap_view_t *v, uint32_t seq)
{
    q->seq = seq;
    q->tick = v->tick;
    q->paused = v->paused;
    q->width = v->width;
    q->height = v->height;
    q->wq = wire2_quanta_of(v->width);
    q->hq = wire2_quanta_of(v->height);
    q->n = v->n + v->n_predators;
    q->n_agents = v->n;
}

int wire2_world_quantize(wire2_world_t *q, const snap_view_t *v, uint32_t seq)
{
    size_t n = v->n + v->n_predators;
    if (n > WIRE2_MAX_COUNT) return WIRE2_E_ARG;
    if (reserve(q, n) < 0) return WIRE2_E_NOMEM;
    set_header(q, v, seq);
    /* The world keeps agents sorted by grid cell; q is by id. */
    const float *atan_table = heading_atan_table();
    quantized_block_t block;
    for (size_t start = 0; start < v->n; start += QUANTIZE_BLOCK) {
        size_t count = v->n - start < QUANTIZE_BLOCK ? v->n - start : QUANTIZE_BLOCK;
        quantize_agents(v, start, count, q->wq, q->hq, atan_table, &block);
        for (size_t j = 0; j < count; j++) {
            size_t i = start + j;
            size_t id = v->id ? v->id[i] : i;
            if (id >= v->n) return WIRE2_E_ARG;
            q->agent[id] = (wire2_agent_t){block.qx[j], block.qy[j], block.h[j], v->flags[i]};
        }
    }
    for (size_t k = 0; k < v->n_predators; k++) q->agent[v->n + k] = quantize_predator(&v->predators[k], q->wq, q->hq, true);
    build_index(q);
    return 0;
}

int wire2_world_blocks(wire2_world_t *head, const snap_view_t *v, uint32_t seq, bool headings, wire2_block_fn fn,
                       void *user)
{
    *head = (wire2_world_t){0};
    if (v->n + v->n_predators > WIRE2_MAX_COUNT) return WIRE2_E_ARG;
    set_header(head, v, seq);
    const float *atan_table = heading_atan_table();
    quantized_block_t block = {0};
    for (size_t start = 0; start < v->n; start += QUANTIZE_BLOCK) {
        size_t count = v->n - start < QUANTIZE_BLOCK ? v->n - start : QUANTIZE_BLOCK;
        if (headings)
            quantize_agents(v, start, count, head->wq, head->hq, atan_table, &block);
        else
            quantize_agent_positions(v, start, count, head->wq, head->hq, &block);
        fn(user, block.qx, block.qy, block.h, count);
    }
    /* The predators, as wire2_world_quantize puts them after the agents. */
    for (size_t start = 0; start < v->n_predators; start += QUANTIZE_BLOCK) {
        size_t count = v->n_predators - start < QUANTIZE_BLOCK ? v->n_predators - start : QUANTIZE_BLOCK;
        for (size_t k = 0; k < count; k++) {
            const wire2_agent_t a = quantize_predator(&v->predators[start + k], head->wq, head->hq, headings);
            block.qx[k] = a.qx, block.qy[k] = a.qy, block.h[k] = a.h;
        }
        fn(user, block.qx, block.qy, block.h, count);
    }
    return 0;
}

void wire2_world_free(wire2_world_t *q)
{
    free(q->agent);
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
            count += q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1;
        }
    return count;
}

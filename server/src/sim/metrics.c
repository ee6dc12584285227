/* metrics: order parameters of the flock (see metrics.h).
 *
 * Polarization and milling are one pass over the agents. The pair metrics —
 * nearest neighbour, clusters, collisions — share one pass over a uniform
 * grid whose cells are at least as large as the cluster radius and the
 * collision distance: every pair closer than either lies in a 3x3 block.
 * Each agent scans its whole block for its nearest neighbour; pairs (i, j)
 * with j after i in cell order are also counted for collisions and linked in
 * a union-find, so that every unordered pair is seen once. An agent whose
 * nearest neighbour is not certainly inside its block widens the search ring
 * by ring until it is, so the mean nearest-neighbour distance is exact.
 *
 * All pair distances are computed the same way, in float: the shortest
 * displacement on a torus when wrapping, then dx² + dy². */
#include "sim/metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Union-find over agents in cell order, in one array: a root holds
 * ROOT_BIT | the size of its set, any other entry its parent's index. */
#define ROOT_BIT 0x80000000u

/* Cells are sized a hair above the radii, so that float rounding when agents
 * are binned can never put a pair closer than a radius two cells apart. */
#define CELL_MARGIN 1.0001f
/* A nearest neighbour counts as certainly found within a reach only a hair
 * under the geometric one, for the same reason. */
#define REACH_MARGIN 0.9999f

#define LANES METRICS_LANES

/* METRICS_LANES floats or 32-bit masks (GCC/Clang vector extensions), as in
 * neighbours.h: plain arithmetic on them compiles to SIMD instructions. They
 * never cross a call, so the ABI note about wide vectors does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float vf_t __attribute__((vector_size(LANES * sizeof(float))));
typedef int32_t vi_t __attribute__((vector_size(LANES * sizeof(int32_t))));
#define VINLINE static inline __attribute__((always_inline))

/* The pair pass is built for several x86-64 levels and picked at run time,
 * like the simulation's kernel; each version does the same IEEE operations,
 * so results do not depend on the machine. Sanitizer builds keep one. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define PASS_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef PASS_CLONES
#define PASS_CLONES
#endif

VINLINE vf_t vload(const float *p)
{
    vf_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* mask ? v : 0, bit by bit (a mask lane is all ones or all zeros). */
VINLINE vf_t vkeep(vi_t mask, vf_t v) { return (vf_t)((vi_t)v & mask); }

VINLINE vf_t vmin(vf_t a, vf_t b)
{
    vi_t lt = a < b;
    return (vf_t)(((vi_t)a & lt) | ((vi_t)b & ~lt));
}

VINLINE vi_t vload_i(const uint32_t *p)
{
    vi_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Bit l set for each set lane l of a mask. */
VINLINE uint32_t lane_bits(vi_t m)
{
    uint32_t bits = 0;
    for (int l = 0; l < LANES; l++) bits |= (uint32_t)m[l] & (1u << l);
    return bits;
}

VINLINE bool vany(vi_t m)
{
    int32_t r = 0;
    for (int l = 0; l < LANES; l++) r |= m[l];
    return r != 0;
}

/* Shortest displacement on a torus of the given extent (as the simulation
 * computes it); positions lie in [0, extent]. The vector form below does
 * the very same operations lane by lane. */
static inline float wrap_delta(float d, float extent)
{
    if (d > 0.5f * extent) return d - extent;
    if (d < -0.5f * extent) return d + extent;
    return d;
}

VINLINE vf_t vwrap_delta(vf_t d, float extent)
{
    const vf_t e = (vf_t){0} + extent;
    const float half = 0.5f * extent;
    return d - vkeep(d > half, e) + vkeep(d < -half, e);
}

static inline float dist2(float xi, float yi, float xj, float yj, bool wrap, float width, float height)
{
    float dx = xj - xi, dy = yj - yi;
    if (wrap) {
        dx = wrap_delta(dx, width);
        dy = wrap_delta(dy, height);
    }
    return dx * dx + dy * dy;
}

void metrics_init(metrics_state_t *s)
{
    grid_init(&s->grid);
    s->parent = NULL;
    s->x = s->y = NULL;
    s->cap = 0;
}

void metrics_free(metrics_state_t *s)
{
    grid_free(&s->grid);
    free(s->parent);
    free(s->x);
    free(s->y);
    metrics_init(s);
}

metrics_config_t metrics_default_config(const world_t *w)
{
    return (metrics_config_t){.cluster_radius = w->params.coh_radius, .collision_distance = 2.0f};
}

/* Root of i's set, halving the path on the way (a one-pass form of path
 * compression: every visited entry then points to its grandparent). */
static inline uint32_t uf_find(uint32_t *p, uint32_t i)
{
    for (;;) {
        uint32_t q = p[i];
        if (q & ROOT_BIT) return i;
        uint32_t r = p[q];
        if (r & ROOT_BIT) return q;
        p[i] = r;
        i = r;
    }
}

/* Joins two distinct roots, the smaller set under the larger; returns the
 * root of the union. */
static inline uint32_t uf_link(uint32_t *p, uint32_t a, uint32_t b)
{
    uint32_t sa = p[a] & ~ROOT_BIT, sb = p[b] & ~ROOT_BIT;
    if (sa < sb) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    p[b] = a;
    p[a] = ROOT_BIT | (sa + sb);
    return a;
}

typedef struct pass {
    const grid_t *g;
    const float *x, *y; /* positions in cell order, padded */
    uint32_t *parent;
    float width, height;
    float cluster2, collision2;
    float reach; /* the distance every 3x3 block certainly covers around its agents */
    uint64_t collisions;
    double nn_sum;
} pass_t;

/* Smallest squared distance from agent k (in cell order) to the agents of
 * cell (cx, cy), taken modulo the grid when wrapping; best2 if none is closer. */
static float scan_cell(const pass_t *ps, bool wrap, uint32_t k, int cx, int cy, float best2)
{
    const grid_t *g = ps->g;
    if (cx < 0 || cx >= g->nx) {
        if (!wrap) return best2;
        cx = ((cx % g->nx) + g->nx) % g->nx;
    }
    if (cy < 0 || cy >= g->ny) {
        if (!wrap) return best2;
        cy = ((cy % g->ny) + g->ny) % g->ny;
    }
    uint32_t c = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
    const float xi = ps->x[k], yi = ps->y[k];
    for (uint32_t j = g->cell_start[c]; j < g->cell_start[c + 1]; j++) {
        if (j == k) continue;
        float d2 = dist2(xi, yi, ps->x[j], ps->y[j], wrap, ps->width, ps->height);
        if (d2 < best2) best2 = d2;
    }
    return best2;
}

/* Agent k found nothing certainly nearest in its 3x3 block (rings 0 and 1):
 * scan rings 2, 3, … until the best distance so far is within the reach of
 * the rings scanned (nothing farther out can be closer) or the grid is
 * exhausted. */
static float widen(const pass_t *ps, bool wrap, uint32_t k, int cx, int cy, float best2)
{
    const grid_t *g = ps->g;
    int span = g->nx > g->ny ? g->nx : g->ny;
    int last = wrap ? span / 2 + 1 : span;
    for (int ring = 2; ring <= last; ring++) {
        float covered = (float)(ring - 1) * ps->reach;
        if (best2 <= covered * covered) break;
        for (int dy = -ring; dy <= ring; dy++) {
            int step = (dy == -ring || dy == ring) ? 1 : 2 * ring;
            for (int dx = -ring; dx <= ring; dx += step) best2 = scan_cell(ps, wrap, k, cx + dx, cy + dy, best2);
        }
    }
    return best2;
}

/* The pair pass over every cell: for each agent k, all candidates of its
 * block LANES at a time. Every lane other than k takes part in the nearest
 * neighbour; lanes after k (each unordered pair once) also count collisions
 * and link clusters. */
VINLINE void pair_pass_body(pass_t *ps, const bool wrap)
{
    const grid_t *g = ps->g;
    const float *x = ps->x, *y = ps->y;
    uint32_t *parent = ps->parent;
    const float reach2 = ps->reach * ps->reach;
    const float width = ps->width, height = ps->height;
    const float cluster2 = ps->cluster2, collision2 = ps->collision2;
    const uint32_t cells = (uint32_t)g->nx * (uint32_t)g->ny;
    const vf_t far = (vf_t){0} + INFINITY;
    vi_t lane;
    for (int l = 0; l < LANES; l++) lane[l] = l;
    uint64_t collisions = 0;
    double nn_sum = 0.0;

    for (uint32_t c = 0; c < cells; c++) {
        const uint32_t first = g->cell_start[c], last = g->cell_start[c + 1];
        if (first == last) continue;
        const int cx = (int)(c % (uint32_t)g->nx), cy = (int)(c / (uint32_t)g->nx);
        grid_run_t runs[GRID_MAX_RUNS];
        bool pair_wrap;
        /* Only the runs' ranges are used: displacements are taken modulo the
         * world for every pair, so the shifts do not matter. */
        const int n_runs = grid_runs(g, cx, cy, wrap, runs, &pair_wrap);
        for (uint32_t k = first; k < last; k++) {
            const float xi = x[k], yi = y[k];
            const vi_t self = (vi_t){0} + (int32_t)k;
            vf_t best = far;
            vi_t close = {0};
            uint32_t root = uf_find(parent, k);
            for (int r = 0; r < n_runs; r++) {
                const uint32_t end = runs[r].end;
                const vi_t inside = (vi_t){0} + (int32_t)end;
                for (uint32_t j0 = runs[r].begin; j0 < end; j0 += LANES) {
                    vf_t dx = vload(x + j0) - xi, dy = vload(y + j0) - yi;
                    if (wrap) {
                        dx = vwrap_delta(dx, width);
                        dy = vwrap_delta(dy, height);
                    }
                    const vf_t d2 = dx * dx + dy * dy;
                    const vi_t index = lane + (int32_t)j0;
                    const vi_t valid = index < inside;
                    best = vmin(best, (vf_t)(((vi_t)d2 & (valid & (index != self))) |
                                             ((vi_t)far & ~(valid & (index != self)))));
                    if (j0 + LANES <= k + 1) continue; /* no lane after k */
                    const vi_t after = valid & (index > self);
                    close -= after & (d2 < collision2);
                    vi_t link = after & (d2 < cluster2);
                    if (!vany(link)) continue;
                    /* Most linked agents are already in k's set as direct
                     * children of its root (or the root itself): skip
                     * those without a find. */
                    const vi_t root_v = (vi_t){0} + (int32_t)root;
                    link &= (vload_i(parent + j0) != root_v) & (index != root_v);
                    for (uint32_t bits = lane_bits(link); bits; bits &= bits - 1) {
                        uint32_t rj = uf_find(parent, j0 + (uint32_t)__builtin_ctz(bits));
                        if (rj != root) root = uf_link(parent, root, rj);
                    }
                }
            }
            float best2 = best[0];
            for (int l = 1; l < LANES; l++) best2 = best[l] < best2 ? best[l] : best2;
            for (int l = 0; l < LANES; l++) collisions += (uint32_t)close[l];
            if (!(best2 <= reach2)) best2 = widen(ps, wrap, k, cx, cy, best2);
            nn_sum += sqrt((double)best2);
        }
    }
    ps->collisions = collisions;
    ps->nn_sum = nn_sum;
}

PASS_CLONES
static void pair_pass(pass_t *ps, bool wrap)
{
    if (wrap)
        pair_pass_body(ps, true);
    else
        pair_pass_body(ps, false);
}

static int reserve(metrics_state_t *s, size_t n)
{
    if (n <= s->cap) return 0;
    if (n >= ROOT_BIT) return -1;
    uint32_t *parent = realloc(s->parent, (n + LANES) * sizeof *parent);
    if (!parent) return -1;
    s->parent = parent;
    float *x = realloc(s->x, (n + LANES) * sizeof *x);
    if (!x) return -1;
    s->x = x;
    float *y = realloc(s->y, (n + LANES) * sizeof *y);
    if (!y) return -1;
    s->y = y;
    s->cap = n;
    return 0;
}

static void headings(const world_t *w, metrics_t *m)
{
    const agents_t *a = &w->cur;
    const size_t n = w->n;
    double mx = 0.0, my = 0.0;
    for (size_t i = 0; i < n; i++) {
        mx += a->x[i];
        my += a->y[i];
    }
    /* The plain centroid: on a torus it is only approximate (a flock split
     * across the wrapped border has its centroid in the middle). */
    if (n) {
        mx /= (double)n;
        my /= (double)n;
    }
    double px = 0.0, py = 0.0, mill = 0.0;
    size_t moving = 0, turning = 0;
    for (size_t i = 0; i < n; i++) {
        double vx = a->vx[i], vy = a->vy[i];
        double speed = sqrt(vx * vx + vy * vy);
        if (!(speed > 0.0)) continue;
        px += vx / speed;
        py += vy / speed;
        moving++;
        double rx = a->x[i] - mx, ry = a->y[i] - my;
        double dist = sqrt(rx * rx + ry * ry);
        if (!(dist > 0.0)) continue;
        mill += (rx * vy - ry * vx) / (dist * speed);
        turning++;
    }
    m->polarization = moving ? sqrt(px * px + py * py) / (double)moving : 0.0;
    m->milling = turning ? fabs(mill) / (double)turning : 0.0;
}

/* Penetrations and clearance over the padded copies (pads are infinitely
 * far from every obstacle). */
static void obstacles(const world_t *w, const float *x, const float *y, size_t n, metrics_t *m)
{
    const bool wrap = w->params.border == BORDER_WRAP;
    uint32_t inside = 0;
    double clearance = NAN;
    for (size_t k = 0; k < w->n_obstacles && n; k++) {
        const obstacle_t *o = &w->obstacles[k];
        const float r2 = o->r * o->r;
        vf_t best = (vf_t){0} + INFINITY;
        vi_t in = {0};
        for (size_t i = 0; i < n; i += LANES) {
            vf_t dx = vload(x + i) - o->x, dy = vload(y + i) - o->y;
            if (wrap) {
                dx = vwrap_delta(dx, w->width);
                dy = vwrap_delta(dy, w->height);
            }
            const vf_t d2 = dx * dx + dy * dy;
            in -= d2 < r2;
            best = vmin(best, d2);
        }
        float best2 = best[0];
        for (int l = 0; l < LANES; l++) {
            best2 = best[l] < best2 ? best[l] : best2;
            inside += (uint32_t)in[l];
        }
        double c = sqrt((double)best2) - (double)o->r;
        if (isnan(clearance) || c < clearance) clearance = c;
    }
    m->penetrations = inside;
    m->min_clearance = clearance;
}

int metrics_compute(metrics_state_t *s, const world_t *w, const metrics_config_t *cfg, metrics_t *out)
{
    const size_t n = w->n;
    const bool wrap = w->params.border == BORDER_WRAP;
    /* Non-positive or NaN radii link nothing. */
    const float cluster = cfg->cluster_radius > 0.0f ? cfg->cluster_radius : 0.0f;
    const float collision = cfg->collision_distance > 0.0f ? cfg->collision_distance : 0.0f;

    if (n > 0) {
        /* Cells no smaller than the radii, and not much smaller than the
         * mean spacing either, which bounds the grid of a sparse world and
         * the rings a lone agent searches. */
        float cell = fmaxf(cluster, collision) * CELL_MARGIN;
        cell = fmaxf(cell, sqrtf(w->width * w->height / (float)n));
        if (grid_configure(&s->grid, w->width, w->height, cell) || grid_reserve(&s->grid, n) || reserve(s, n))
            return -1;
    }

    metrics_t m = {.tick = w->tick, .agents = n, .mean_nn_distance = NAN, .min_clearance = NAN};
    headings(w, &m);

    if (n > 0) {
        grid_t *g = &s->grid;
        grid_build(g, n, w->cur.x, w->cur.y);
        /* Positions in cell order: a block's candidates are then a few
         * contiguous runs. The pads lie infinitely far from everything. */
        for (size_t k = 0; k < n; k++) {
            s->x[k] = w->cur.x[g->order[k]];
            s->y[k] = w->cur.y[g->order[k]];
            s->parent[k] = ROOT_BIT | 1u;
        }
        for (size_t k = n; k < n + LANES; k++) {
            s->x[k] = s->y[k] = INFINITY;
            s->parent[k] = 0;
        }
        obstacles(w, s->x, s->y, n, &m);

        float cell_w = w->width / (float)g->nx, cell_h = w->height / (float)g->ny;
        pass_t ps = {
            .g = g,
            .x = s->x,
            .y = s->y,
            .parent = s->parent,
            .width = w->width,
            .height = w->height,
            .cluster2 = cluster * cluster,
            .collision2 = collision * collision,
            .reach = fminf(cell_w, cell_h) * REACH_MARGIN,
        };
        pair_pass(&ps, wrap);
        m.collisions = ps.collisions > UINT32_MAX ? UINT32_MAX : (uint32_t)ps.collisions;
        if (n >= 2) m.mean_nn_distance = ps.nn_sum / (double)n;
        uint32_t clusters = 0, largest = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t p = s->parent[k];
            if (!(p & ROOT_BIT)) continue;
            clusters++;
            uint32_t size = p & ~ROOT_BIT;
            largest = size > largest ? size : largest;
        }
        m.clusters = clusters;
        m.largest_cluster = largest;
    }
    *out = m;
    return 0;
}

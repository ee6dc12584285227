/* metrics: order parameters of the flock (see metrics.h).
 *
 * Polarization and milling are sums over the agents. The pair metrics come
 * from one pass over a uniform grid whose cells are a hair larger than the
 * link radius R (the larger of the cluster radius and the collision
 * distance), so that every pair closer than R lies in a 3x3 block; the
 * agents' positions are copied in the grid's cell order, so that a block is
 * at most six contiguous runs, scanned METRICS_LANES candidates at a time.
 *
 * Each agent k looks at the candidates after it in cell order in its block,
 * so that every unordered pair is seen once. A pair updates both agents'
 * nearest-neighbour distance; closer than the collision distance it is a
 * collision; closer than the cluster radius its two agents are joined in a
 * union-find (path halving, union by size). An agent whose nearest
 * neighbour lies beyond what its block certainly covers widens the search
 * ring by ring until nothing farther out can be closer, so the mean
 * nearest-neighbour distance is exact.
 *
 * Every distance is computed the same way, in float: the shortest
 * displacement on a torus when wrapping (as the simulation does), then
 * dx² + dy²; so the counts equal a brute-force scan's exactly. */
#include "sim/metrics.h"

#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/motion.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define VMIN(a, b) lanes_select((a) < (b), a, b)

/* Union-find over agents in cell order, in one array: a root holds
 * ROOT_BIT | the size of its set, any other entry its parent's index. */
#define ROOT_BIT 0x80000000u

/* Agents are binned with float arithmetic: x · (cells / width) may land an
 * agent up to about 1.2e-7 · cells of a cell away from where it lies. Block
 * sizes and reaches are widened or narrowed by a relative slack well above
 * that, so that no pair and no nearest neighbour is ever missed. */
static float binning_slack(double cells) { return (float)(1e-4 + 4e-7 * cells); }

/* Cells at least R wide need ±1 cell (an axis of a single cell, possibly
 * narrower, is one row or column): 3 rows, each split in two where it
 * wraps. A block that would need more is taken as the whole grid, which is
 * never wrong, only slower. */
#define MAX_BLOCK_RUNS 6

/* METRICS_LANES is the lanes of lanes.h. */
_Static_assert(METRICS_LANES == LANES, "metrics pads its arrays for LANES");

LANES_INLINE float hmin(const lanes_f *v)
{
    float m = (*v)[0];
    for (int l = 1; l < LANES; l++) m = (*v)[l] < m ? (*v)[l] : m;
    return m;
}

LANES_INLINE uint32_t hsum(const lanes_i *v)
{
    uint32_t sum = 0;
    for (int l = 0; l < LANES; l++) sum += (uint32_t)(*v)[l];
    return sum;
}

/* Bit l set for each set lane l of a mask: two SSE sign-bit masks on
 * x86-64 (SSE is always there), a loop elsewhere. */
LANES_INLINE uint32_t lane_bits(const lanes_i *m)
{
#if defined(__x86_64__) && defined(__SSE__) && LANES == 8
    typedef float v4f __attribute__((vector_size(16)));
    const v4f lo = __builtin_shufflevector((lanes_f)*m, (lanes_f)*m, 0, 1, 2, 3);
    const v4f hi = __builtin_shufflevector((lanes_f)*m, (lanes_f)*m, 4, 5, 6, 7);
    return (uint32_t)__builtin_ia32_movmskps(lo) | (uint32_t)__builtin_ia32_movmskps(hi) << 4;
#else
    uint32_t bits = 0;
    for (int l = 0; l < LANES; l++) bits |= (uint32_t)(*m)[l] & (1u << l);
    return bits;
#endif
}

LANES_INLINE void vwrap_delta(lanes_f *d, float extent)
{
    /* The very operations of motion_wrap_delta, lane by lane (adding or
     * subtracting 0 changes nothing). */
    const lanes_f e = (lanes_f){0} + extent;
    const float half = 0.5f * extent;
    *d = *d - lanes_keep(*d > half, e) + lanes_keep(*d < -half, e);
}

/* Squared distances from (xi, yi) to LANES positions from p. */
LANES_INLINE lanes_f vdist2(const float *px, const float *py, float xi, float yi, bool wrap, float width, float height)
{
    lanes_f dx = lanes_load(px) - xi, dy = lanes_load(py) - yi;
    if (wrap) {
        vwrap_delta(&dx, width);
        vwrap_delta(&dy, height);
    }
    return dx * dx + dy * dy;
}

static inline float dist2(float xi, float yi, float xj, float yj, bool wrap, float width, float height)
{
    float dx = xj - xi, dy = yj - yi;
    if (wrap) {
        dx = motion_wrap_delta(dx, width);
        dy = motion_wrap_delta(dy, height);
    }
    return dx * dx + dy * dy;
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

void metrics_init(metrics_state_t *s)
{
    grid_init(&s->grid);
    s->parent = NULL;
    s->x = s->y = s->nn2 = NULL;
    s->cap = 0;
}

void metrics_free(metrics_state_t *s)
{
    grid_free(&s->grid);
    free(s->parent);
    free(s->x);
    free(s->y);
    free(s->nn2);
    metrics_init(s);
}

metrics_config_t metrics_default_config(const world_t *w)
{
    const sim_params_t *p = &w->params;
    const bool olfati = p->model == MODEL_OLFATI1 || p->model == MODEL_OLFATI2 || p->model == MODEL_OLFATI3;
    return (metrics_config_t){.cluster_radius = olfati ? p->os_r : p->coh_radius, .collision_distance = 2.0f};
}

typedef struct run {
    uint32_t begin, end;
} run_t;

/* The cells within ±mx columns and ±my rows of (cx, cy) as runs of
 * consecutive agents in cell order: one per row, split in two where the row
 * wraps, the whole row when the block is as wide as a wrapped grid; runs
 * that touch are merged and empty ones dropped. Each cell appears once. */
LANES_INLINE int block_runs(const grid_t *g, int cx, int cy, int mx, int my, bool wrap, run_t runs[MAX_BLOCK_RUNS])
{
    const uint32_t *start = g->cell_start;
    const int nx = g->nx, ny = g->ny;
    int x0 = cx - mx, x1 = cx + mx, y0 = cy - my, y1 = cy + my;
    bool whole_rows = false;
    if (wrap) {
        whole_rows = 2 * mx + 1 >= nx;
        if (2 * my + 1 >= ny) y0 = 0, y1 = ny - 1;
    } else {
        if (x0 < 0) x0 = 0;
        if (x1 > nx - 1) x1 = nx - 1;
        if (y0 < 0) y0 = 0;
        if (y1 > ny - 1) y1 = ny - 1;
    }
    int count = 0;
    uint32_t pieces[2][2];
    for (int yy = y0; yy <= y1; yy++) {
        const int wrapped = yy < 0 ? yy + ny : (yy >= ny ? yy - ny : yy);
        const uint32_t *row = start + (size_t)wrapped * (size_t)nx;
        int n_pieces = 1;
        if (whole_rows) {
            pieces[0][0] = row[0], pieces[0][1] = row[nx];
        } else if (x0 < 0) {
            pieces[0][0] = row[nx + x0], pieces[0][1] = row[nx];
            pieces[1][0] = row[0], pieces[1][1] = row[x1 + 1];
            n_pieces = 2;
        } else if (x1 >= nx) {
            pieces[0][0] = row[x0], pieces[0][1] = row[nx];
            pieces[1][0] = row[0], pieces[1][1] = row[x1 - nx + 1];
            n_pieces = 2;
        } else {
            pieces[0][0] = row[x0], pieces[0][1] = row[x1 + 1];
        }
        for (int p = 0; p < n_pieces; p++) {
            if (pieces[p][0] == pieces[p][1]) continue;
            if (count && runs[count - 1].end == pieces[p][0]) {
                runs[count - 1].end = pieces[p][1];
            } else if (count < MAX_BLOCK_RUNS) {
                runs[count++] = (run_t){pieces[p][0], pieces[p][1]};
            } else {
                runs[0] = (run_t){start[0], start[(size_t)nx * (size_t)ny]};
                return 1;
            }
        }
    }
    return count;
}

typedef struct pass {
    const grid_t *g;
    const float *x, *y; /* positions in cell order, padded */
    uint32_t *parent;
    float *nn2; /* per agent, the smallest squared distance seen so far, padded */
    float width, height;
    float cluster2, collision2;
    int mx, my;  /* the block's half-size in cells */
    float reach; /* the distance a block certainly covers around its agents */
    float cell;  /* the smaller cell side */
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
    const uint32_t c = (uint32_t)cy * (uint32_t)g->nx + (uint32_t)cx;
    const float xi = ps->x[k], yi = ps->y[k];
    for (uint32_t j = g->cell_start[c]; j < g->cell_start[c + 1]; j++) {
        if (j == k) continue;
        float d2 = dist2(xi, yi, ps->x[j], ps->y[j], wrap, ps->width, ps->height);
        if (d2 < best2) best2 = d2;
    }
    return best2;
}

/* Agent k found nothing certainly nearest in its block: scan the rings of
 * cells around it beyond those the block fully covers, one by one, until
 * the best distance so far is within the reach of the rings scanned
 * (nothing farther out can be closer) or the grid is exhausted. */
static float widen(const pass_t *ps, bool wrap, uint32_t k, int cx, int cy, float best2)
{
    const grid_t *g = ps->g;
    const int span = g->nx > g->ny ? g->nx : g->ny;
    const int last = wrap ? span / 2 + 1 : span;
    for (int ring = (ps->mx < ps->my ? ps->mx : ps->my) + 1; ring <= last; ring++) {
        float covered = (float)(ring - 1) * ps->cell;
        if (best2 <= covered * covered) break;
        for (int dy = -ring; dy <= ring; dy++) {
            int step = (dy == -ring || dy == ring) ? 1 : 2 * ring;
            for (int dx = -ring; dx <= ring; dx += step) best2 = scan_cell(ps, wrap, k, cx + dx, cy + dy, best2);
        }
    }
    return best2;
}

/* The pair pass, for the agents [first, last) of one cell: each agent k
 * against the candidates after it in cell order within the cell's block,
 * LANES at a time, so that every unordered pair is seen once. A pair updates
 * both agents' nearest distance (the candidates' as a contiguous vector),
 * may count as a collision, and may join the two agents' sets. When the
 * pass leaves agent k, every pair with k has been seen: nn2[k] is final.
 * Returns the collisions. wrap: take displacements modulo the world; off
 * for a block that stays clear of a wrapped edge, where every displacement
 * is well under half the world and the modulo would change nothing. */
LANES_INLINE uint64_t cell_pairs(pass_t *ps, uint32_t first, uint32_t last, const run_t *runs, int n_runs, const bool wrap)
{
    const float *x = ps->x, *y = ps->y;
    uint32_t *parent = ps->parent;
    float *nn2 = ps->nn2;
    const float width = ps->width, height = ps->height, cluster2 = ps->cluster2, collision2 = ps->collision2;
    const lanes_f far = (lanes_f){0} + INFINITY;
    lanes_i lane;
    for (int l = 0; l < LANES; l++) lane[l] = l;
    uint64_t collisions = 0;
    for (uint32_t k = first; k < last; k++) {
        const float xi = x[k], yi = y[k];
        uint32_t root = uf_find(parent, k);
        lanes_f best = far;
        lanes_i close = {0}; /* per lane, under n / LANES: no overflow */
        for (int r = 0; r < n_runs; r++) {
            const uint32_t end = runs[r].end;
            const lanes_i limit = (lanes_i){0} + (int32_t)end;
            for (uint32_t j0 = runs[r].begin > k ? runs[r].begin : k + 1; j0 < end; j0 += LANES) {
                const lanes_f d2 = vdist2(x + j0, y + j0, xi, yi, wrap, width, height);
                const lanes_i valid = lane + (int32_t)j0 < limit;
                const lanes_f seen = lanes_select(valid, d2, far);
                best = VMIN(seen, best);
                lanes_f theirs = lanes_load(nn2 + j0);
                theirs = VMIN(seen, theirs);
                memcpy(nn2 + j0, &theirs, sizeof theirs);
                close -= valid & (d2 < collision2);
                lanes_i link = valid & (d2 < cluster2);
                /* Agents already in k's set as direct children of its root
                 * (or the root itself) need no find. */
                const lanes_i root_v = (lanes_i){0} + (int32_t)root;
                link &= (lanes_load_i(parent + j0) != root_v) & (lane + (int32_t)j0 != root_v);
                for (uint32_t bits = lane_bits(&link); bits; bits &= bits - 1) {
                    uint32_t rj = uf_find(parent, j0 + (uint32_t)__builtin_ctz(bits));
                    if (rj != root) root = uf_link(parent, root, rj);
                }
            }
        }
        collisions += hsum(&close);
        const float mine = hmin(&best);
        if (mine < nn2[k]) nn2[k] = mine;
    }
    return collisions;
}

LANES_INLINE void pair_pass_body(pass_t *ps, const bool wrap)
{
    const grid_t *g = ps->g;
    const int nx = g->nx, ny = g->ny, mx = ps->mx, my = ps->my;
    const float reach2 = ps->reach * ps->reach;
    /* Blocks of cells at least m from every edge stay clear of the wrapped
     * border when the grid is wide enough. */
    const bool wide = 2 * (mx + 1) < nx && 2 * (my + 1) < ny;
    uint64_t collisions = 0;
    for (uint32_t c = 0, cells = (uint32_t)nx * (uint32_t)ny; c < cells; c++) {
        const uint32_t first = g->cell_start[c], last = g->cell_start[c + 1];
        if (first == last) continue;
        const int cx = (int)(c % (uint32_t)nx), cy = (int)(c / (uint32_t)nx);
        run_t runs[MAX_BLOCK_RUNS];
        const int n_runs = block_runs(g, cx, cy, mx, my, wrap, runs);
        if (wrap && !(wide && cx >= mx && cx < nx - mx && cy >= my && cy < ny - my))
            collisions += cell_pairs(ps, first, last, runs, n_runs, true);
        else
            collisions += cell_pairs(ps, first, last, runs, n_runs, false);
        for (uint32_t k = first; k < last; k++)
            if (!(ps->nn2[k] <= reach2)) ps->nn2[k] = widen(ps, wrap, k, cx, cy, ps->nn2[k]);
    }
    ps->collisions = collisions;
}

/* Σ sqrt(v[i]) in double, four lanes at a time (SSE2's square root on
 * x86-64: the scalar one sets errno and so is never vectorized). */
LANES_INLINE double sum_sqrt(const float *v, size_t n)
{
    typedef double v2d __attribute__((vector_size(2 * sizeof(double))));
    typedef float v2f __attribute__((vector_size(2 * sizeof(float))));
    v2d lo = {0}, hi = {0};
    size_t i = 0;
#if defined(__x86_64__) && defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        v2f a, b;
        memcpy(&a, v + i, sizeof a);
        memcpy(&b, v + i + 2, sizeof b);
        lo += __builtin_ia32_sqrtpd(__builtin_convertvector(a, v2d));
        hi += __builtin_ia32_sqrtpd(__builtin_convertvector(b, v2d));
    }
#endif
    double sum = (lo[0] + lo[1]) + (hi[0] + hi[1]);
    for (; i < n; i++) sum += sqrt((double)v[i]);
    return sum;
}

KERNEL_CLONES
static void pair_pass(pass_t *ps, bool wrap, size_t n)
{
    if (wrap)
        pair_pass_body(ps, true);
    else
        pair_pass_body(ps, false);
    ps->nn_sum = sum_sqrt(ps->nn2, n);
}

/* Penetrations and clearance, over the padded copies (the pads lie
 * infinitely far from every obstacle). */
KERNEL_CLONES
static void obstacle_pass(const world_t *w, const float *x, const float *y, size_t n, metrics_t *m)
{
    const bool wrap = w->params.border == BORDER_WRAP;
    uint32_t inside = 0;
    double clearance = NAN;
    for (size_t k = 0; k < w->n_obstacles && n; k++) {
        const obstacle_t *o = &w->obstacles[k];
        const float r2 = o->r * o->r;
        lanes_f best = (lanes_f){0} + INFINITY;
        lanes_i in = {0};
        for (size_t i = 0; i < n; i += LANES) {
            /* The obstacle's displacement to each agent. */
            const lanes_f d2 = vdist2(x + i, y + i, o->x, o->y, wrap, w->width, w->height);
            in -= d2 < r2;
            best = VMIN(d2, best);
        }
        inside += hsum(&in);
        double c = sqrt((double)hmin(&best)) - (double)o->r;
        if (isnan(clearance) || c < clearance) clearance = c;
    }
    m->penetrations = inside;
    m->min_clearance = clearance;
}

/* Polarization and milling. Sums run in double, two lanes at a time with
 * SSE2 on x86-64 (whose square root, unlike the scalar one, vectorizes),
 * one at a time for the rest and elsewhere; the lanes are added in a fixed
 * order, so the result does not depend on the machine. */
KERNEL_CLONES
/* Seed 001 §5.4.2: agents that sway from side to side while moving turn
 * back and forth every tick. The mean absolute angle between each agent's
 * velocity before and after the last step, per second (a mill turns too,
 * at speed / radius, but steadily). The step leaves the velocities before
 * it in w->next at the same index; agents added since are left out, and
 * so are those standing still. */
static double oscillation(const world_t *w)
{
    const size_t n = w->stepped_n < w->n ? w->stepped_n : w->n;
    double sum = 0.0;
    size_t counted = 0;
    for (size_t i = 0; i < n; i++) {
        const double ax = w->next.vx[i], ay = w->next.vy[i], bx = w->cur.vx[i], by = w->cur.vy[i];
        if ((ax == 0.0 && ay == 0.0) || (bx == 0.0 && by == 0.0)) continue;
        sum += fabs(atan2(ax * by - ay * bx, ax * bx + ay * by));
        counted++;
    }
    return counted && w->dt > 0.0f ? sum / (double)counted / (double)w->dt : NAN;
}

static void headings(const world_t *w, metrics_t *m)
{
    typedef double v2d __attribute__((vector_size(2 * sizeof(double))));
    typedef int64_t v2l __attribute__((vector_size(2 * sizeof(int64_t))));
    typedef float v2f __attribute__((vector_size(2 * sizeof(float))));
    const agents_t *a = &w->cur;
    const size_t n = w->n;
    const size_t bulk = n & ~(size_t)1;
    size_t i;

    /* The plain centroid: on a torus it is only approximate (a flock split
     * across the wrapped border has its centroid in the middle). */
    v2d cx = {0}, cy = {0};
    for (i = 0; i < bulk; i += 2) {
        v2f x, y;
        memcpy(&x, a->x + i, sizeof x);
        memcpy(&y, a->y + i, sizeof y);
        cx += __builtin_convertvector(x, v2d);
        cy += __builtin_convertvector(y, v2d);
    }
    double mx = cx[0] + cx[1], my = cy[0] + cy[1];
    for (; i < n; i++) mx += a->x[i], my += a->y[i];
    if (n) {
        mx /= (double)n;
        my /= (double)n;
    }

    /* Agents standing still have no heading and are left out; so are those
     * at the centroid from milling. */
    v2d px = {0}, py = {0}, mill = {0};
    v2l moving = {0}, turning = {0};
    i = 0;
#if defined(__x86_64__) && defined(__SSE2__)
    const v2d one = {1.0, 1.0};
    for (; i < bulk; i += 2) {
        v2f fx, fy, fvx, fvy;
        memcpy(&fx, a->x + i, sizeof fx);
        memcpy(&fy, a->y + i, sizeof fy);
        memcpy(&fvx, a->vx + i, sizeof fvx);
        memcpy(&fvy, a->vy + i, sizeof fvy);
        const v2d vx = __builtin_convertvector(fvx, v2d), vy = __builtin_convertvector(fvy, v2d);
        const v2d rx = __builtin_convertvector(fx, v2d) - mx, ry = __builtin_convertvector(fy, v2d) - my;
        const v2d s2 = vx * vx + vy * vy, r2 = rx * rx + ry * ry;
        const v2l go = s2 > 0.0, turn = go & (r2 > 0.0);
        const v2d inv = one / __builtin_ia32_sqrtpd(s2);
        const v2d spin = (rx * vy - ry * vx) / __builtin_ia32_sqrtpd(r2 * s2);
        px += (v2d)((v2l)(vx * inv) & go);
        py += (v2d)((v2l)(vy * inv) & go);
        mill += (v2d)((v2l)spin & turn);
        moving -= go;
        turning -= turn;
    }
#endif
    double sx = px[0] + px[1], sy = py[0] + py[1], spin = mill[0] + mill[1];
    size_t n_moving = (size_t)(moving[0] + moving[1]), n_turning = (size_t)(turning[0] + turning[1]);
    for (; i < n; i++) {
        const double vx = a->vx[i], vy = a->vy[i], rx = a->x[i] - mx, ry = a->y[i] - my;
        const double s2 = vx * vx + vy * vy, r2 = rx * rx + ry * ry;
        if (!(s2 > 0.0)) continue;
        const double inv = 1.0 / sqrt(s2);
        sx += vx * inv;
        sy += vy * inv;
        n_moving++;
        if (!(r2 > 0.0)) continue;
        spin += (rx * vy - ry * vx) / sqrt(r2 * s2);
        n_turning++;
    }
    m->polarization = n_moving ? sqrt(sx * sx + sy * sy) / (double)n_moving : 0.0;
    m->milling = n_turning ? fabs(spin) / (double)n_turning : 0.0;
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
    float *nn2 = realloc(s->nn2, (n + LANES) * sizeof *nn2);
    if (!nn2) return -1;
    s->nn2 = nn2;
    s->cap = n;
    return 0;
}

/* Candidate pairs the pair pass would look at: each agent against the
 * rest of its block (an upper bound of twice the unordered pairs). O(cells). */
static uint64_t candidate_pairs(const pass_t *ps, bool wrap)
{
    const grid_t *g = ps->g;
    uint64_t pairs = 0;
    for (uint32_t c = 0, cells = (uint32_t)g->nx * (uint32_t)g->ny; c < cells; c++) {
        const uint32_t in_cell = g->cell_start[c + 1] - g->cell_start[c];
        if (!in_cell) continue;
        run_t runs[MAX_BLOCK_RUNS];
        const int n_runs = block_runs(g, (int)(c % (uint32_t)g->nx), (int)(c / (uint32_t)g->nx), ps->mx, ps->my, wrap, runs);
        uint64_t block = 0;
        for (int r = 0; r < n_runs; r++) block += runs[r].end - runs[r].begin;
        pairs += (uint64_t)in_cell * block;
    }
    return pairs;
}

/* Cells needed on an axis so that ±cells of them span at least reach. */
static int cells_for(float reach, float cell)
{
    int m = 1;
    while ((float)m * cell < reach && m < 1 << 20) m++;
    return m;
}

int metrics_compute(metrics_state_t *s, const world_t *w, const metrics_config_t *cfg, metrics_t *out)
{
    const size_t n = w->n;
    const bool wrap = w->params.border == BORDER_WRAP;
    /* Non-positive or NaN radii link nothing. */
    const float cluster = cfg->cluster_radius > 0.0f ? cfg->cluster_radius : 0.0f;
    const float collision = cfg->collision_distance > 0.0f ? cfg->collision_distance : 0.0f;
    const float link = fmaxf(cluster, collision);

    if (n > 0) {
        /* Cells a hair larger than the link radius, so that linked pairs lie
         * in 3x3 blocks, but not much under the mean spacing either, which
         * bounds the grid of a sparse world and the rings a lone agent
         * searches. */
        float cell = sqrtf(w->width * w->height / (float)n);
        if (link > 0.0f)
            cell = fmaxf(cell, link * (1.0f + 2.0f * binning_slack(fmax(w->width, w->height) / (double)link)));
        if (grid_configure(&s->grid, w->width, w->height, cell) || grid_reserve(&s->grid, n) || reserve(s, n))
            return -1;
    }

    metrics_t m = {.tick = w->tick, .agents = n, .mean_nn_distance = NAN, .min_clearance = NAN};
    headings(w, &m);
    m.oscillation = oscillation(w);
    if (n > 0) {
        grid_t *g = &s->grid;
        grid_build(g, n, w->cur.x, w->cur.y);
        /* Positions in cell order: a block's candidates are then a few
         * contiguous runs. The pads lie infinitely far from everything. */
        for (size_t k = 0; k < n; k++) {
            s->x[k] = w->cur.x[g->order[k]];
            s->y[k] = w->cur.y[g->order[k]];
            s->parent[k] = ROOT_BIT | 1u;
            s->nn2[k] = INFINITY;
        }
        for (size_t k = n; k < n + LANES; k++) {
            s->x[k] = s->y[k] = s->nn2[k] = INFINITY;
            s->parent[k] = 0;
        }
        obstacle_pass(w, s->x, s->y, n, &m);

        const float cell_w = w->width / (float)g->nx, cell_h = w->height / (float)g->ny;
        const float slack = binning_slack(g->nx > g->ny ? g->nx : g->ny);
        pass_t ps = {
            .g = g,
            .x = s->x,
            .y = s->y,
            .parent = s->parent,
            .nn2 = s->nn2,
            .width = w->width,
            .height = w->height,
            .cluster2 = cluster * cluster,
            .collision2 = collision * collision,
            /* 1: the cells were sized with twice the slack. */
            .mx = cells_for(link * (1.0f + slack), cell_w),
            .my = cells_for(link * (1.0f + slack), cell_h),
            .cell = fminf(cell_w, cell_h) * (1.0f - slack),
        };
        ps.reach = fminf((float)ps.mx * cell_w, (float)ps.my * cell_h) * (1.0f - slack);
        if (cfg->max_pairs && candidate_pairs(&ps, wrap) > cfg->max_pairs) {
            m.pairs_skipped = true;
            *out = m;
            return 0;
        }
        pair_pass(&ps, wrap, n);
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

#include "sim/motion.h"

#include <math.h>

#include "sim/clones.h"
#include "sim/escape.h"
#include "sim/prng_lanes.h"

_Static_assert(SIM_MAX_OBSTACLES % LANES == 0 && SIM_MAX_PREDATORS % LANES == 0, "the places are whole vectors");

/* The shortest displacement on a torus, lane by lane: motion_wrap_delta's
 * operations. */
LANES_INLINE lanes_f wrap_lanes(lanes_f d, float extent)
{
    const lanes_f e = (lanes_f){0} + extent;
    return lanes_select(d > 0.5f * e, d - e, lanes_select(d < -0.5f * e, d + e, d));
}

void motion_copy_places(world_t *w)
{
    step_places_t *op = &w->places;
    for (size_t k = 0; k < SIM_MAX_OBSTACLES; k++) {
        const bool there = k < w->n_obstacles;
        op->x[k] = there ? w->obstacles[k].x : NAN;
        op->y[k] = there ? w->obstacles[k].y : NAN;
        op->r[k] = there ? w->obstacles[k].r : NAN;
    }
    op->n = w->n_obstacles;
    for (size_t k = 0; k < SIM_MAX_PREDATORS; k++) {
        const bool there = k < w->n_predators;
        op->pred_x[k] = there ? w->predators[k].x : NAN;
        op->pred_y[k] = there ? w->predators[k].y : NAN;
        op->pred_vx[k] = there ? w->predators[k].vx : NAN;
        op->pred_vy[k] = there ? w->predators[k].vy : NAN;
    }
    op->n_predators = w->n_predators;
    op->valid = true;
}

/* What motion_avoid's test of each obstacle (below) finds for eight
 * obstacles at once, with the same operations: which may steer (in reach,
 * and either the agent is inside its buffer or the path enters it within
 * the look-ahead), and for them the displacement, its square and the hit.
 * The order-dependent part (the nearest hit, the last buffer the agent is
 * inside) is left to the caller, obstacle by obstacle in table order. */
typedef struct avoid_lanes {
    lanes_f dx, dy, d2, t_hit;
    lanes_i inside, steers;
} avoid_lanes_t;

LANES_INLINE avoid_lanes_t avoid_test_lanes(const world_t *w, size_t base, float px, float py, float ux, float uy,
                                            float look)
{
    const step_places_t *op = &w->places;
    const lanes_f zero = {0};
    avoid_lanes_t a;
    const lanes_f R = lanes_load(op->r + base) + w->params.obstacle_buffer;
    a.d2 = motion_d2_lanes(w, lanes_load(op->x + base), lanes_load(op->y + base), zero + px, zero + py, &a.dx, &a.dy);
    const lanes_f reach = R + look;
    const lanes_i in_reach = a.d2 <= reach * reach;
    a.inside = in_reach & (a.d2 < R * R);
    const lanes_f along = a.dx * ux + a.dy * uy, perp2 = a.d2 - along * along;
    const lanes_i enters = (along > 0.0f) & (perp2 < R * R);
    a.t_hit = along - lanes_sqrt(lanes_select(enters, R * R - perp2, zero));
    a.steers = a.inside | (in_reach & enters & (a.t_hit <= look));
    return a;
}

/* motion_avoid during a step, eight obstacles at a time over their places,
 * with the answer of the look one by one (below), which takes the
 * obstacles in table order: an obstacle whose buffer holds the agent sets
 * the steer straight out and the best hit time to 0, whatever came before;
 * any other that steers sets the steer when its hit is strictly sooner
 * than the best so far. So the last obstacle holding the agent, L, decides
 * unless one after it hits sooner than 0; without one, the soonest hit
 * does, the first in table order among equal ones. Each lane keeps the
 * soonest hit it saw after the last holder (strictly sooner: the first
 * among equal ones), and the lanes' soonest (the lowest index among
 * equals) is the table's. A crowd among obstacles has many lanes steering
 * at once, and this costs the same for one or all eight. */
KERNEL_CLONES
static bool avoid_by_lanes(const world_t *w, float px, float py, float speed, float vx, float vy, vec2 *out)
{
    const sim_params_t *p = &w->params;
    const float ux = vx / speed, uy = vy / speed, look = speed * p->avoid_lookahead;
    const lanes_f infinite = (lanes_f){0} + INFINITY;
    lanes_f best_t = infinite, best_dx = {0}, best_dy = {0};
    lanes_i best_k = (lanes_i){0} - 1, k = {0, 1, 2, 3, 4, 5, 6, 7};
    long holder = -1; /* the last obstacle whose buffer holds the agent */
    float holder_dx = 0.0f, holder_dy = 0.0f, holder_d2 = 0.0f;
    for (size_t base = 0; base < w->places.n; base += LANES, k += LANES) {
        const avoid_lanes_t a = avoid_test_lanes(w, base, px, py, ux, uy, look);
        if (!lanes_any(a.steers)) continue;
        lanes_i after = a.steers & ~a.inside;
        if (lanes_any(a.inside)) { /* it overrides every obstacle before it */
            int l = LANES - 1;
            while (!a.inside[l]) l--;
            holder = (long)(base + (size_t)l);
            holder_dx = a.dx[l], holder_dy = a.dy[l], holder_d2 = a.d2[l];
            best_t = infinite, best_k = (lanes_i){0} - 1;
            after &= k > (int32_t)holder;
        }
        const lanes_i sooner = after & (a.t_hit < best_t);
        best_t = lanes_select(sooner, a.t_hit, best_t);
        best_dx = lanes_select(sooner, a.dx, best_dx);
        best_dy = lanes_select(sooner, a.dy, best_dy);
        best_k = (sooner & k) | (~sooner & best_k);
    }
    int win = -1; /* the lane with the soonest hit after the holder */
    for (int l = 0; l < LANES; l++)
        if (best_k[l] >= 0 &&
            (win < 0 || best_t[l] < best_t[win] || (best_t[l] == best_t[win] && best_k[l] < best_k[win])))
            win = l;
    const float threshold = holder >= 0 ? 0.0f : INFINITY;
    float sx, sy;
    if (win >= 0 && best_t[win] < threshold) {
        const float t_hit = best_t[win], dx = best_dx[win], dy = best_dy[win];
        float hx = ux * t_hit - dx, hy = uy * t_hit - dy;
        float lateral = hx * -uy + hy * ux;
        if (lateral == 0.0f) lateral = 1.0f;
        float side = lateral > 0.0f ? 1.0f : -1.0f;
        sx = -uy * side;
        sy = ux * side;
    } else if (holder >= 0) { /* straight out */
        float d = sqrtf(holder_d2);
        sx = d > 0.0f ? -holder_dx / d : -uy;
        sy = d > 0.0f ? -holder_dy / d : ux;
    } else {
        return false;
    }
    *out = (vec2){sx * p->max_force, sy * p->max_force};
    return true;
}

bool motion_avoid(const world_t *w, float px, float py, float vx, float vy, vec2 *out)
{
    const sim_params_t *p = &w->params;
    float speed = sqrtf(vx * vx + vy * vy);
    if (!(speed > 0.0f) || w->n_obstacles == 0) return false;
    if (w->places.valid) return avoid_by_lanes(w, px, py, speed, vx, vy, out);
    float ux = vx / speed, uy = vy / speed;
    float look = speed * p->avoid_lookahead;
    bool wrap = p->border == BORDER_WRAP;
    float best_t = INFINITY, sx = 0.0f, sy = 0.0f;
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        float R = o->r + p->obstacle_buffer;
        float dx = o->x - px, dy = o->y - py;
        if (wrap) {
            dx = motion_wrap_delta(dx, w->width);
            dy = motion_wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        float reach = R + look;
        if (d2 > reach * reach) continue;
        if (d2 < R * R) { /* already inside the buffer: straight out */
            float d = sqrtf(d2);
            best_t = 0.0f; /* nothing is more urgent */
            sx = d > 0.0f ? -dx / d : -uy;
            sy = d > 0.0f ? -dy / d : ux;
            continue;
        }
        float along = dx * ux + dy * uy;  /* distance ahead to the closest approach */
        float perp2 = d2 - along * along; /* squared miss distance */
        if (along <= 0.0f || perp2 >= R * R) continue;
        float t_hit = along - sqrtf(R * R - perp2);
        if (t_hit > look || t_hit >= best_t) continue;
        best_t = t_hit;
        /* Outward normal at h = p + û·t_hit, then its lateral part. */
        float hx = ux * t_hit - dx, hy = uy * t_hit - dy;
        float lateral = hx * -uy + hy * ux; /* component along the left perpendicular */
        if (lateral == 0.0f) lateral = 1.0f; /* dead centre: pass on the left */
        float side = lateral > 0.0f ? 1.0f : -1.0f;
        sx = -uy * side;
        sy = ux * side;
    }
    if (best_t == INFINITY) return false;
    *out = (vec2){sx * p->max_force, sy * p->max_force};
    return true;
}

/* What one obstacle is to eight agents (avoid_by_agents): the tests of
 * motion_avoid's loop that do not depend on what earlier obstacles did. */
typedef struct avoid_sight {
    lanes_f dx, dy, along, perp2;
    float R;
    lanes_i inside, enters;
} avoid_sight_t;

LANES_INLINE avoid_sight_t avoid_sight(const world_t *w, size_t m, bool wrap, lanes_i live, lanes_f px, lanes_f py,
                                       lanes_f ux, lanes_f uy, lanes_f look)
{
    const step_places_t *op = &w->places;
    avoid_sight_t s;
    s.R = op->r[m] + w->params.obstacle_buffer;
    s.dx = op->x[m] - px, s.dy = op->y[m] - py;
    if (wrap) s.dx = wrap_lanes(s.dx, w->width), s.dy = wrap_lanes(s.dy, w->height);
    const lanes_f d2 = s.dx * s.dx + s.dy * s.dy, reach = s.R + look;
    const lanes_i near = live & ~(d2 > reach * reach);
    s.inside = near & (d2 < s.R * s.R);
    s.along = s.dx * ux + s.dy * uy, s.perp2 = d2 - s.along * s.along;
    s.enters = near & ~s.inside & ~((s.along <= 0.0f) | (s.perp2 >= s.R * s.R));
    return s;
}

/* The state motion_avoid's loop carries from obstacle to obstacle, per lane. */
typedef struct avoid_state {
    lanes_f best_t, sx, sy;
    lanes_i out;    /* the decider is a buffer holding the agent: straight out of it */
    lanes_i holder; /* the last obstacle whose buffer holds the agent */
} avoid_state_t;

/* An obstacle whose buffer holds the agent: nothing is more urgent. */
LANES_INLINE void avoid_inside(avoid_state_t *st, const avoid_sight_t *s, size_t m)
{
    st->best_t = lanes_keep(~s->inside, st->best_t);
    st->holder = (s->inside & ((lanes_i){0} + (int32_t)m)) | (~s->inside & st->holder);
    st->out |= s->inside;
}

/* An obstacle the path enters: it steers where it is hit sooner than the
 * best so far, round its side (dead centre: pass on the left). */
LANES_INLINE void avoid_hit(avoid_state_t *st, const avoid_sight_t *s, lanes_f ux, lanes_f uy, lanes_f look)
{
    if (!lanes_any(s->enters)) return;
    const lanes_f zero = {0}, one = zero + 1.0f;
    const lanes_f t_hit = s->along - lanes_sqrt(lanes_select(s->enters, s->R * s->R - s->perp2, zero));
    const lanes_i hit = s->enters & ~((t_hit > look) | (t_hit >= st->best_t));
    if (!lanes_any(hit)) return;
    st->best_t = lanes_select(hit, t_hit, st->best_t);
    const lanes_f hx = ux * t_hit - s->dx, hy = uy * t_hit - s->dy;
    lanes_f lateral = hx * -uy + hy * ux;
    lateral = lanes_select(lateral == 0.0f, one, lateral);
    const lanes_f side = lanes_select(lateral > 0.0f, one, zero - 1.0f);
    st->sx = lanes_select(hit, -uy * side, st->sx), st->sy = lanes_select(hit, ux * side, st->sy);
    st->out &= ~hit;
}

/* motion_avoid for eight agents at once, one per lane, during a step: each
 * lane does its agent's look one by one (motion_avoid's loop, obstacles in
 * table order), so its answer is the same bits. A crowd among 64
 * obstacles keeps every lane busy at every obstacle, so this costs about
 * an eighth of the looks agent by agent. Obstacles are seen two at a
 * time: in a crowd inside them all no path enters one, and a pair needs
 * one test of that. The steer straight out of the buffer that decides is
 * computed once at the end, from that obstacle's displacement computed
 * again by the same operations. */
KERNEL_CLONES
static void avoid_by_agents(const world_t *w, int count, const float pxs[LANES], const float pys[LANES],
                            const float vxs[LANES], const float vys[LANES], float sxs[LANES], float sys[LANES],
                            int32_t steers[LANES])
{
    const sim_params_t *p = &w->params;
    const step_places_t *op = &w->places;
    const bool wrap = p->border == BORDER_WRAP;
    const lanes_i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    const lanes_f zero = {0}, one = zero + 1.0f;
    const lanes_f px = lanes_load(pxs), py = lanes_load(pys), vx = lanes_load(vxs), vy = lanes_load(vys);
    const lanes_f speed = lanes_sqrt(vx * vx + vy * vy);
    const lanes_i live = (lane < count) & (speed > 0.0f);
    const lanes_f ux = vx / speed, uy = vy / speed, look = speed * p->avoid_lookahead;
    avoid_state_t st = {.best_t = zero + INFINITY, .sx = zero, .sy = zero, .out = {0}, .holder = {0}};
    size_t m = 0;
    for (; m + 1 < op->n; m += 2) {
        const avoid_sight_t a = avoid_sight(w, m, wrap, live, px, py, ux, uy, look);
        const avoid_sight_t b = avoid_sight(w, m + 1, wrap, live, px, py, ux, uy, look);
        avoid_inside(&st, &a, m);
        if (lanes_any(a.enters | b.enters)) {
            avoid_hit(&st, &a, ux, uy, look);
            avoid_inside(&st, &b, m + 1);
            avoid_hit(&st, &b, ux, uy, look);
        } else {
            avoid_inside(&st, &b, m + 1);
        }
    }
    if (m < op->n) {
        const avoid_sight_t a = avoid_sight(w, m, wrap, live, px, py, ux, uy, look);
        avoid_inside(&st, &a, m);
        avoid_hit(&st, &a, ux, uy, look);
    }
    /* Straight out of the holder that decides, from its displacement. */
    lanes_f hx = zero, hy = zero;
    for (int k = 0; k < LANES; k++) hx[k] = op->x[st.holder[k]], hy[k] = op->y[st.holder[k]];
    lanes_f out_dx = hx - px, out_dy = hy - py;
    if (wrap) out_dx = wrap_lanes(out_dx, w->width), out_dy = wrap_lanes(out_dy, w->height);
    const lanes_f d = lanes_sqrt(lanes_keep(st.out, out_dx * out_dx + out_dy * out_dy));
    const lanes_i away = d > 0.0f;
    const lanes_f safe_d = lanes_select(away, d, one);
    const lanes_f sx = lanes_select(st.out, lanes_select(away, -out_dx / safe_d, -uy), st.sx);
    const lanes_f sy = lanes_select(st.out, lanes_select(away, -out_dy / safe_d, ux), st.sy);
    const lanes_i some = live & (st.best_t != INFINITY);
    lanes_store(sxs, lanes_keep(some, sx * p->max_force));
    lanes_store(sys, lanes_keep(some, sy * p->max_force));
    memcpy(steers, &some, sizeof some);
}

void motion_avoid_agents(const world_t *w, int count, const float px[LANES], const float py[LANES],
                         const float vx[LANES], const float vy[LANES], float sx[LANES], float sy[LANES],
                         int32_t steers[LANES])
{
    if (w->places.valid && w->n_obstacles) {
        avoid_by_agents(w, count, px, py, vx, vy, sx, sy, steers);
        return;
    }
    for (int k = 0; k < LANES; k++) {
        vec2 s = {0.0f, 0.0f};
        steers[k] = k < count && motion_avoid(w, px[k], py[k], vx[k], vy[k], &s) ? -1 : 0;
        sx[k] = s.x, sy[k] = s.y;
    }
}

/* Outside a step (no places copied): the scan one by one. */
static long nearest_target_scan_one_by_one(const world_t *w, float px, float py)
{
    bool wrap = w->params.border == BORDER_WRAP;
    float best = INFINITY;
    long found = -1;
    for (size_t k = 0; k < w->n_targets; k++) {
        float dx = w->targets[k].x - px, dy = w->targets[k].y - py;
        if (wrap) {
            dx = motion_wrap_delta(dx, w->width);
            dy = motion_wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        if (d2 < best) best = d2, found = (long)k;
    }
    return found;
}

/* The scan, eight targets at a time: each lane keeps the nearest of its
 * targets (strictly nearer wins, so the first of equals), then the lanes'
 * least (the lowest index among equals) is the table's first nearest —
 * what a scan one by one finds, with its displacement computed again by
 * the same operations. */
KERNEL_CLONES
static long nearest_target_scan(const world_t *w, float px, float py)
{
    const lanes_f zero = {0};
    lanes_f best = zero + INFINITY;
    lanes_i best_k = (lanes_i){0} - 1;
    const target_index_t *t = &w->target_index; /* its places: padded with NaN, which is never nearest */
    const bool wrap = motion_targets_wrap(w, px, px, py, py);
    lanes_i k = {0, 1, 2, 3, 4, 5, 6, 7};
    for (size_t base = 0; base < t->n_places; base += LANES, k += LANES) {
        lanes_f dx, dy;
        const lanes_f d2 = motion_d2_lanes_wrapping(w, wrap, lanes_load(t->xs + base), lanes_load(t->ys + base),
                                                    zero + px, zero + py, &dx, &dy);
        const lanes_i closer = d2 < best;
        best = lanes_select(closer, d2, best);
        best_k = (closer & k) | (~closer & best_k);
    }
    long found = -1;
    float least = INFINITY;
    for (int l = 0; l < LANES; l++)
        if (best_k[l] >= 0 && (best[l] < least || (best[l] == least && best_k[l] < found)))
            least = best[l], found = best_k[l];
    return found;
}

/* One target's step of a scan chain (below): strictly nearer replaces,
 * and the chain keeps the round it was met in. The target's place is
 * broadcast as it is, not as 0 + x (the displacement's operations, which
 * turn −0 into +0): that changes only the sign of a zero difference,
 * never its square, so never the distance compared. */
LANES_INLINE void scan_chain_step(const world_t *w, bool wrap, lanes_f px, lanes_f py, const target_t *t,
                                  lanes_i round, lanes_f *best, lanes_i *best_round)
{
    const float x = t->x, y = t->y;
    lanes_f dx, dy;
    const lanes_f d2 =
        motion_d2_lanes_wrapping(w, wrap, (lanes_f){x, x, x, x, x, x, x, x}, (lanes_f){y, y, y, y, y, y, y, y}, px, py,
                                 &dx, &dy);
    const lanes_i closer = d2 < *best;
    *best = lanes_select(closer, d2, *best);
    *best_round = (closer & round) | (~closer & *best_round);
}

/* Chain b's first nearest replaces chain a's where it is nearer, or as
 * near with a lower index (−1: none). */
LANES_INLINE void scan_chain_merge(lanes_f *best_a, lanes_i *k_a, lanes_f best_b, lanes_i k_b)
{
    const lanes_i takes = (best_b < *best_a) | ((best_b == *best_a) & (k_b >= 0) & ((k_b < *k_a) | (*k_a < 0)));
    *best_a = lanes_select(takes, best_b, *best_a);
    *k_a = (takes & k_b) | (~takes & *k_a);
}

/* The scan one by one for eight points, one per lane: each lane's first
 * nearest target (the lowest index among equally near ones), or −1. The
 * one-by-one scan's "strictly nearer replaces" is a chain of dependent
 * compares, one target after another; here four chains run side by side,
 * chain c over targets 4·round + c, each keeping its first nearest, and
 * are merged by distance, then by index: the same target. Inlined with
 * wrap a constant, so that the loop has no branch. */
LANES_INLINE lanes_i nearest_targets_scan(const world_t *w, bool wrap, lanes_f px, lanes_f py)
{
    const target_t *t = w->targets;
    const size_t n = w->n_targets;
    const lanes_f none = (lanes_f){0} + INFINITY;
    const lanes_i no_round = (lanes_i){0} - 1, one = no_round * no_round;
    lanes_f b0 = none, b1 = none, b2 = none, b3 = none;
    lanes_i r0 = no_round, r1 = no_round, r2 = no_round, r3 = no_round, round = {0};
    size_t k = 0;
    for (; k + 4 <= n; k += 4, round += one) {
        scan_chain_step(w, wrap, px, py, &t[k], round, &b0, &r0);
        scan_chain_step(w, wrap, px, py, &t[k + 1], round, &b1, &r1);
        scan_chain_step(w, wrap, px, py, &t[k + 2], round, &b2, &r2);
        scan_chain_step(w, wrap, px, py, &t[k + 3], round, &b3, &r3);
    }
    /* Rounds to indices (none stays −1). */
    const lanes_i four = one << 2;
    lanes_i k0 = (r0 >= 0) & (r0 * four), k1 = (r1 >= 0) & (r1 * four + one);
    lanes_i k2 = (r2 >= 0) & (r2 * four + 2 * one), k3 = (r3 >= 0) & (r3 * four + 3 * one);
    k0 |= r0 < 0, k1 |= r1 < 0, k2 |= r2 < 0, k3 |= r3 < 0;
    for (; k < n; k++) /* the rest in chain 0, whose indices stay ascending */
        scan_chain_step(w, wrap, px, py, &t[k], (lanes_i){0} + (int32_t)k, &b0, &k0);
    scan_chain_merge(&b0, &k0, b1, k1);
    scan_chain_merge(&b2, &k2, b3, k3);
    scan_chain_merge(&b0, &k0, b2, k2);
    return k0;
}

/* After the index gives up on a batch, this thread's next batches of the
 * same build scan at once, but for one in INDEX_RETRY, which tries the
 * index again: targets round a crowd make every look-up give up, after
 * spending its budget (about 10 ns an agent in the calibration's crowd).
 * The answer is the same either way; only its cost depends on this. */
#define INDEX_RETRY 16

typedef struct index_memo {
    const target_index_t *index;
    uint64_t build;
    unsigned skip; /* batches left to scan without asking */
} index_memo_t;

static _Thread_local index_memo_t index_memo;

/* motion_nearest_target for eight points, one per lane: the displacement
 * to each one's nearest target, the same bits. found: lanes that have one. */
KERNEL_CLONES
static void nearest_targets_by_agents(const world_t *w, const float xs[LANES], const float ys[LANES],
                                      float txs[LANES], float tys[LANES], int32_t founds[LANES], int32_t which[LANES])
{
    const lanes_f zero = {0}, px = lanes_load(xs), py = lanes_load(ys);
    lanes_f best = zero + INFINITY, bx = zero, by = zero;
    lanes_i bk = (lanes_i){0} - 1; /* the target's index, −1 for none */
    /* Many targets: each lane asks the index (target_index.h), which
     * answers as the scan would, while the lanes' look-ups one by one
     * cost less than the scan's vectors. */
    const target_index_t *t = &w->target_index;
    bool indexed = t->valid;
    index_memo_t *memo = &index_memo;
    const bool same_build = memo->index == t && memo->build == t->builds;
    if (indexed && same_build && memo->skip > 0) memo->skip--, indexed = false;
    for (int k = 0; k < LANES && indexed; k++) indexed = target_index_covers(t, px[k], py[k]);
    size_t budget = w->n_targets / 8 + LANES;
    for (int k = 0; k < LANES && indexed; k++) {
        float dx, dy;
        const long nearest = target_index_nearest(t, w->targets, px[k], py[k], &dx, &dy, &budget);
        if (nearest >= 0) best[k] = 0.0f, bx[k] = dx, by[k] = dy, bk[k] = (int32_t)nearest;
        indexed = nearest != TARGET_INDEX_GAVE_UP;
        if (!indexed) *memo = (index_memo_t){t, t->builds, INDEX_RETRY - 1};
    }
    if (!indexed) best = zero + INFINITY, bx = by = zero, bk = (lanes_i){0} - 1;
    /* The lanes' box: wrapping is rare. Compares, not fminf and fmaxf
     * (library calls here): a NaN place leaves a NaN box, which only asks
     * for the wrapped difference, the right one in any case. */
    float x0 = px[0], x1 = px[0], y0 = py[0], y1 = py[0];
    for (int k = 1; k < LANES; k++) {
        x0 = px[k] < x0 ? px[k] : x0, x1 = px[k] > x1 ? px[k] : x1;
        y0 = py[k] < y0 ? py[k] : y0, y1 = py[k] > y1 ? py[k] : y1;
    }
    const bool wrap = !indexed && motion_targets_wrap(w, x0, x1, y0, y1);
    if (!indexed) {
        const lanes_i nearest = wrap ? nearest_targets_scan(w, true, px, py) : nearest_targets_scan(w, false, px, py);
        /* The displacement to each lane's nearest, by the scan's operations. */
        lanes_f tx = zero, ty = zero;
        for (int k = 0; k < LANES; k++)
            if (nearest[k] >= 0) tx[k] = w->targets[nearest[k]].x, ty[k] = w->targets[nearest[k]].y;
        lanes_f dx, dy;
        motion_d2_lanes_wrapping(w, wrap, zero + tx, zero + ty, px, py, &dx, &dy); /* 0 + x, as the scan one by one */
        best = lanes_select(nearest >= 0, zero, best);
        bx = lanes_keep(nearest >= 0, dx), by = lanes_keep(nearest >= 0, dy);
        bk = nearest;
    }
    const lanes_i found = best < INFINITY;
    lanes_store(txs, lanes_keep(found, bx));
    lanes_store(tys, lanes_keep(found, by));
    memcpy(founds, &found, sizeof found);
    if (which) memcpy(which, &bk, sizeof bk);
}

void motion_nearest_target_agents(const world_t *w, int count, const float x[LANES], const float y[LANES],
                                  float tx[LANES], float ty[LANES], int32_t found[LANES])
{
    float xs[LANES], ys[LANES];
    for (int k = 0; k < LANES; k++) /* the lanes past count look from the first point */
        xs[k] = x[k < count ? k : 0], ys[k] = y[k < count ? k : 0];
    nearest_targets_by_agents(w, xs, ys, tx, ty, found, NULL);
    for (int k = count; k < LANES; k++) tx[k] = ty[k] = 0.0f, found[k] = 0;
}

void motion_nearest_target_index_agents(const world_t *w, int count, const float x[LANES], const float y[LANES],
                                        float tx[LANES], float ty[LANES], int32_t which[LANES])
{
    float xs[LANES], ys[LANES];
    int32_t found[LANES];
    for (int k = 0; k < LANES; k++) /* the lanes past count look from the first point */
        xs[k] = x[k < count ? k : 0], ys[k] = y[k < count ? k : 0];
    nearest_targets_by_agents(w, xs, ys, tx, ty, found, which);
    for (int k = count; k < LANES; k++) tx[k] = ty[k] = 0.0f, which[k] = -1;
}

const target_t *motion_nearest_target(const world_t *w, float px, float py, vec2 *delta)
{
    /* Through the index, while that costs less than the scan below, which
     * looks at eight targets a step. */
    size_t budget = w->n_targets / LANES;
    if (target_index_covers(&w->target_index, px, py)) {
        const long k = target_index_nearest(&w->target_index, w->targets, px, py, &delta->x, &delta->y, &budget);
        if (k != TARGET_INDEX_GAVE_UP) return k >= 0 ? &w->targets[k] : NULL;
    }
    const long k = w->target_index.places ? nearest_target_scan(w, px, py) : nearest_target_scan_one_by_one(w, px, py);
    if (k < 0) return NULL;
    float dx = w->targets[k].x - px, dy = w->targets[k].y - py;
    if (w->params.border == BORDER_WRAP) {
        dx = motion_wrap_delta(dx, w->width);
        dy = motion_wrap_delta(dy, w->height);
    }
    *delta = (vec2){dx, dy};
    return &w->targets[k];
}

/* Obstacles are solid: an agent that ends a step inside one is put back on
 * its surface and loses the inward part of its velocity. Steering avoids
 * them; this guarantees it when steering alone cannot (a crowd pushing). */
/* Shortest displacement from obstacle o's centre to (x, y). */
static vec2 from_centre(const world_t *w, const obstacle_t *o, float x, float y)
{
    vec2 d = {x - o->x, y - o->y};
    if (w->params.border == BORDER_WRAP) {
        d.x = motion_wrap_delta(d.x, w->width);
        d.y = motion_wrap_delta(d.y, w->height);
    }
    return d;
}

/* Obstacles are solid: an agent that ends a step inside one is moved out
 * along the ray from that obstacle's centre through it, far enough to leave
 * every obstacle the ray crosses (discs are convex, so overlapping ones are
 * left at the edge of their union), and loses the inward part of its
 * velocity. Steering avoids obstacles; this guarantees it when steering
 * alone cannot (a crowd pushing, an obstacle moving onto agents). */
/* The first obstacle (in table order) that (x, y) is inside; n_obstacles
 * when none. */
static size_t first_obstacle_holding(const world_t *w, float x, float y)
{
    for (size_t k = 0; k < w->n_obstacles; k++) {
        vec2 d = from_centre(w, &w->obstacles[k], x, y);
        if (d.x * d.x + d.y * d.y < w->obstacles[k].r * w->obstacles[k].r) return k;
    }
    return w->n_obstacles;
}

/* Obstacles push_out_by_agents tests side by side before its chain. */
#define RAY_AHEAD 8

/* Does the obstacle at q (base − centre) hold the ray's point at t? */
LANES_INLINE lanes_i ray_holds(lanes_f qx, lanes_f qy, lanes_f ux, lanes_f uy, lanes_f t, float r2)
{
    const lanes_f px = qx + ux * t, py = qy + uy * t;
    return px * px + py * py < r2;
}

/* The far root of |q + u s| = r (r2 = r²): −q·u + √((q·u)² − |q|² + r²),
 * the discriminant taken as 0 when negative (fmaxf(disc, 0)). */
LANES_INLINE lanes_f ray_far_root(lanes_f qx, lanes_f qy, lanes_f ux, lanes_f uy, float r2)
{
    const lanes_f qu = qx * ux + qy * uy, disc = qu * qu - (qx * qx + qy * qy) + r2;
    return -qu + lanes_sqrt(lanes_select(disc > 0.0f, disc, (lanes_f){0}));
}

/* The agents 0 … count − 1 of x, y that are inside an obstacle during a
 * step (first_obstacle_holding's test, over the places), with from_centre's
 * displacement from the first holding each and its radius. */
LANES_INLINE lanes_i first_holders(const world_t *w, int count, lanes_f x, lanes_f y, lanes_f *dx, lanes_f *dy,
                                   lanes_f *r_first)
{
    const step_places_t *op = &w->places;
    const bool wrap = w->params.border == BORDER_WRAP;
    const lanes_f zero = {0};
    lanes_i held = {0}, open = (lanes_i){0, 1, 2, 3, 4, 5, 6, 7} < count;
    *dx = *dy = *r_first = zero;
    for (size_t m = 0; m < op->n && lanes_any(open); m++) {
        lanes_f ex = x - op->x[m], ey = y - op->y[m];
        if (wrap) ex = wrap_lanes(ex, w->width), ey = wrap_lanes(ey, w->height);
        const lanes_i first = open & (ex * ex + ey * ey < op->r[m] * op->r[m]);
        *dx = lanes_select(first, ex, *dx), *dy = lanes_select(first, ey, *dy);
        *r_first = lanes_select(first, zero + op->r[m], *r_first);
        held |= first, open &= ~first;
    }
    return held;
}

/* push_out_of_obstacles (below) for eight agents at once during a step,
 * one agent per lane: each lane does that agent's operations one by one,
 * in the same order (the obstacles in table order, round after round), so
 * its results are the same bits. An agent pushed into 64 overlapping
 * obstacles crosses many of them, each a test and a move of t that
 * depends on the last: eight such chains side by side cost about what
 * one did. Lanes from count on are left as they are. */
KERNEL_CLONES
static bool push_out_by_agents(const world_t *w, int count, float xs[LANES], float ys[LANES], float vxs[LANES],
                               float vys[LANES])
{
    const step_places_t *op = &w->places;
    const size_t n = op->n;
    const bool wrap = w->params.border == BORDER_WRAP;
    const lanes_f zero = {0}, x = lanes_load(xs), y = lanes_load(ys);
    lanes_f dx, dy, r_first;
    const lanes_i held = first_holders(w, count, x, y, &dx, &dy, &r_first);
    if (!lanes_any(held)) return false;
    const lanes_f len = lanes_sqrt(dx * dx + dy * dy);
    const lanes_i some = len > 0.0f;
    const lanes_f ux = lanes_select(some, dx / lanes_select(some, len, zero + 1.0f), zero + 1.0f);
    const lanes_f uy = lanes_keep(some, dy / lanes_select(some, len, zero + 1.0f));
    const lanes_f bx = x - dx, by = y - dy; /* the ray starts at the centre */
    lanes_f t = r_first;
    /* Per obstacle, all but the point's test is the same in every round
     * (q = base − centre, the far root of |q + u s| = r), so computed once:
     * q here, the roots as the first chain reaches them (below). */
    lanes_f qxs[SIM_MAX_OBSTACLES], qys[SIM_MAX_OBSTACLES], roots[SIM_MAX_OBSTACLES];
    float r2s[SIM_MAX_OBSTACLES];
    for (size_t m = 0; m < n; m++) {
        lanes_f qx = bx - op->x[m], qy = by - op->y[m];
        if (wrap) qx = wrap_lanes(qx, w->width), qy = wrap_lanes(qy, w->height);
        r2s[m] = op->r[m] * op->r[m];
        qxs[m] = qx, qys[m] = qy;
    }
    /* What obstacle m + 1's test and move find when obstacle m has just
     * moved t to its root: the same at every round (m even: the chain
     * takes obstacles in pairs from a multiple of RAY_AHEAD). */
    lanes_i holds_after[SIM_MAX_OBSTACLES], beyond_after[SIM_MAX_OBSTACLES];
    /* Each test waits for the t the test before it left: a chain. But
     * until a test passes, t stays as it is: so the tests up to the first
     * that passes (for any lane) are made side by side first, and the
     * chain starts there. The last round, which finds the points outside
     * every obstacle, is then no chain at all. The chain then takes
     * obstacles two at a time: t after the first is either t or the
     * first's root, so the second's test is made at t beside the first's,
     * and at the root beforehand (holds_after); the move picks the one
     * that applies. The roots (a square root each) and holds_after are
     * made in the first chain to need them, where they do not wait for t
     * and so fill the chain's waits. */
    _Static_assert(RAY_AHEAD % 2 == 0, "chains start at an even obstacle");
    size_t ready = n; /* roots and the pairs' values are made for obstacles ready … n − 1 */
    lanes_i going = held; /* lanes whose point the next round tests */
    lanes_i clean = {0};  /* lanes whose last round found the point outside */
    for (size_t round = 0; round <= 2 * n + 1; round++) {
        lanes_i inside = {0};
        size_t m = 0;
        for (lanes_i any = {0}; m < n; m += RAY_AHEAD) {
            for (size_t j = m; j < m + RAY_AHEAD && j < n; j++) any |= ray_holds(qxs[j], qys[j], ux, uy, t, r2s[j]);
            if (lanes_any(any & going)) break;
        }
        const size_t start = m;
        for (; m + 1 < n; m += 2) {
            if (m < ready) {
                roots[m] = ray_far_root(qxs[m], qys[m], ux, uy, r2s[m]);
                roots[m + 1] = ray_far_root(qxs[m + 1], qys[m + 1], ux, uy, r2s[m + 1]);
                holds_after[m] = ray_holds(qxs[m + 1], qys[m + 1], ux, uy, roots[m], r2s[m + 1]);
                beyond_after[m] = roots[m + 1] > roots[m];
            }
            const lanes_i holds = going & ray_holds(qxs[m], qys[m], ux, uy, t, r2s[m]);
            const lanes_i holds_at_t = ray_holds(qxs[m + 1], qys[m + 1], ux, uy, t, r2s[m + 1]);
            const lanes_i moves = holds & (roots[m] > t); /* fmaxf: root never NaN */
            const lanes_i holds_next = going & ((moves & holds_after[m]) | (~moves & holds_at_t));
            const lanes_i beyond_next = (moves & beyond_after[m]) | (~moves & (roots[m + 1] > t));
            t = lanes_select(moves, roots[m], t);
            t = lanes_select(holds_next & beyond_next, roots[m + 1], t);
            inside |= holds | holds_next;
        }
        for (; m < n; m++) {
            if (m < ready) roots[m] = ray_far_root(qxs[m], qys[m], ux, uy, r2s[m]);
            const lanes_i holds = going & ray_holds(qxs[m], qys[m], ux, uy, t, r2s[m]);
            t = lanes_select(holds & (roots[m] > t), roots[m], t);
            inside |= holds;
        }
        if (start < ready) ready = start;
        /* A lane found outside moves a hair on and is tested once more
         * there (the hair may reach an obstacle just beyond a narrow gap);
         * found outside twice running, it is done. */
        const lanes_i done = going & ~inside & clean;
        clean = going & ~inside;
        going &= ~done;
        if (!lanes_any(going)) break;
        t = lanes_select(going, t * 1.0001f + 1e-4f, t); /* a hair outside, so rounding cannot leave it inside */
    }
    const lanes_f vx = lanes_load(vxs), vy = lanes_load(vys), vn = vx * ux + vy * uy;
    const lanes_i slows = held & (vn < 0.0f);
    lanes_store(xs, lanes_select(held, bx + ux * t, x));
    lanes_store(ys, lanes_select(held, by + uy * t, y));
    lanes_store(vxs, lanes_select(slows, vx - vn * ux, vx));
    lanes_store(vys, lanes_select(slows, vy - vn * uy, vy));
    return true;
}

/* Outside a step (no places copied): one by one. True when it moved it. */
static bool push_out_of_obstacles(const world_t *w, float *x, float *y, float *vx, float *vy)
{
    const size_t k = first_obstacle_holding(w, *x, *y);
    if (k == w->n_obstacles) return false;
    const obstacle_t *o = &w->obstacles[k];
    vec2 d = from_centre(w, o, *x, *y);
    float d2 = d.x * d.x + d.y * d.y;
    float len = sqrtf(d2);
    float ux = len > 0.0f ? d.x / len : 1.0f, uy = len > 0.0f ? d.y / len : 0.0f;
    const float bx = *x - d.x, by = *y - d.y; /* the ray starts at the centre */
    float t = o->r;
    bool clean = false; /* the last round found the point outside */
    for (size_t round = 0; round <= 2 * w->n_obstacles + 1; round++) {
        bool inside = false;
        for (size_t m = 0; m < w->n_obstacles; m++) {
            const obstacle_t *om = &w->obstacles[m];
            vec2 q = from_centre(w, om, bx, by); /* base − centre m */
            float px = q.x + ux * t, py = q.y + uy * t;
            if (px * px + py * py >= om->r * om->r) continue;
            /* |q + u s| = r_m at s = −q·u + √((q·u)² − |q|² + r_m²), the far root. */
            float qu = q.x * ux + q.y * uy;
            float disc = qu * qu - (q.x * q.x + q.y * q.y) + om->r * om->r;
            t = fmaxf(t, -qu + sqrtf(fmaxf(disc, 0.0f)));
            inside = true;
        }
        /* Found outside, it moves a hair on and is tested once more there
         * (the hair may reach an obstacle just beyond a narrow gap). */
        if (!inside && clean) break;
        clean = !inside;
        t = t * 1.0001f + 1e-4f; /* a hair outside, so rounding cannot leave it inside */
    }
    *x = bx + ux * t;
    *y = by + uy * t;
    float vn = *vx * ux + *vy * uy;
    if (vn < 0.0f) {
        *vx -= vn * ux;
        *vy -= vn * uy;
    }
    return true;
}

/* Respawn draws from this stream of the counter-based generator. */
#define RESPAWN_STREAM 0x7265737061776eull

/* Respawn: an agent gone over the edge is back at a random place inside,
 * same speed, random heading (the lesson's "appears again at random"). */
static void respawn_if_outside(const world_t *w, uint32_t id, float *x, float *y, float *vx, float *vy)
{
    const float W = w->width, H = w->height;
    if (*x >= 0.0f && *x < W && *y >= 0.0f && *y < H) return;
    float speed = sqrtf(*vx * *vx + *vy * *vy);
    float heading = 6.28318531f * prng_hash_unit(w->seed, RESPAWN_STREAM, w->tick, id);
    *x = W * prng_hash_unit(w->seed, RESPAWN_STREAM + 1, w->tick, id);
    *y = H * prng_hash_unit(w->seed, RESPAWN_STREAM + 2, w->tick, id);
    *vx = speed * cosf(heading);
    *vy = speed * sinf(heading);
}

void motion_finish(const world_t *w, size_t i, float x, float y, float vx, float vy, uint8_t flags)
{
    /* One agent is a batch of one: the border is written once, for lanes. */
    float xs[LANES] = {x}, ys[LANES] = {y}, vxs[LANES] = {vx}, vys[LANES] = {vy};
    uint8_t fs[LANES] = {flags};
    motion_finish_lanes(w, i, 1, xs, ys, vxs, vys, fs);
}

/* motion_evade during a step: each predator's term eight at a time over
 * the predators' places, with the same operations, then summed in table
 * order (the sum's rounding depends on its order). */
KERNEL_CLONES
static bool evade_by_lanes(const world_t *w, float x, float y, vec2 *away)
{
    const sim_params_t *p = &w->params;
    const step_places_t *op = &w->places;
    const lanes_f zero = {0}, one = zero + 1.0f;
    float ax = 0.0f, ay = 0.0f;
    bool near = false;
    for (size_t base = 0; base < op->n_predators; base += LANES) {
        lanes_f dx = x - lanes_load(op->pred_x + base), dy = y - lanes_load(op->pred_y + base);
        if (p->border == BORDER_WRAP) { /* motion_wrap_delta, lane by lane */
            const lanes_f W = zero + w->width, H = zero + w->height;
            dx = lanes_select(dx > 0.5f * W, dx - W, lanes_select(dx < -0.5f * W, dx + W, dx));
            dy = lanes_select(dy > 0.5f * H, dy - H, lanes_select(dy < -0.5f * H, dy + H, dy));
        }
        const lanes_f d2 = dx * dx + dy * dy;
        const lanes_i feared = d2 < p->fear_radius * p->fear_radius;
        if (!lanes_any(feared)) continue;
        const lanes_f time = lanes_sqrt(d2) / p->predator_speed;
        const lanes_f lead = lanes_select(time < one, time, one); /* fminf(time, 1) for these lanes */
        dx -= lanes_load(op->pred_vx + base) * lead; /* away from where it will be */
        dy -= lanes_load(op->pred_vy + base) * lead;
        const lanes_f l2 = dx * dx + dy * dy;
        const lanes_i counts = feared & (l2 > 0.0f);
        const lanes_f tx = dx / l2, ty = dy / l2; /* unit vector over distance: nearer counts more */
        for (int l = 0; l < LANES; l++)
            if (counts[l]) ax += tx[l], ay += ty[l], near = true;
    }
    *away = (vec2){ax, ay};
    return near && (ax != 0.0f || ay != 0.0f);
}

/* motion_evade for eight agents at once, one per lane, during a step:
 * each lane takes the predators in table order and sums their terms as
 * motion_evade does, so its answer is the same bits. */
KERNEL_CLONES
static void evade_by_agents(const world_t *w, int count, const float xs[LANES], const float ys[LANES],
                            float axs[LANES], float ays[LANES], int32_t fled[LANES])
{
    const sim_params_t *p = &w->params;
    const step_places_t *op = &w->places;
    const bool wrap = p->border == BORDER_WRAP;
    const lanes_i lane = {0, 1, 2, 3, 4, 5, 6, 7}, live = lane < count;
    const lanes_f zero = {0}, one = zero + 1.0f, x = lanes_load(xs), y = lanes_load(ys);
    const float fear2 = p->fear_radius * p->fear_radius;
    lanes_f ax = zero, ay = zero;
    lanes_i near = {0};
    for (size_t k = 0; k < op->n_predators; k++) {
        lanes_f dx = x - op->pred_x[k], dy = y - op->pred_y[k];
        if (wrap) dx = wrap_lanes(dx, w->width), dy = wrap_lanes(dy, w->height);
        const lanes_f d2 = dx * dx + dy * dy;
        const lanes_i feared = live & ~(d2 >= fear2);
        if (!lanes_any(feared)) continue;
        const lanes_f time = lanes_sqrt(d2) / p->predator_speed;
        const lanes_f lead = lanes_select(time < one, time, one); /* fminf(time, 1) */
        dx -= op->pred_vx[k] * lead; /* away from where it will be */
        dy -= op->pred_vy[k] * lead;
        const lanes_f l2 = dx * dx + dy * dy;
        const lanes_i counts = feared & (l2 > 0.0f);
        ax = lanes_select(counts, ax + dx / l2, ax); /* unit vector over distance: nearer counts more */
        ay = lanes_select(counts, ay + dy / l2, ay);
        near |= counts;
    }
    const lanes_i some = near & ((ax != 0.0f) | (ay != 0.0f));
    lanes_store(axs, ax), lanes_store(ays, ay);
    memcpy(fled, &some, sizeof some);
}

void motion_evade_agents(const world_t *w, int count, const float x[LANES], const float y[LANES], float ax[LANES],
                         float ay[LANES], int32_t fled[LANES])
{
    if (w->places.valid) {
        evade_by_agents(w, count, x, y, ax, ay, fled);
        return;
    }
    for (int k = 0; k < LANES; k++) {
        vec2 a = {0.0f, 0.0f};
        fled[k] = k < count && motion_evade(w, x[k], y[k], &a) ? -1 : 0;
        ax[k] = a.x, ay[k] = a.y;
    }
}

bool motion_evade(const world_t *w, float x, float y, vec2 *away)
{
    if (w->places.valid) return evade_by_lanes(w, x, y, away);
    const sim_params_t *p = &w->params;
    const bool wrap = p->border == BORDER_WRAP;
    float ax = 0.0f, ay = 0.0f;
    bool near = false;
    for (size_t k = 0; k < w->n_predators; k++) {
        const predator_t *pr = &w->predators[k];
        float dx = x - pr->x, dy = y - pr->y;
        if (wrap) {
            dx = motion_wrap_delta(dx, w->width);
            dy = motion_wrap_delta(dy, w->height);
        }
        float d2 = dx * dx + dy * dy;
        if (d2 >= p->fear_radius * p->fear_radius) continue;
        float lead = fminf(sqrtf(d2) / p->predator_speed, 1.0f);
        dx -= pr->vx * lead; /* away from where it will be */
        dy -= pr->vy * lead;
        float l2 = dx * dx + dy * dy;
        if (!(l2 > 0.0f)) continue;
        ax += dx / l2; /* unit vector over distance: nearer counts more */
        ay += dy / l2;
        near = true;
    }
    *away = (vec2){ax, ay};
    return near && (ax != 0.0f || ay != 0.0f);
}

/* Stream of the counter-based generator for wander drift. */
#define WANDER_DRIFT_STREAM 0x647269667400ull

vec2 motion_wander(const world_t *w, uint32_t id, float vx, float vy)
{
    const sim_params_t *p = &w->params;
    float u = prng_hash_unit(w->seed, WANDER_DRIFT_STREAM, w->tick, id);
    float angle = w->wander[id] + (2.0f * u - 1.0f) * p->wander_jitter * world_steer_drift_dt(w);
    angle -= 6.28318531f * floorf(angle / 6.28318531f);
    ((world_t *)w)->wander[id] = angle; /* the agent's own entry: no other task touches it */
    float speed = sqrtf(vx * vx + vy * vy);
    float hx = speed > 0.0f ? vx / speed : 1.0f, hy = speed > 0.0f ? vy / speed : 0.0f;
    float heading = atan2f(hy, hx);
    return (vec2){hx * p->wander_distance + p->wander_radius * cosf(heading + angle),
                  hy * p->wander_distance + p->wander_radius * sinf(heading + angle)};
}

KERNEL_CLONES
static void wander_by_agents(const world_t *w, int count, const uint32_t ids[LANES], const float vxs[LANES],
                             const float vys[LANES], const int32_t wanders[LANES], float dxs[LANES], float dys[LANES])
{
    const sim_params_t *p = &w->params;
    const lanes_f zero = {0}, one = zero + 1.0f, turn = zero + 6.28318531f;
    /* The draw's first two stages are the step's, shared by every agent. */
    const uint64_t key = prng_hash_key(prng_hash_stream(w->seed, WANDER_DRIFT_STREAM), w->tick);
    lanes_i on;
    memcpy(&on, wanders, sizeof on);
    on &= (lanes_i){0, 1, 2, 3, 4, 5, 6, 7} < count;
    prng_lanes_t id = {0};
    lanes_f old = zero;
    for (int k = 0; k < LANES; k++)
        if (on[k]) id[k] = ids[k], old[k] = w->wander[ids[k]];
    const lanes_f u = prng_hash_unit_lanes((prng_lanes_t){0} + key, id);
    lanes_f angle = old + (2.0f * u - 1.0f) * p->wander_jitter * world_steer_drift_dt(w);
    lanes_f whole = angle / turn;
    for (int k = 0; k < LANES; k++) whole[k] = floorf(whole[k]);
    angle -= turn * whole;
    const lanes_f vx = lanes_load(vxs), vy = lanes_load(vys), speed = lanes_sqrt(vx * vx + vy * vy);
    const lanes_i moving = speed > 0.0f;
    const lanes_f safe = lanes_select(moving, speed, one);
    const lanes_f hx = lanes_select(moving, vx / safe, one), hy = lanes_keep(moving, vy / safe);
    lanes_f c = zero, s = zero;
    for (int k = 0; k < LANES; k++)
        if (on[k]) {
            ((world_t *)w)->wander[ids[k]] = angle[k]; /* the agent's own entry: no other task touches it */
            const float heading = atan2f(hy[k], hx[k]);
            c[k] = cosf(heading + angle[k]), s[k] = sinf(heading + angle[k]);
        }
    const lanes_f dx = hx * p->wander_distance + p->wander_radius * c;
    const lanes_f dy = hy * p->wander_distance + p->wander_radius * s;
    for (int k = 0; k < LANES; k++)
        if (on[k]) dxs[k] = dx[k], dys[k] = dy[k];
}

void motion_wander_agents(const world_t *w, int count, const uint32_t ids[LANES], const float vx[LANES],
                          const float vy[LANES], const int32_t wanders[LANES], float dx[LANES], float dy[LANES])
{
    wander_by_agents(w, count, ids, vx, vy, wanders, dx, dy);
}

/* The wrapped and bounced borders, lane by lane. */
LANES_INLINE void border_lanes(const world_t *w, lanes_f *x, lanes_f *y, lanes_f *vx, lanes_f *vy)
{
    const lanes_f zero = {0};
    const lanes_f W = zero + w->width, H = zero + w->height;
    if (w->params.border == BORDER_WRAP) {
        /* One step moves less than the world, so one correction suffices;
         * the last test catches x + W rounding to exactly W. */
        *x = lanes_select(*x < 0.0f, *x + W, *x);
        *x = lanes_select(*x >= W, *x - W, *x);
        *y = lanes_select(*y < 0.0f, *y + H, *y);
        *y = lanes_select(*y >= H, *y - H, *y);
        *x = lanes_keep((*x >= 0.0f) & (*x < W), *x);
        *y = lanes_keep((*y >= 0.0f) & (*y < H), *y);
        return;
    }
    /* Bounce: reflected back inside (at most to the far edge), the velocity
     * across the edge turned inward. */
    const lanes_i sign = (lanes_i){0} + INT32_MIN; /* the sign bit of every lane */
    const lanes_i x_low = *x < 0.0f, x_high = *x > W, y_low = *y < 0.0f, y_high = *y > H;
    const lanes_f x_in = lanes_select(-*x < W, -*x, W), x_back = 2.0f * W - *x;
    const lanes_f y_in = lanes_select(-*y < H, -*y, H), y_back = 2.0f * H - *y;
    *x = lanes_select(x_low, x_in, lanes_select(x_high, lanes_select(x_back > 0.0f, x_back, zero), *x));
    *y = lanes_select(y_low, y_in, lanes_select(y_high, lanes_select(y_back > 0.0f, y_back, zero), *y));
    const lanes_f abs_vx = (lanes_f)((lanes_i)*vx & ~sign), abs_vy = (lanes_f)((lanes_i)*vy & ~sign);
    *vx = lanes_select(x_low, abs_vx, lanes_select(x_high, (lanes_f)((lanes_i)abs_vx | sign), *vx));
    *vy = lanes_select(y_low, abs_vy, lanes_select(y_high, (lanes_f)((lanes_i)abs_vy | sign), *vy));
}

/* The border for agents 0 … count − 1 of the arrays: whether it moved any. */
LANES_INLINE bool apply_border(const world_t *w, size_t first, int count, float x[LANES], float y[LANES],
                               float vx[LANES], float vy[LANES])
{
    const lanes_i live = (lanes_i){0, 1, 2, 3, 4, 5, 6, 7} < count;
    const lanes_f x0 = lanes_load(x), y0 = lanes_load(y);
    lanes_f lx = x0, ly = y0;
    if (w->params.border == BORDER_RESPAWN) {
        for (int k = 0; k < count; k++) respawn_if_outside(w, w->cur.id[first + (size_t)k], &x[k], &y[k], &vx[k], &vy[k]);
        lx = lanes_load(x), ly = lanes_load(y);
    } else {
        lanes_f lvx = lanes_load(vx), lvy = lanes_load(vy);
        border_lanes(w, &lx, &ly, &lvx, &lvy);
        lanes_store(x, lx), lanes_store(y, ly), lanes_store(vx, lvx), lanes_store(vy, lvy);
    }
    return lanes_any(live & (((lanes_i)lx != (lanes_i)x0) | ((lanes_i)ly != (lanes_i)y0))); /* bit for bit */
}

/* The agents of the arrays still inside an obstacle after the push-out and
 * the border escape (escape.h) on their turn, each attempt followed by the
 * border. Out of line: few batches need it. */
KERNEL_CLONES
static void escape_the_rest(const world_t *w, size_t first, int count, float x[LANES], float y[LANES],
                            float vx[LANES], float vy[LANES])
{
    /* Only the agents whose turn it is (escape_turn). Each agent's
     * attempts go on while its own last one moved it (the border leaves
     * the others where they are): what happens to it does not depend on
     * which agents share its batch. */
    lanes_i going = {0};
    for (int k = 0; k < count; k++) going[k] = escape_turn(w, w->cur.id[first + (size_t)k]) ? -1 : 0;
    for (int attempt = 1; lanes_any(going) && attempt <= ESCAPE_ATTEMPTS; attempt++) {
        /* During a step, eight at a time which are inside at all; escape
         * looks again, at those, one by one. */
        if (w->places.valid) {
            lanes_f dx, dy, r;
            going &= first_holders(w, count, lanes_load(x), lanes_load(y), &dx, &dy, &r);
        }
        for (int k = 0; k < count; k++)
            if (going[k]) going[k] = escape_obstacle(w, &x[k], &y[k], &vx[k], &vy[k], attempt) ? -1 : 0;
        if (lanes_any(going)) apply_border(w, first, count, x, y, vx, vy);
    }
}

/* Out of the obstacles, then through the border. The push-out's own test
 * is the ray's, which rounds otherwise than the agent's place (the test
 * the metrics count penetrations with), and the border may move an agent
 * back into an obstacle: where either moved an agent of the eight, those
 * still inside escape on their turn. */
LANES_INLINE void keep_out_of_obstacles(const world_t *w, size_t first, int count, float x[LANES], float y[LANES],
                                        float vx[LANES], float vy[LANES])
{
    bool pushed = false;
    if (w->places.valid)
        pushed = push_out_by_agents(w, count, x, y, vx, vy);
    else
        for (int k = 0; k < count; k++) pushed |= push_out_of_obstacles(w, &x[k], &y[k], &vx[k], &vy[k]);
    if (apply_border(w, first, count, x, y, vx, vy) || pushed) escape_the_rest(w, first, count, x, y, vx, vy);
}

KERNEL_CLONES
void motion_finish_lanes(const world_t *w, size_t first, int count, float x[LANES], float y[LANES], float vx[LANES],
                         float vy[LANES], const uint8_t flags[LANES])
{
    if (w->n_obstacles)
        keep_out_of_obstacles(w, first, count, x, y, vx, vy);
    else
        apply_border(w, first, count, x, y, vx, vy);
    agents_t *out = (agents_t *)&w->next; /* these agents' slots are written by one task only */
    if (count == LANES) {
        lanes_store(out->x + first, lanes_load(x));
        lanes_store(out->y + first, lanes_load(y));
        lanes_store(out->vx + first, lanes_load(vx));
        lanes_store(out->vy + first, lanes_load(vy));
    } else {
        for (int k = 0; k < count; k++) {
            out->x[first + k] = x[k], out->y[first + k] = y[k];
            out->vx[first + k] = vx[k], out->vy[first + k] = vy[k];
        }
    }
    for (int k = 0; k < count; k++)
        out->flags[first + k] = (uint8_t)(flags[k] | (w->cur.flags[first + k] & AGENT_SPECIES_MASK)); /* species stay */
}

KERNEL_CLONES
void motion_coast(const world_t *w, size_t first, size_t end)
{
    const agents_t *a = &w->cur;
    agents_t *out = (agents_t *)&w->next; /* these agents' slots are written by one task only */
    const lanes_f dt = (lanes_f){0} + w->dt;
    /* border_lanes is all motion_finish_lanes does to a step without
     * obstacles, but for respawning (scalar, by id). */
    const bool direct = !w->n_obstacles && w->params.border != BORDER_RESPAWN;
    size_t i = first;
    for (; direct && i + LANES <= end; i += LANES) {
        lanes_f vx = lanes_load(a->vx + i), vy = lanes_load(a->vy + i);
        lanes_f x = lanes_load(a->x + i) + vx * dt, y = lanes_load(a->y + i) + vy * dt;
        border_lanes(w, &x, &y, &vx, &vy);
        lanes_store(out->x + i, x), lanes_store(out->y + i, y);
        lanes_store(out->vx + i, vx), lanes_store(out->vy + i, vy);
        for (int k = 0; k < LANES; k++) out->flags[i + k] = a->flags[i + k] & (AGENT_LEADER | AGENT_SPECIES_MASK);
    }
    for (; i < end; i += LANES) {
        const int count = end - i < LANES ? (int)(end - i) : LANES;
        float x[LANES], y[LANES], vx[LANES], vy[LANES];
        uint8_t flags[LANES] = {0};
        const lanes_f lvx = lanes_load(a->vx + i), lvy = lanes_load(a->vy + i);
        lanes_store(x, lanes_load(a->x + i) + lvx * dt);
        lanes_store(y, lanes_load(a->y + i) + lvy * dt);
        lanes_store(vx, lvx), lanes_store(vy, lvy);
        for (int k = 0; k < count; k++) flags[k] = a->flags[i + (size_t)k] & AGENT_LEADER;
        motion_finish_lanes(w, i, count, x, y, vx, vy, flags);
    }
}

#include "sim/motion.h"

#include <math.h>

#include "sim/clones.h"

_Static_assert(SIM_MAX_OBSTACLES % LANES == 0 && SIM_MAX_PREDATORS % LANES == 0, "the places are whole vectors");

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
/* The first obstacle (in table order) that (x, y) is inside, looked for
 * eight at a time over the obstacles' places during a step; n_obstacles
 * when none. */
KERNEL_CLONES
static size_t first_obstacle_holding(const world_t *w, float x, float y)
{
    const step_places_t *op = &w->places;
    if (!op->valid) {
        for (size_t k = 0; k < w->n_obstacles; k++) {
            vec2 d = from_centre(w, &w->obstacles[k], x, y);
            if (d.x * d.x + d.y * d.y < w->obstacles[k].r * w->obstacles[k].r) return k;
        }
        return w->n_obstacles;
    }
    const lanes_f zero = {0};
    for (size_t base = 0; base < op->n; base += LANES) {
        lanes_f dx, dy; /* centre − point: the same square as point − centre, wrapped alike */
        const lanes_f d2 = motion_d2_lanes(w, lanes_load(op->x + base), lanes_load(op->y + base), zero + x, zero + y,
                                           &dx, &dy);
        const lanes_f r = lanes_load(op->r + base);
        const lanes_i inside = d2 < r * r;
        if (!lanes_any(inside)) continue;
        for (int l = 0; l < LANES; l++)
            if (inside[l]) return base + (size_t)l;
    }
    return w->n_obstacles;
}

/* How far along the ray from (bx, by) in direction (ux, uy), starting at
 * t, the push out below ends (before its last hair), as its rounds one by
 * one find it, bit for bit: each round takes the obstacles in table order
 * and, for each holding the ray's point at the current t, moves t to the
 * far root of that obstacle (if farther); rounds repeat while any held it.
 * Per obstacle, all but the point's test is the same in every round (the
 * displacement q from its centre, its far root), so those are computed
 * once, eight obstacles at a time; each round then tests eight points per
 * vector. A crowd pushed into overlapping obstacles crosses many of them,
 * round after round. */
KERNEL_CLONES
static float ray_exit_by_lanes(const world_t *w, float bx, float by, float ux, float uy, float t)
{
    const step_places_t *op = &w->places;
    const lanes_f zero = {0};
    const bool wrap = w->params.border == BORDER_WRAP;
    float qxs[SIM_MAX_OBSTACLES], qys[SIM_MAX_OBSTACLES], r2s[SIM_MAX_OBSTACLES], roots[SIM_MAX_OBSTACLES];
    for (size_t base = 0; base < op->n; base += LANES) {
        lanes_f qx = bx - lanes_load(op->x + base), qy = by - lanes_load(op->y + base); /* base − centre */
        if (wrap) { /* motion_wrap_delta, lane by lane */
            const lanes_f W = zero + w->width, H = zero + w->height;
            qx = lanes_select(qx > 0.5f * W, qx - W, lanes_select(qx < -0.5f * W, qx + W, qx));
            qy = lanes_select(qy > 0.5f * H, qy - H, lanes_select(qy < -0.5f * H, qy + H, qy));
        }
        const lanes_f r = lanes_load(op->r + base), r2 = r * r;
        /* |q + u s| = r at s = −q·u + √((q·u)² − |q|² + r²), the far root. */
        const lanes_f qu = qx * ux + qy * uy, disc = qu * qu - (qx * qx + qy * qy) + r2;
        lanes_store(qxs + base, qx), lanes_store(qys + base, qy), lanes_store(r2s + base, r2);
        lanes_store(roots + base, -qu + lanes_sqrt(lanes_select(disc > 0.0f, disc, zero)));
    }
    const lanes_i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (size_t round = 0; round <= op->n; round++) {
        bool inside = false;
        for (size_t base = 0; base < op->n; base += LANES) {
            const lanes_f qx = lanes_load(qxs + base), qy = lanes_load(qys + base), r2 = lanes_load(r2s + base);
            int from = 0;
            for (;;) { /* the lanes from `from` on that hold the point at the current t (padding: NaN, never) */
                const lanes_f px = qx + ux * t, py = qy + uy * t;
                const lanes_i holds = (px * px + py * py < r2) & (lane >= from);
                if (!lanes_any(holds)) break;
                int l = from;
                while (!holds[l]) l++;
                const float root = roots[base + (size_t)l];
                t = root > t ? root : t; /* fmaxf: t is at least a radius, root never NaN */
                inside = true;
                from = l + 1;
            }
        }
        if (!inside) break;
        t = t * 1.0001f + 1e-4f; /* a hair outside, so rounding cannot leave it inside */
    }
    return t;
}

static void push_out_of_obstacles(const world_t *w, float *x, float *y, float *vx, float *vy)
{
    const size_t k = first_obstacle_holding(w, *x, *y);
    if (k == w->n_obstacles) return;
    const obstacle_t *o = &w->obstacles[k];
    vec2 d = from_centre(w, o, *x, *y);
    float d2 = d.x * d.x + d.y * d.y;
    float len = sqrtf(d2);
    float ux = len > 0.0f ? d.x / len : 1.0f, uy = len > 0.0f ? d.y / len : 0.0f;
    const float bx = *x - d.x, by = *y - d.y; /* the ray starts at the centre */
    float t = o->r;
    if (w->places.valid) t = ray_exit_by_lanes(w, bx, by, ux, uy, t);
    for (size_t round = 0; round <= w->n_obstacles && !w->places.valid; round++) {
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
        if (!inside) break;
        t = t * 1.0001f + 1e-4f; /* a hair outside, so rounding cannot leave it inside */
    }
    t = t * 1.0001f + 1e-4f;
    *x = bx + ux * t;
    *y = by + uy * t;
    float vn = *vx * ux + *vy * uy;
    if (vn < 0.0f) {
        *vx -= vn * ux;
        *vy -= vn * uy;
    }
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
    float angle = w->wander[id] + (2.0f * u - 1.0f) * p->wander_jitter * w->dt;
    angle -= 6.28318531f * floorf(angle / 6.28318531f);
    ((world_t *)w)->wander[id] = angle; /* the agent's own entry: no other task touches it */
    float speed = sqrtf(vx * vx + vy * vy);
    float hx = speed > 0.0f ? vx / speed : 1.0f, hy = speed > 0.0f ? vy / speed : 0.0f;
    float heading = atan2f(hy, hx);
    return (vec2){hx * p->wander_distance + p->wander_radius * cosf(heading + angle),
                  hy * p->wander_distance + p->wander_radius * sinf(heading + angle)};
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

KERNEL_CLONES
void motion_finish_lanes(const world_t *w, size_t first, int count, float x[LANES], float y[LANES], float vx[LANES],
                         float vy[LANES], const uint8_t flags[LANES])
{
    if (w->n_obstacles)
        for (int k = 0; k < count; k++) push_out_of_obstacles(w, &x[k], &y[k], &vx[k], &vy[k]);
    if (w->params.border == BORDER_RESPAWN) {
        for (int k = 0; k < count; k++) respawn_if_outside(w, w->cur.id[first + (size_t)k], &x[k], &y[k], &vx[k], &vy[k]);
    } else {
        lanes_f lx = lanes_load(x), ly = lanes_load(y), lvx = lanes_load(vx), lvy = lanes_load(vy);
        border_lanes(w, &lx, &ly, &lvx, &lvy);
        lanes_store(x, lx), lanes_store(y, ly), lanes_store(vx, lvx), lanes_store(vy, lvy);
    }
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

#include "sim/olfati_beta.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "sim/bump.h"
#include "sim/clones.h"
#include "sim/lanes.h"

/* The early rejection's slack, relative to R + r_β: an obstacle whose
 * centre is farther than (R + r_β)(1 + slack) from the agent, or nearer
 * than R − r_β − slack (R + r_β), has its surface out of reach. The exact
 * test (h² < r_β², below) sees the distance through a square root, three
 * divisions and a few products, each within half an ulp: a few 10⁻⁷ of
 * R + r_β in all. The slack is thousands of times that, so the rejection
 * never drops an obstacle the exact test would keep. */
#define BETA_REJECT_SLACK 1e-3f

/* One obstacle's term, from q − y = (qx, qy), its radius R and d2 = ‖q − y‖²,
 * with the same IEEE operations in both loops below (for a lane of
 * vectors V, or V = float): 1/‖q − y‖ once, for a, μ and the gap, and one
 * division for n̂'s 1/√(1 + ε‖q̂ − q‖²) and σ1's 1/√(1 + s²) together;
 * ‖q̂ − q‖² as the gap squared (a is a unit vector). The bump is
 * beta_bump's, its argument one multiply-add from z. Sets h2 (the test of
 * reach) and the term. */
#define BETA_TERM(V, BUMP, SQRT, qx, qy, R, d2, vx, vy, K, C1, C2, h2_out, tx_out, ty_out)                          \
    do {                                                                                                    \
        const V one_ = (V){0} + 1.0f;                                                                       \
        const V dist_ = SQRT(d2), inv_d_ = one_ / dist_;                                                    \
        const V ax_ = (qx) * inv_d_, ay_ = (qy) * inv_d_, mu_ = (R) * inv_d_;                               \
        const V gap_ = (R) - dist_; /* q̂ − q = gap a: from the agent to the obstacle's surface */           \
        const V hx_ = gap_ * ax_, hy_ = gap_ * ay_;                                                         \
        h2_out = gap_ * gap_;                                                                               \
        const V along_ = (vx) * ax_ + (vy) * ay_;                                                           \
        const V phx_ = mu_ * ((vx) - along_ * ax_), phy_ = mu_ * ((vy) - along_ * ay_); /* μ (I − a aᵀ) p */ \
        const V root_ = SQRT(one_ + (K)->eps * h2_out);                                                     \
        const V z_ = (root_ - one_) * (K)->inv_eps; /* ‖q̂ − q‖σ */                                          \
        const V b_ = BUMP(z_ * (K)->beta_bump_scale - (K)->beta_bump_offset); /* ρ_hβ(z/dβ) */              \
        const V s_ = z_ - (K)->d_beta_sigma, S_ = SQRT(one_ + s_ * s_);                                     \
        /* φβ/√(1 + ε‖q̂ − q‖²) = b (s/S − 1)/root = b (s − S)/(S root) */                                  \
        const V g_ = (C1) * (b_ * (s_ - S_) / (S_ * root_));                                                \
        const V c_ = (C2) * b_;                                                                             \
        tx_out = g_ * hx_ + c_ * (phx_ - (vx));                                                             \
        ty_out = g_ * hy_ + c_ * (phy_ - (vy));                                                             \
    } while (0)

static float sqrt_one(float v) { return sqrtf(v); }

/* ρ_h(u) from t = (u − h)/(1 − h) − ½ (u = z/dβ ≥ 0, as z is): 1 below
 * t = −½, bump.h's polynomial up to t = ½, 0 from there. */
LANES_INLINE lanes_f beta_bump_lanes(lanes_f t) { return lanes_keep(t < 0.5f, bump_reach_lanes(t)); }

/* The same for one value (the same bits as a lane). */
static float beta_bump_one(float t) { return beta_bump_lanes((lanes_f){0} + t)[0]; }

/* The sum of the terms: obstacle o's into slot o mod LANES (a lane of the
 * vector loop), the slots then added 0 to LANES − 1. */
static vec2 beta_slots_sum(const float *sx, const float *sy)
{
    vec2 u = {0.0f, 0.0f};
    for (int l = 0; l < LANES; l++) u.x += sx[l], u.y += sy[l];
    return u;
}

vec2 olfati_beta_feedback_one_by_one(const world_t *w, const olfati_consts_t *k, float px, float py, float vx,
                                     float vy)
{
    const sim_params_t *p = &w->params;
    const bool wrap = p->border == BORDER_WRAP;
    float sx[LANES] = {0}, sy[LANES] = {0};
    for (size_t o = 0; o < w->n_obstacles; o++) {
        const obstacle_t *ob = &w->obstacles[o];
        float qx = px - ob->x, qy = py - ob->y; /* q − y */
        if (wrap) {
            qx = motion_wrap_delta(qx, w->width);
            qy = motion_wrap_delta(qy, w->height);
        }
        const float d2 = qx * qx + qy * qy, R = ob->r;
        if (!(d2 > 0.0f)) continue;
        float h2, tx, ty;
        BETA_TERM(float, beta_bump_one, sqrt_one, qx, qy, R, d2, vx, vy, k, p->os_c1_beta, p->os_c2_beta, h2, tx, ty);
        if (h2 >= k->r_beta2) continue;
        sx[o % LANES] += tx;
        sy[o % LANES] += ty;
    }
    return beta_slots_sum(sx, sy);
}

void olfati_beta_prepare(const world_t *w, olfati_consts_t *k)
{
    const step_places_t *op = &w->places;
    k->beta_ready = op->valid;
    if (!op->valid) return;
    const float reach = sqrtf(k->r_beta2);
    float box[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (size_t o = 0; o < op->n; o++) {
        const float R = op->r[o], slack = BETA_REJECT_SLACK * (R + reach);
        const float far = R + reach + slack, near = R - reach - slack;
        k->beta_far2[o] = far * far;
        k->beta_near2[o] = near <= 0.0f ? -1.0f : near * near; /* −1: no hole round the centre */
        box[0] = fminf(box[0], op->x[o]), box[1] = fmaxf(box[1], op->x[o]);
        box[2] = fminf(box[2], op->y[o]), box[3] = fmaxf(box[3], op->y[o]);
    }
    for (size_t o = op->n; o < SIM_MAX_OBSTACLES; o++) k->beta_far2[o] = NAN, k->beta_near2[o] = NAN;
    memcpy(k->beta_box, box, sizeof box);
}

/* Whether some displacement from (px, py) to an obstacle in k's box may
 * take the wrapped way (motion_wrap_delta): false means none does, bit
 * for bit (a difference is monotone in each operand, rounding included). */
static bool beta_may_wrap(const world_t *w, const olfati_consts_t *k, float px, float py)
{
    const float half_w = 0.5f * w->width, half_h = 0.5f * w->height;
    return !(px - k->beta_box[0] <= half_w && px - k->beta_box[1] >= -half_w && py - k->beta_box[2] <= half_h &&
             py - k->beta_box[3] >= -half_h);
}

/* The one-by-one loop above, eight obstacles at a time over their places:
 * each lane does that loop's operations on its obstacle, in the same
 * order (no fused multiply-add: -ffp-contract=off), and keeps its slot's
 * sum, so the result has the same bits. A vector none of whose obstacles
 * passes the early rejection (BETA_REJECT_SLACK, its bounds from
 * olfati_beta_prepare) costs a load and a few compares per lane; the rest
 * is worked out for all eight lanes (in a crowd among obstacles most lanes
 * are in reach, and a test per lane would mispredict). Lanes past the
 * count hold NaN, which no test passes. The wrapped way is only looked at
 * when the obstacles' box says that some displacement may take it. */
KERNEL_CLONES
static vec2 beta_by_lanes(const world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy)
{
    const sim_params_t *p = &w->params;
    const step_places_t *op = &w->places;
    const bool wrap = p->border == BORDER_WRAP && beta_may_wrap(w, k, px, py);
    const lanes_f zero = {0}, agent_x = zero + px, agent_y = zero + py, vvx = zero + vx, vvy = zero + vy;
    lanes_f sx = zero, sy = zero;
    for (size_t base = 0; base < op->n; base += LANES) {
        lanes_f qx, qy; /* q − y, the shortest way round when the world wraps */
        const lanes_f d2 =
            motion_d2_lanes_wrapping(w, wrap, agent_x, agent_y, lanes_load(op->x + base), lanes_load(op->y + base),
                                     &qx, &qy);
        const lanes_i maybe = (d2 <= lanes_load(k->beta_far2 + base)) & (d2 >= lanes_load(k->beta_near2 + base));
        if (!lanes_any(maybe)) continue;
        const lanes_f R = lanes_load(op->r + base);
        lanes_f h2, tx, ty;
        BETA_TERM(lanes_f, beta_bump_lanes, lanes_sqrt, qx, qy, R, d2, vvx, vvy, k, p->os_c1_beta, p->os_c2_beta, h2, tx,
                  ty);
        const lanes_i in = maybe & (d2 > 0.0f) & ~(h2 >= k->r_beta2);
        sx += lanes_select(in, tx, zero);
        sy += lanes_select(in, ty, zero);
    }
    float ax[LANES], ay[LANES];
    lanes_store(ax, sx);
    lanes_store(ay, sy);
    return beta_slots_sum(ax, ay);
}

vec2 olfati_beta_feedback(const world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy)
{
    if (w->places.valid && k->beta_ready) return beta_by_lanes(w, k, px, py, vx, vy);
    if (w->places.valid) { /* a call from outside a step's kernel */
        olfati_consts_t prepared = *k;
        olfati_beta_prepare(w, &prepared);
        return beta_by_lanes(w, &prepared, px, py, vx, vy);
    }
    return olfati_beta_feedback_one_by_one(w, k, px, py, vx, vy);
}

#include "sim/olfati_beta.h"

#include <math.h>
#include <stdbool.h>

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

vec2 olfati_beta_feedback_one_by_one(const world_t *w, const olfati_consts_t *k, float px, float py, float vx,
                                     float vy)
{
    const sim_params_t *p = &w->params;
    const bool wrap = p->border == BORDER_WRAP;
    const float inv_h_span = 1.0f / (1.0f - k->h_beta);
    vec2 u = {0.0f, 0.0f};
    for (size_t o = 0; o < w->n_obstacles; o++) {
        const obstacle_t *ob = &w->obstacles[o];
        float qx = px - ob->x, qy = py - ob->y; /* q − y */
        if (wrap) {
            qx = motion_wrap_delta(qx, w->width);
            qy = motion_wrap_delta(qy, w->height);
        }
        float dist = sqrtf(qx * qx + qy * qy);
        if (!(dist > 0.0f)) continue;
        float ax = qx / dist, ay = qy / dist, mu = ob->r / dist;
        /* q̂ − q = (R − ‖q − y‖) a: from the agent to the obstacle's surface. */
        float hx = (ob->r - dist) * ax, hy = (ob->r - dist) * ay;
        float h2 = hx * hx + hy * hy;
        if (h2 >= k->r_beta2) continue;
        float along = vx * ax + vy * ay;
        float phx = mu * (vx - along * ax), phy = mu * (vy - along * ay); /* p̂ = μ (I − a aᵀ) p */
        float root = sqrtf(1.0f + k->eps * h2);
        float z = (root - 1.0f) / k->eps; /* ‖q̂ − q‖σ */
        float b = bump_of(z / k->d_beta_sigma, k->h_beta, inv_h_span);
        float s = z - k->d_beta_sigma;
        float phi_beta = b * (s / sqrtf(1.0f + s * s) - 1.0f); /* ρ_hβ(z/dβ)(σ1(z − dβ) − 1) */
        float inv = 1.0f / root;                                /* n̂ = (q̂ − q)/√(1 + ε‖q̂ − q‖²) */
        u.x += p->os_c1_beta * phi_beta * hx * inv + p->os_c2_beta * b * (phx - vx);
        u.y += p->os_c1_beta * phi_beta * hy * inv + p->os_c2_beta * b * (phy - vy);
    }
    return u;
}

/* The one-by-one loop above, eight obstacles at a time over their places:
 * each lane does that loop's operations on its obstacle, in the same
 * order (no fused multiply-add: -ffp-contract=off), so each term has the
 * same bits; the terms are then added to u in table order, lane 0 to 7 of
 * each vector, as the loop adds them. A vector none of whose obstacles
 * passes the early rejection (BETA_REJECT_SLACK) costs a square and two
 * compares per lane; the rest is worked out for all eight lanes (in a
 * crowd among obstacles most lanes are in reach, and a test per lane would
 * mispredict). Lanes past the count hold NaN, which no test passes. */
KERNEL_CLONES
static vec2 beta_by_lanes(const world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy)
{
    const sim_params_t *p = &w->params;
    const step_places_t *op = &w->places;
    const bool wrap = p->border == BORDER_WRAP;
    const lanes_f zero = {0}, one = zero + 1.0f, agent_x = zero + px, agent_y = zero + py;
    /* What the one-by-one loop works out per obstacle but is the same for all. */
    const float eps = k->eps, r_beta2 = k->r_beta2, d_sigma = k->d_beta_sigma, h = k->h_beta;
    const float inv_h_span = 1.0f / (1.0f - h), c1 = p->os_c1_beta, c2 = p->os_c2_beta;
    const float reach = sqrtf(r_beta2);
    float ux = 0.0f, uy = 0.0f;
    for (size_t base = 0; base < op->n; base += LANES) {
        const lanes_f R = lanes_load(op->r + base);
        lanes_f qx, qy; /* q − y, the shortest way round when the world wraps */
        const lanes_f d2 =
            motion_d2_lanes_wrapping(w, wrap, agent_x, agent_y, lanes_load(op->x + base), lanes_load(op->y + base),
                                     &qx, &qy);
        const lanes_f slack = BETA_REJECT_SLACK * (R + reach), far = R + reach + slack, near = R - reach - slack;
        const lanes_i maybe = (d2 <= far * far) & ((near <= 0.0f) | (d2 >= near * near));
        if (!lanes_any(maybe)) continue;
        const lanes_f dist = lanes_sqrt(d2);
        const lanes_f ax = qx / dist, ay = qy / dist, mu = R / dist;
        const lanes_f hx = (R - dist) * ax, hy = (R - dist) * ay;
        const lanes_f h2 = hx * hx + hy * hy;
        const lanes_i in = maybe & (dist > 0.0f) & ~(h2 >= r_beta2);
        if (!lanes_any(in)) continue;
        const lanes_f along = vx * ax + vy * ay;
        const lanes_f phx = mu * (vx - along * ax), phy = mu * (vy - along * ay);
        const lanes_f root = lanes_sqrt(one + eps * h2);
        const lanes_f z = (root - one) / eps;
        const lanes_f b = bump_lanes(z / d_sigma, h, inv_h_span);
        const lanes_f s = z - d_sigma;
        const lanes_f phi_beta = b * (s / lanes_sqrt(one + s * s) - one);
        const lanes_f inv = one / root;
        const lanes_f tx = c1 * phi_beta * hx * inv + c2 * b * (phx - vx);
        const lanes_f ty = c1 * phi_beta * hy * inv + c2 * b * (phy - vy);
        for (int l = 0; l < LANES; l++)
            if (in[l]) ux += tx[l], uy += ty[l];
    }
    return (vec2){ux, uy};
}

vec2 olfati_beta_feedback(const world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy)
{
    if (w->places.valid) return beta_by_lanes(w, k, px, py, vx, vy);
    return olfati_beta_feedback_one_by_one(w, k, px, py, vx, vy);
}

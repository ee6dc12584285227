/* olfati: Olfati-Saber's flocking algorithms ("Flocking for multi-agent
 * dynamic systems: algorithms and theory", IEEE TAC 2006), as the seed
 * notes give them.
 *
 * Algorithm 1, α-agents:  u = c1α Σ φα(‖q_j − q_i‖σ) n_ij + c2α Σ a_ij(q)(p_j − p_i)
 *   ‖z‖σ = (√(1 + ε‖z‖²) − 1)/ε         σ-norm, smooth at 0
 *   n_ij = (q_j − q_i)/√(1 + ε‖q_j − q_i‖²)
 *   ρ_h(z) = 1 on [0, h), ½(1 + cos(π(z − h)/(1 − h))) on [h, 1), 0 beyond
 *   a_ij = ρ_h(‖q_j − q_i‖σ / r_α),  r_α = ‖r‖σ
 *   φα(z) = ρ_h(z/r_α) φ(z − d_α),    d_α = ‖d‖σ
 *   φ(z) = ½[(a + b) σ1(z + c) + (a − b)],  σ1(z) = z/√(1 + z²),  c = |a − b|/√(4ab)
 * Algorithm 2 adds the γ-agent (navigational feedback) toward the nearest
 * client target, or a virtual reference moving at (os_ref_vx, os_ref_vy):
 *   u += −c1γ (q_i − q_r) − c2γ (p_i − p_r)
 * Algorithm 3 adds β-agents, each obstacle's closest point to the agent:
 *   q̂ = y + R (q − y)/‖q − y‖,  p̂ = μ (I − a aᵀ) p with μ = R/‖q − y‖
 *   u += c1β φβ(‖q̂ − q‖σ) n̂ + c2β b(q)(p̂ − p),  φβ(z) = ρ_hβ(z/dβ)(σ1(z − dβ) − 1)
 * Integration: p += u·dt, |p| ≤ max_speed (a safety net the paper does not
 * need with its gains), q += p·dt. */
#include <math.h>
#include <stdbool.h>

#include "sim/bump.h"
#include "sim/clones.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/motion.h"
#include "sim/olfati_beta.h"

static float sigma_norm(float z2, float eps) { return (sqrtf(1.0f + eps * z2) - 1.0f) / eps; }

olfati_consts_t olfati_consts(const sim_params_t *p)
{
    float eps = p->os_eps, a = p->os_a, b = p->os_b;
    return (olfati_consts_t){
        .eps = eps,
        .r_alpha = sigma_norm(p->os_r * p->os_r, eps),
        .d_alpha = sigma_norm(p->os_d * p->os_d, eps),
        .h_alpha = p->os_h_alpha,
        .inv_eps = 1.0f / eps,
        .inv_r_alpha = 1.0f / sigma_norm(p->os_r * p->os_r, eps),
        .inv_h_span = 1.0f / (1.0f - p->os_h_alpha),
        .c_minus_d = fabsf(a - b) / sqrtf(4.0f * a * b) - sigma_norm(p->os_d * p->os_d, eps),
        .a_plus_b = a + b,
        .a_minus_b = a - b,
        .c = fabsf(a - b) / sqrtf(4.0f * a * b),
        .r2 = p->os_r * p->os_r,
        .r_beta2 = p->os_r_beta * p->os_r_beta,
        .d_beta_sigma = sigma_norm(p->os_d_beta * p->os_d_beta, eps),
        .h_beta = p->os_h_beta,
    };
}

/* Eight candidates at a time, one accumulator per lane, the lanes summed
 * in a fixed order at the end (the span is the same whichever thread
 * senses it, so the sums are too). Per pair: two square roots and one
 * division, the constants' divisions done once per step (olfati_consts)
 * and the bump's cosine a polynomial (bump.h), all lane-wise. Every
 * vector is worked out (in a flock most hold a neighbour, and a test per
 * vector mispredicts). The agent itself is the candidate at distance 0,
 * as in the other models (so is one on the very same spot, to which no
 * direction can be given); with positions from the past, its entry self.
 * The arrays must be readable LANES − 1 entries past count, those entries
 * of X/Y out of range (SENSE_FAR in the kernel's spans). */
KERNEL_CLONES
void olfati_sense(const olfati_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, olfati_sums_t *out)
{
    const lanes_f zero = {0}, one = zero + 1.0f;
    const float half_w = 0.5f * width, half_h = 0.5f * height;
    lanes_f gx = zero, gy = zero, cx = zero, cy = zero, nn = zero;
    for (int32_t j0 = 0; j0 < count; j0 += LANES) {
        lanes_f dx = lanes_load(X + j0) - px, dy = lanes_load(Y + j0) - py;
        if (pair_wrap) { /* motion_wrap_delta, lane by lane */
            dx = lanes_select(dx > half_w, dx - width, lanes_select(dx < -half_w, dx + width, dx));
            dy = lanes_select(dy > half_h, dy - height, lanes_select(dy < -half_h, dy + height, dy));
        }
        const lanes_f d2 = dx * dx + dy * dy;
        lanes_i in = (d2 < k->r2) & (d2 > 0.0f);
        if (self >= 0) { /* positions from the past: its own entry is not at distance 0 */
            lanes_i index;
            for (int l = 0; l < LANES; l++) index[l] = j0 + l;
            in = (d2 < k->r2) & (index != self);
        }
        /* Another species is no α-neighbour (no lattice, no consensus, not
         * counted) but its body still repels: the gradient's repulsive
         * part only, as the potential treats another kind (else two
         * species gathered at one target pass through each other). */
        const lanes_i own = S ? in & (lanes_load(S + j0) == species) : in;
        /* Lanes out of range may hold anything (even NaN): every sum
         * below keeps only the lanes in range, bit by bit. */
        const lanes_f root = lanes_sqrt(one + k->eps * d2);  /* √(1 + ε‖d‖²) */
        const lanes_f z = (root - one) * k->inv_eps;         /* σ-norm */
        const lanes_f shifted = z + k->c_minus_d;            /* z − d_α + c */
        const lanes_f hyp = lanes_sqrt(one + shifted * shifted);
        const lanes_f q = one / (root * hyp);                /* both reciprocals from one division */
        const lanes_f inv = q * hyp;                         /* 1/root: n_ij = d · inv */
        const lanes_f phi = 0.5f * (k->a_plus_b * (shifted * (q * root)) + k->a_minus_b);
        const lanes_f rho = bump_lanes(z * k->inv_r_alpha, k->h_alpha, k->inv_h_span);
        const lanes_f phi_alpha = rho * lanes_select(own, phi, lanes_select(phi < 0.0f, phi, zero));
        const lanes_f g = lanes_keep(in, phi_alpha * inv);
        gx += g * dx;
        gy += g * dy;
        cx += lanes_keep(own, rho * (lanes_load(VX + j0) - vx));
        cy += lanes_keep(own, rho * (lanes_load(VY + j0) - vy));
        nn += lanes_keep(own, one);
    }
    const quad_f q0 = lanes_sum4(gx, gy, cx, cy), q1 = lanes_sum4(nn, zero, zero, zero);
    out->grad_x += q0[0];
    out->grad_y += q0[1];
    out->cons_x += q0[2];
    out->cons_y += q0[3];
    out->neighbours += (int)q1[0];
}

void olfati_agent(const world_t *w, const olfati_consts_t *k, size_t i, const olfati_sums_t *s, finish_batch_t *out)
{
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]); /* its species' gains */
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];

    float ux = p->os_c1_alpha * s->grad_x + p->os_c2_alpha * s->cons_x;
    float uy = p->os_c1_alpha * s->grad_y + p->os_c2_alpha * s->cons_y;
    if (p->model >= MODEL_OLFATI2) {
        /* γ-agent: the nearest client target, else the moving reference. */
        vec2 to_ref;
        float ref_vx, ref_vy;
        const target_t *t = motion_nearest_target(w, px, py, &to_ref);
        if (t) {
            ref_vx = t->vx;
            ref_vy = t->vy;
        } else {
            to_ref = (vec2){w->gamma_x - px, w->gamma_y - py};
            if (p->border == BORDER_WRAP) {
                to_ref.x = motion_wrap_delta(to_ref.x, w->width);
                to_ref.y = motion_wrap_delta(to_ref.y, w->height);
            }
            ref_vx = p->os_ref_vx;
            ref_vy = p->os_ref_vy;
        }
        ux += p->os_c1_gamma * to_ref.x - p->os_c2_gamma * (vx - ref_vx);
        uy += p->os_c1_gamma * to_ref.y - p->os_c2_gamma * (vy - ref_vy);
    }
    if (p->model == MODEL_OLFATI3) {
        vec2 beta = olfati_beta_feedback(w, k, px, py, vx, vy);
        ux += beta.x;
        uy += beta.y;
    }

    float nvx = vx + ux * w->dt, nvy = vy + uy * w->dt;
    float speed2 = nvx * nvx + nvy * nvy;
    if (speed2 > p->max_speed * p->max_speed) {
        float m = p->max_speed / sqrtf(speed2);
        nvx *= m;
        nvy *= m;
    }
    finish_batch_add(w, out, i, px + nvx * w->dt, py + nvy * w->dt, nvx, nvy, 0);
}

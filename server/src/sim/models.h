/* models: each flocking model's rule for one agent, given what it sensed.
 * The step kernel (kernel.c) finds the neighbour candidates, senses, calls
 * the model. Reynolds, the unicycle and Couzin keep each agent's sums and
 * run their rule for LANES consecutive agents at once; Olfati-Saber
 * decides one agent at a time and limits and moves LANES at once
 * (olfati_batch_t). Every function
 * reads only w->cur and writes only agent i of w->next. */
#ifndef SWARMCAST_MODELS_H
#define SWARMCAST_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/finish_batch.h"
#include "sim/neighbours.h"
#include "sim/world.h"

/* Reynolds boids: separation, alignment, cohesion as steering vectors,
 * obstacle avoidance, leaders seeking (or arriving at) the nearest target.
 * The rules run for up to REYNOLDS_BATCH consecutive agents at once, one per
 * vector lane; each agent's result is the same whichever batch it is in. */
#define REYNOLDS_BATCH LANES

typedef struct reynolds_batch {
    size_t first; /* the batch is agents first … first + count − 1 of w->cur */
    int count;
    quad_f sums[REYNOLDS_BATCH][3]; /* each agent's sense_quads_t */
} reynolds_batch_t;

void reynolds_batch(const world_t *w, const reynolds_batch_t *b);

/* Unicycle agents: constant speed, heading turned by a proportional
 * controller toward k_s ŝ + k_a â + k_c ĉ, gains jittered per tick.
 * unicycle_agent keeps what agent i sensed; unicycle_flush runs the rule
 * for up to LANES consecutive agents at once, one per vector lane, as
 * reynolds_batch does (each agent's result is the same whichever batch it
 * is in). */
typedef struct unicycle_batch {
    size_t first; /* agents first … first + count − 1 */
    int count;
    /* What each sensed (sense_sums_t, field by field). */
    float sep_x[LANES], sep_y[LANES], ali_x[LANES], ali_y[LANES], coh_x[LANES], coh_y[LANES];
    float pair_x[LANES], pair_y[LANES];
    int n_ali[LANES], n_any[LANES], n_ahead[LANES];
} unicycle_batch_t;

void unicycle_agent(const world_t *w, size_t i, const sense_sums_t *s, unicycle_batch_t *out);
/* Steers and moves the batch's agents into w->next; the batch is then empty. */
void unicycle_flush(const world_t *w, unicycle_batch_t *b);

/* Olfati-Saber: what an α-agent senses of its neighbours. */
typedef struct olfati_sums {
    float grad_x, grad_y;       /* Σ φ_α(‖q_j − q_i‖_σ) n_ij */
    float cons_x, cons_y;       /* Σ a_ij(q) (p_j − p_i) */
    int neighbours;
} olfati_sums_t;

/* The constants of the σ-norm, bump and action functions for the current
 * parameters, computed once per step. */
typedef struct olfati_consts {
    float eps, r_alpha, d_alpha, h_alpha, a_plus_b, a_minus_b, c;
    float inv_eps, inv_r_alpha, inv_h_span; /* 1/ε, 1/r_α, 1/(1 − h_α) */
    float c_minus_d;                        /* c − d_α */
    float r2;                   /* interaction range squared (Euclidean) */
    int32_t r2_open_bound;      /* 0 < ‖d‖² < r2 as one signed comparison of bits + 2³¹ − 1 */
    float r_beta2, d_beta_sigma, h_beta;
    /* The β bump's t = (z/dβ − h_β)/(1 − h_β) − ½ = z·beta_bump_scale − beta_bump_offset. */
    float beta_bump_scale, beta_bump_offset;
    /* olfati_beta_prepare's, for a step's obstacles (w->places): the early
     * rejection's squared bounds per obstacle, and the box round their
     * centres (lo_x, hi_x, lo_y, hi_y), which tells an agent whether any
     * displacement to them may take the wrapped way. */
    bool beta_ready;
    float beta_box[4];
    float beta_far2[SIM_MAX_OBSTACLES], beta_near2[SIM_MAX_OBSTACLES];
    /* The pair loop's, from r = √(1/ε + ‖d‖²) = √(1 + ε‖d‖²)/√ε (no
     * multiplication by ε per pair): y = x√ε = r − shift_root with
     * x = z − d_α + c, the bump ½ + t Q(t²) (bump.h) of t = (z/r_α − h_α)/(1 − h_α)
     * − ½ as ½ + u bump_q(u²) of u = r − bump_root (the slope dt/dr folded
     * into bump_q; plateau where u < bump_plateau), and φ(z − d_α)/√(1 + ε‖d‖²) =
     * grad_scale·(y + rise_share·rise)/(rise·r) with rise = √(y² + eps_sigma)
     * = √(1 + x²)√ε, rise_share = (a − b)/(a + b), grad_scale = ½(a + b)/√ε
     * (applied to the span's sum, once). */
    float root_offset, eps_sigma, shift_root, bump_root, bump_q[4], bump_plateau, rise_share, grad_scale;
} olfati_consts_t;

olfati_consts_t olfati_consts(const sim_params_t *p);
/* Sums over candidates [0, count) of X/Y/VX/VY (relative positions taken
 * from (px, py), shortest displacement when pair_wrap), skipping self (or,
 * when self < 0, whoever is at distance 0) and, when S is given, candidates
 * whose S is not this species. The arrays must be readable 2·LANES − 1
 * entries past count, the first LANES of them out of range in X/Y
 * (SENSE_FAR: the kernel's spans are). */
/* The largest error of those sums against the exact ones (double, libm),
 * relative to the sum of the terms' sizes (for the gradient Σ max(a, b)
 * ‖d‖/√(1 + ε‖d‖²), for the consensus Σ |p_j − p_i|₁): float rounding
 * and the bump's polynomial (bump.h). test_olfati.c checks it. */
#define OLFATI_PAIR_ERROR 1e-5
void olfati_sense(const olfati_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, olfati_sums_t *out);
/* Algorithm 1 (+ γ feedback for olfati2, + β obstacles for olfati3). */
/* Up to LANES consecutive agents' shares of u, given the γ-agent's
 * (their nearest targets looked up LANES at a time), limited and moved
 * LANES at a time (the same bits as one at a time), then handed on to
 * `ends`. */
typedef struct olfati_batch {
    size_t first;
    int count;
    const sim_params_t *p[LANES];           /* each agent's species' gains */
    float x[LANES], y[LANES], vx[LANES], vy[LANES];
    float ux[LANES], uy[LANES];             /* the α-agents' share of u */
    float beta_x[LANES], beta_y[LANES];     /* olfati3's β-agents' share */
    float nvx[LANES], nvy[LANES], max_speed[LANES];
    finish_batch_t ends;
} olfati_batch_t;
void olfati_agent(const world_t *w, const olfati_consts_t *k, size_t i, const olfati_sums_t *s, olfati_batch_t *out);
/* Ends the batch's agents (finish_batch_flush); the batch is then empty. */
void olfati_flush(const world_t *w, olfati_batch_t *b);

/* Couzin et al. 2002: what an agent perceives in its three zones. */
typedef struct couzin_sums {
    float rep_x, rep_y; /* −Σ r̂_ij over the zone of repulsion */
    float ori_x, ori_y; /* Σ v̂_j over the zone of orientation (without itself) */
    float att_x, att_y; /* Σ r̂_ij over the zone of attraction */
    int n_rep, n_ori, n_att;
} couzin_sums_t;

/* The zones and field of perception for the current parameters, computed
 * once per step. */
typedef struct couzin_consts {
    float rr2, ro2, ra2; /* squared outer radii of the three zones */
    float cos_half;      /* cos(α/2): perceived iff ĥ·r̂ ≥ this */
    bool blind;          /* α < 360° */
    bool avx512;         /* sensed with AVX-512's mask registers (the same sums) */
} couzin_consts_t;

couzin_consts_t couzin_consts(const sim_params_t *p);
/* The outer radius of the zone of attraction, r_r + Δr_o + Δr_a. */
float couzin_reach(const sim_params_t *p);
/* VX/VY[0, count) (readable and writable LANES − 1 past count) turned into
 * unit headings in place, 0 for a candidate standing still: what
 * couzin_sense takes. */
void couzin_headings(float *VX, float *VY, int32_t count);
/* Sums over candidates [0, count), as olfati_sense takes them (X/Y out of
 * range past count), but with VX/VY the candidates' unit headings
 * (couzin_headings). Each sum is within COUZIN_SUM_ERROR of the exact sum
 * of the same terms (r̂_ij or v̂_j, of the neighbours the float compares
 * place in the zone), relative to the sum of the terms' sizes: float
 * rounding of r̂ and of at most SIM_MAX_CANDIDATES / 16 + 4 additions in a
 * row. test_couzin.c checks it. */
#define COUZIN_SUM_ERROR 5e-6
void couzin_sense(const couzin_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, couzin_sums_t *out);
/* The desired direction (unit) from the sums and the agent's unit heading
 * (hx, hy): repulsion alone if any, else orientation and attraction
 * averaged. False when nothing was perceived (or the terms cancel). */
bool couzin_direction(const couzin_sums_t *s, float hx, float hy, float *dx, float *dy);
/* heading turned toward desired (radians) by at most max_turn. */
float couzin_turn(float heading, float desired, float max_turn);
/* couzin_agent keeps what agent i perceived; couzin_flush runs the rule
 * (noise, the turning limit and the move at constant speed) for up to
 * LANES consecutive agents at once, one per vector lane (each agent's
 * result is the same whichever batch it is in). */
typedef struct couzin_batch {
    size_t first; /* agents first … first + count − 1 */
    int count;
    float rep_x[LANES], rep_y[LANES], ori_x[LANES], ori_y[LANES], att_x[LANES], att_y[LANES];
    int n_rep[LANES], n_ori[LANES], n_att[LANES];
} couzin_batch_t;

void couzin_agent(const world_t *w, size_t i, const couzin_sums_t *s, couzin_batch_t *out);
/* Steers and moves the batch's agents into w->next; the batch is then empty. */
void couzin_flush(const world_t *w, couzin_batch_t *b);

#endif

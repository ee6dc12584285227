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
#include <string.h>

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
    /* The pair loop's constants in double, each rounded once: x and t are
     * differences of terms near 1/ε, so each constant's rounding counts. */
    const double e = eps, h = p->os_h_alpha, ie = 1.0 / e, ise = 1.0 / sqrt(e);
    const double r_alpha = (sqrt(1.0 + e * p->os_r * p->os_r) - 1.0) / e;
    const double d_alpha = (sqrt(1.0 + e * p->os_d * p->os_d) - 1.0) / e;
    const double c_exact = fabs((double)a - b) / sqrt(4.0 * a * b);
    const double slope = ise / (r_alpha * (1.0 - h)); /* dt/dr, t the bump's argument */
    /* 0 < ‖d‖² < r² ⇔ bits(‖d‖²) − 1 < bits(r²) − 1 unsigned (positive floats
     * order as their bits; −0, NaN and negatives wrap to the top), the same
     * as (bits + 2³¹ − 1) < (bits(r²) + 2³¹ − 1) signed. */
    const float r2 = p->os_r * p->os_r;
    uint32_t r2_bits;
    memcpy(&r2_bits, &r2, sizeof r2_bits);
    return (olfati_consts_t){
        .r2_open_bound = (int32_t)(r2_bits + 0x7fffffffu),
        /* the pair loop's root is √(1/ε + ‖d‖²) = √(1 + ε‖d‖²)/√ε: see models.h */
        .root_offset = (float)ie,
        .eps_sigma = eps,
        /* x√ε = r − shift_root and t = (r − bump_root)·slope:
         * the r where x = 0 and t = 0 taken away first, exactly where r is
         * near them (Sterbenz), so that x and t carry r's rounding only. */
        .shift_root = (float)(sqrt(e) * (ie + d_alpha - c_exact)),
        /* bump.h's ½ + t Q(t²) with t = slope·u, u = r − bump_root, as
         * ½ + u Q'(u²): Q's coefficient of t²ᵏ times slope²ᵏ⁺¹, which saves
         * the multiplication by the slope; the plateau t < −½ is u < −½/slope */
        .bump_q = {(float)(BUMP_Q0 * slope), (float)(BUMP_Q1 * pow(slope, 3)), (float)(BUMP_Q2 * pow(slope, 5)),
                   (float)(BUMP_Q3 * pow(slope, 7))},
        .bump_plateau = (float)(-0.5 / slope),
        .bump_root = (float)(sqrt(e) * r_alpha * ((1.0 - h) * 0.5 + h) + ise),
        .rise_share = (float)(((double)a - b) / ((double)a + b)),
        .grad_scale = (float)(0.5 * ((double)a + b) * ise),
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
        .beta_bump_scale = 1.0f / sigma_norm(p->os_d_beta * p->os_d_beta, eps) / (1.0f - p->os_h_beta),
        .beta_bump_offset = p->os_h_beta / (1.0f - p->os_h_beta) + 0.5f,
    };
}

/* The 16-lane loop: where the build has AVX-512 clones, with GCC (its
 * target pragma and level names). */
#if KERNEL_TOP_LEVEL >= 4 && defined(__GNUC__) && !defined(__clang__)
#define OLFATI_WIDE 1
#else
#define OLFATI_WIDE 0
#endif

/* What N candidates from j0 add to the sums, lane by lane, in vectors V
 * with masks M of N lanes (lanes.h's 8, wide.h's 16), defined once for
 * both widths: name_t holds the terms, name(…) works them out.
 *
 * Per pair: two square roots and one division, all lane-wise.
 * r = √(1/ε + ‖d‖²) = √(1 + ε‖d‖²)/√ε (no multiplication by ε); y = x√ε
 * = r − r_x, x = z − d_α + c, and the bump's argument t = (r − r_t)·slope
 * (olfati_consts: exact near r_x and r_t, where it counts); σ1(x) = y/rise
 * with rise = √(y² + ε); and φ(z − d_α)/√(1 + ε‖d‖²) = ½(a + b)/√ε ·
 * (y + rise (a − b)/(a + b))/(rise r), one division, and no
 * multiplication by 1/√ε per pair; the factor ½(a + b)/√ε is applied to
 * the span's sum, once,
 * and with a = b (the defaults) the rise term is left out (it adds +0:
 * the same bits). The bump's cosine is a polynomial (bump.h).
 * The square roots and the division are about half of what a pair costs
 * on AVX2 (3.7 ns per 8 lanes of about 9 in a crowd); the multiplications
 * and adds the other half, so each one taken out counts.
 * Another species is no α-neighbour (no lattice, no consensus, not
 * counted) but its body still repels: the gradient's repulsive part only,
 * as the potential treats another kind (else two species gathered at one
 * target pass through each other). With positions from the past the
 * agent's own entry, self, is not at distance 0. Lanes out of range may
 * hold anything (even NaN): every term keeps only the lanes in range, bit
 * by bit. The callers pass constants for S, self and pair_wrap in the
 * common case, so that its loop tests none of them.
 *
 * The work is in parts, so that the loops can start the next vectors'
 * square roots and divisions before the current one's terms: the chain
 * through them is long (about a hundred cycles), and with all of it in
 * one iteration the processor's window filled with instructions waiting
 * on it. name_reach goes as far as r's square root, name_phi from there
 * to the division, name the terms. */
#define OLFATI_TERMS_DEFINE(V, M, name, load, vsqrt, ...)                                                       \
    typedef struct name##_near {                                                                              \
        V dx, dy, root, phi; /* phi: φ(z − d_α)/√(1 + ε‖d‖²), over grad_scale */                             \
        M in, own;                                                                                            \
    } name##_near_t;                                                                                          \
    typedef struct name {                                                                                     \
        V gx, gy, cx, cy;                                                                                     \
        M nn; /* −1 in the lanes of neighbours */                                                             \
    } name##_t;                                                                                               \
    /* Up to the first square root. */                                                                        \
    LANES_INLINE name##_near_t name##_reach(const olfati_consts_t *k, const float *X, const float *Y,         \
                                           const float *S, float species, int32_t j0, int32_t self, float px, \
                                           float py, bool pair_wrap, float width, float height)               \
    {                                                                                                         \
        const float half_w = 0.5f * width, half_h = 0.5f * height;                                            \
        V dx = load(X + j0) - px, dy = load(Y + j0) - py;                                                     \
        if (pair_wrap) { /* motion_wrap_delta, lane by lane */                                                \
            const M over_x = dx > half_w, under_x = dx < -half_w, over_y = dy > half_h, under_y = dy < -half_h; \
            dx = (V)(((M)(dx - width) & over_x) | ((M)(dx + width) & under_x) | ((M)dx & ~(over_x | under_x))); \
            dy = (V)(((M)(dy - height) & over_y) | ((M)(dy + height) & under_y) | ((M)dy & ~(over_y | under_y))); \
        }                                                                                                     \
        const V d2 = dx * dx + dy * dy;                                                                       \
        const M lane = {__VA_ARGS__};                                                                         \
        /* 0 < ‖d‖² < r² by the bits, as one unsigned comparison (olfati_consts) */                          \
        typedef uint32_t name##_u __attribute__((vector_size(sizeof(M))));                                    \
        const M in = self >= 0 ? (d2 < k->r2) & ((lane + j0) != self)                                         \
                               : (M)((name##_u)(M)d2 + 0x7fffffffu) < k->r2_open_bound;                      \
        const V root = vsqrt(d2 + k->root_offset);           /* √(1/ε + ‖d‖²) */                                \
        return (name##_near_t){                                                                               \
            .dx = dx, .dy = dy, .root = root,                                                                 \
            .in = in, .own = S ? in & (load(S + j0) == species) : in,                                         \
        };                                                                                                    \
    }                                                                                                         \
    LANES_INLINE name##_near_t name##_phi(const olfati_consts_t *k, name##_near_t a, bool balanced)          \
    {                                                                                                         \
        const V root = a.root;                                                                                \
        const V y = root - k->shift_root;              /* x √ε, x = z − d_α + c, z the σ-norm */              \
        const V rise = vsqrt(y * y + k->eps_sigma);    /* √(1 + x²) √ε: σ1(x) = y/rise */                     \
        /* φ(z − d_α)/√(1 + ε‖d‖²) = grad_scale (y + rise (a − b)/(a + b))/(rise root) */                    \
        const V phi_num = balanced ? y : y + k->rise_share * rise;                                            \
        a.phi = phi_num / (rise * root);                                                                      \
        return a;                                                                                             \
    }                                                                                                         \
    /* The terms; several: S was given. */                                                                    \
    LANES_INLINE name##_t name(const olfati_consts_t *k, const name##_near_t *n, const float *VX,             \
                               const float *VY, bool several, int32_t j0, float vx, float vy)                 \
    {                                                                                                         \
        const M in = n->in, own = n->own;                                                                     \
        const V phi = n->phi;                                                                                 \
        /* the bump: 1 on its plateau, the polynomial above it (olfati_bump_poly) */                           \
        const V u = n->root - k->bump_root, u2 = u * u, one = (V){0} + 1.0f;                                   \
        const V poly = 0.5f + u * (((k->bump_q[3] * u2 + k->bump_q[2]) * u2 + k->bump_q[1]) * u2 + k->bump_q[0]); \
        const M plateau = u < k->bump_plateau;                                                                \
        const V rho = (V)(((M)one & plateau) | ((M)poly & ~plateau));                                         \
        /* the other species' lanes: only a repulsive φ */                                                     \
        const V phi_kept = several ? (V)(((M)phi & own) | ((M)phi & (phi < 0.0f) & ~own)) : phi;              \
        const V g = (V)((M)(rho * phi_kept) & in);                                                            \
        return (name##_t){                                                                                    \
            .gx = g * n->dx,                                                                                  \
            .gy = g * n->dy,                                                                                  \
            .cx = (V)((M)(rho * (load(VX + j0) - vx)) & own),                                                 \
            .cy = (V)((M)(rho * (load(VY + j0) - vy)) & own),                                                 \
            .nn = own,                                                                                        \
        };                                                                                                    \
    }

OLFATI_TERMS_DEFINE(lanes_f, lanes_i, olfati_terms, lanes_load, lanes_sqrt, 0, 1, 2, 3, 4, 5, 6, 7)

/* The sums as 8-lane vectors: candidate j goes to lane j mod 8 of the
 * first set when j mod 16 < 8, else of the second; each lane in order of
 * j. The two sets are added, then the lanes in a fixed order (the span is
 * the same whichever thread senses it, so the sums are too, and the same
 * at either width: a 16-lane accumulator is the two sets side by side). */
typedef struct olfati_acc {
    lanes_f gx, gy, cx, cy;
    lanes_i nn; /* minus the neighbours: each adds its mask, −1 */
} olfati_acc_t;

static inline void olfati_acc_out(const olfati_acc_t *lo, const olfati_acc_t *hi, float grad_scale, olfati_sums_t *out)
{
    const quad_f q0 = lanes_sum4(lo->gx + hi->gx, lo->gy + hi->gy, lo->cx + hi->cx, lo->cy + hi->cy);
    out->grad_x += grad_scale * q0[0];
    out->grad_y += grad_scale * q0[1];
    out->cons_x += q0[2];
    out->cons_y += q0[3];
    const lanes_i nn = lo->nn + hi->nn;
    for (int l = 0; l < LANES; l++) out->neighbours -= nn[l];
}

/* Sums over the span, eight candidates at a time, in two sets. */
LANES_INLINE void olfati_span_lanes(const olfati_consts_t *k, const float *X, const float *Y, const float *VX,
                                    const float *VY, const float *S, float species, int32_t count, int32_t self,
                                    float px, float py, float vx, float vy, bool pair_wrap, bool balanced,
                                    float width, float height, olfati_sums_t *out)
{
    olfati_acc_t lo = {0}, hi = {0};
    const bool several = S != NULL;
    int32_t j0 = 0;
    /* In three stages: the displacements and r's square root for the vector
     * after next, rise's square root and the division for the next, the
     * terms of this one (the two square roots' latencies then overlap more
     * work than with both a vector ahead: AVX2's crowd 11 % faster). */
    olfati_terms_near_t a = olfati_terms_reach(k, X, Y, S, species, 0, self, px, py, pair_wrap, width, height);
    olfati_terms_near_t b = a;
    if (LANES < count) b = olfati_terms_reach(k, X, Y, S, species, LANES, self, px, py, pair_wrap, width, height);
    olfati_terms_near_t n = olfati_terms_phi(k, a, balanced);
    for (; j0 + LANES < count; j0 += 2 * LANES) { /* a vector for each set */
        /* (this reads at most 2·LANES − 1 entries past count, and is not used past it) */
        a = olfati_terms_reach(k, X, Y, S, species, j0 + 2 * LANES, self, px, py, pair_wrap, width, height);
        const olfati_terms_near_t m = olfati_terms_phi(k, b, balanced);
        const olfati_terms_t t = olfati_terms(k, &n, VX, VY, several, j0, vx, vy);
        lo.gx += t.gx, lo.gy += t.gy, lo.cx += t.cx, lo.cy += t.cy, lo.nn += t.nn;
        if (j0 + 3 * LANES < count) /* (only when the next round uses it) */
            b = olfati_terms_reach(k, X, Y, S, species, j0 + 3 * LANES, self, px, py, pair_wrap, width, height);
        n = olfati_terms_phi(k, a, balanced);
        const olfati_terms_t u = olfati_terms(k, &m, VX, VY, several, j0 + LANES, vx, vy);
        hi.gx += u.gx, hi.gy += u.gy, hi.cx += u.cx, hi.cy += u.cy, lo.nn += u.nn; /* (a count: one will do) */
    }
    if (j0 < count) { /* the last up to LANES */
        const olfati_terms_t t = olfati_terms(k, &n, VX, VY, several, j0, vx, vy);
        lo.gx += t.gx, lo.gy += t.gy, lo.cx += t.cx, lo.cy += t.cy, lo.nn += t.nn;
    }
    olfati_acc_out(&lo, &hi, k->grad_scale, out);
}

KERNEL_CLONES
static void olfati_sense_lanes(const olfati_consts_t *k, const float *X, const float *Y, const float *VX,
                               const float *VY, const float *S, float species, int32_t count, int32_t self, float px,
                               float py, float vx, float vy, bool pair_wrap, float width, float height,
                               olfati_sums_t *out)
{
    if (!S && self < 0 && !pair_wrap && k->rise_share == 0.0f) /* a = b: φ odd */
        olfati_span_lanes(k, X, Y, VX, VY, NULL, 0.0f, count, -1, px, py, vx, vy, false, true, width, height, out);
    else if (!S && self < 0 && !pair_wrap)
        olfati_span_lanes(k, X, Y, VX, VY, NULL, 0.0f, count, -1, px, py, vx, vy, false, false, width, height, out);
    else
        olfati_span_lanes(k, X, Y, VX, VY, S, species, count, self, px, py, vx, vy, pair_wrap, false, width, height,
                         out);
}

#if OLFATI_WIDE
/* Sixteen candidates at a time, in one AVX-512 register (wide.h): each
 * instruction does the work of two 8-lane ones. Everything 16 lanes wide
 * is compiled for AVX-512 from the start (GCC lowers a comparison of a
 * vector wider than the target's lane by lane, before inlining), and only
 * runs where the CPU has it; the other levels keep the 8-lane loop.
 *
 * The 8-lane loop's operations lane for lane, with AVX-512's mask
 * registers for its masks: a comparison gives a mask, a masked add leaves
 * a sum alone where the 8-lane loop adds a zero (the same bits: a sum
 * that starts at +0 is never −0), the bump's plateau is a blend, and the
 * neighbours are counted by the mask's population. */
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#include <immintrin.h>

#include "sim/wide.h"

/* Up to r's square root for 16 candidates from j0 (olfati_terms_reach's). */
typedef struct olfati_wide_near {
    wide_f dx, dy, root, phi;
    __mmask16 in, own;
} olfati_wide_near_t;

LANES_INLINE olfati_wide_near_t olfati_wide_reach(const olfati_consts_t *k, const float *X, const float *Y,
                                                  const float *S, float species, int32_t j0, int32_t self, float px,
                                                  float py, bool pair_wrap, float width, float height)
{
    const wide_f zero = {0};
    wide_f dx = wide_load(X + j0) - px, dy = wide_load(Y + j0) - py;
    if (pair_wrap) { /* motion_wrap_delta, lane by lane */
        const wide_f w = zero + width, h = zero + height;
        const __mmask16 over_x = _mm512_cmp_ps_mask(dx, zero + 0.5f * width, _CMP_GT_OQ);
        const __mmask16 under_x = _mm512_cmp_ps_mask(dx, zero - 0.5f * width, _CMP_LT_OQ);
        const __mmask16 over_y = _mm512_cmp_ps_mask(dy, zero + 0.5f * height, _CMP_GT_OQ);
        const __mmask16 under_y = _mm512_cmp_ps_mask(dy, zero - 0.5f * height, _CMP_LT_OQ);
        dx = _mm512_mask_add_ps(_mm512_mask_sub_ps(dx, over_x, dx, w), under_x, dx, w);
        dy = _mm512_mask_add_ps(_mm512_mask_sub_ps(dy, over_y, dy, h), under_y, dy, h);
    }
    const wide_f d2 = dx * dx + dy * dy;
    __mmask16 in;
    if (self >= 0) {
        const __m512i lane = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                              _mm512_set1_epi32(j0));
        in = _mm512_cmp_ps_mask(d2, zero + k->r2, _CMP_LT_OQ) &
             _mm512_cmpneq_epi32_mask(lane, _mm512_set1_epi32(self));
    } else { /* 0 < ‖d‖² < r², as the 8-lane loop's comparison of the bits */
        in = _mm512_cmplt_epi32_mask(_mm512_add_epi32(_mm512_castps_si512(d2), _mm512_set1_epi32(0x7fffffff)),
                                     _mm512_set1_epi32(k->r2_open_bound));
    }
    return (olfati_wide_near_t){
        .dx = dx, .dy = dy,
        .root = wide_sqrt(d2 + k->root_offset), /* √(1/ε + ‖d‖²) */
        .in = in,
        .own = S ? in & _mm512_cmp_ps_mask(wide_load(S + j0), zero + species, _CMP_EQ_OQ) : in,
    };
}

/* From r's square root to the division (olfati_terms_phi's). */
LANES_INLINE olfati_wide_near_t olfati_wide_phi(const olfati_consts_t *k, olfati_wide_near_t a, bool balanced)
{
    const wide_f y = a.root - k->shift_root; /* x √ε */
    const wide_f rise = wide_sqrt(y * y + k->eps_sigma);
    const wide_f phi_num = balanced ? y : y + k->rise_share * rise;
    a.phi = phi_num / (rise * a.root);
    return a;
}

/* The sums of 16 lanes (or of the lanes of `lanes`) into g/c, as the 8-lane
 * loop's two sets side by side. */
typedef struct olfati_wide_acc {
    wide_f gx, gy, cx, cy;
    int neighbours;
} olfati_wide_acc_t;

LANES_INLINE void olfati_wide_terms(const olfati_consts_t *k, const olfati_wide_near_t *n, const float *VX,
                                    const float *VY, bool several, int32_t j0, float vx, float vy, __mmask16 lanes,
                                    olfati_wide_acc_t *acc)
{
    const wide_f zero = {0}, one = zero + 1.0f;
    const __mmask16 in = n->in & lanes, own = n->own & lanes;
    /* the bump: 1 on its plateau, the polynomial above it (the 8-lane loop's) */
    const wide_f u = n->root - k->bump_root, u2 = u * u;
    const wide_f poly = 0.5f + u * (((k->bump_q[3] * u2 + k->bump_q[2]) * u2 + k->bump_q[1]) * u2 + k->bump_q[0]);
    const wide_f rho = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(u, zero + k->bump_plateau, _CMP_LT_OQ), poly, one);
    /* the other species' lanes: only a repulsive φ */
    const __mmask16 kept = several ? in & (own | _mm512_cmp_ps_mask(n->phi, zero, _CMP_LT_OQ)) : in;
    const wide_f g = rho * n->phi;
    acc->gx = _mm512_mask_add_ps(acc->gx, kept, acc->gx, g * n->dx);
    acc->gy = _mm512_mask_add_ps(acc->gy, kept, acc->gy, g * n->dy);
    acc->cx = _mm512_mask_add_ps(acc->cx, own, acc->cx, rho * (wide_load(VX + j0) - vx));
    acc->cy = _mm512_mask_add_ps(acc->cy, own, acc->cy, rho * (wide_load(VY + j0) - vy));
    acc->neighbours += __builtin_popcount(own);
}

LANES_INLINE void olfati_span_wide(const olfati_consts_t *k, const float *X, const float *Y, const float *VX,
                                   const float *VY, const float *S, float species, int32_t count, int32_t self,
                                   float px, float py, float vx, float vy, bool pair_wrap, bool balanced,
                                   float width, float height, olfati_sums_t *out)
{
    const bool several = S != NULL;
    olfati_wide_acc_t acc = {{0}, {0}, {0}, {0}, 0};
    int32_t j0 = 0;
    /* In three stages, as the 8-lane loop: r's square root two vectors
     * ahead, the second square root and the division one ahead. */
    olfati_wide_near_t a = {0}, b = {0};
    if (count > 0) a = olfati_wide_reach(k, X, Y, S, species, 0, self, px, py, pair_wrap, width, height);
    b = a;
    if (WIDE < count) b = olfati_wide_reach(k, X, Y, S, species, WIDE, self, px, py, pair_wrap, width, height);
    olfati_wide_near_t n = olfati_wide_phi(k, a, balanced);
    for (; j0 + LANES < count; j0 += WIDE) { /* both halves hold a candidate */
        olfati_wide_near_t c = b;
        if (j0 + 2 * WIDE < count) /* two vectors on (else it would read too far) */
            c = olfati_wide_reach(k, X, Y, S, species, j0 + 2 * WIDE, self, px, py, pair_wrap, width, height);
        const olfati_wide_near_t m = olfati_wide_phi(k, b, balanced);
        olfati_wide_terms(k, &n, VX, VY, several, j0, vx, vy, 0xffff, &acc);
        n = m;
        b = c;
    }
    if (j0 < count) /* the last up to LANES: the low half only (the high one reads what may be anything) */
        olfati_wide_terms(k, &n, VX, VY, several, j0, vx, vy, 0x00ff, &acc);
    const olfati_acc_t lo = {wide_lo(acc.gx), wide_lo(acc.gy), wide_lo(acc.cx), wide_lo(acc.cy), {0}};
    const olfati_acc_t hi = {wide_hi(acc.gx), wide_hi(acc.gy), wide_hi(acc.cx), wide_hi(acc.cy), {0}};
    olfati_acc_out(&lo, &hi, k->grad_scale, out);
    out->neighbours += acc.neighbours;
}

static void olfati_sense_wide(const olfati_consts_t *k, const float *X, const float *Y,
                                                 const float *VX, const float *VY, const float *S, float species,
                                                 int32_t count, int32_t self, float px, float py, float vx, float vy,
                                                 bool pair_wrap, float width, float height, olfati_sums_t *out)
{
    if (!S && self < 0 && !pair_wrap && k->rise_share == 0.0f) /* a = b: φ odd */
        olfati_span_wide(k, X, Y, VX, VY, NULL, 0.0f, count, -1, px, py, vx, vy, false, true, width, height, out);
    else if (!S && self < 0 && !pair_wrap)
        olfati_span_wide(k, X, Y, VX, VY, NULL, 0.0f, count, -1, px, py, vx, vy, false, false, width, height, out);
    else
        olfati_span_wide(k, X, Y, VX, VY, S, species, count, self, px, py, vx, vy, pair_wrap, false, width, height,
                        out);
}
#pragma GCC pop_options
#endif

/* The agent itself is the candidate at distance 0, as in the other models
 * (so is one on the very same spot, to which no direction can be given).
 * Every vector is worked out (in a flock most hold a neighbour, and a test
 * per vector mispredicts). The arrays must be readable 2·LANES − 1 entries
 * past count, the first LANES of them of X/Y out of range (SENSE_FAR in
 * the kernel's spans). */
void olfati_sense(const olfati_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, olfati_sums_t *out)
{
#if OLFATI_WIDE
    if (__builtin_cpu_supports("x86-64-v4")) {
        olfati_sense_wide(k, X, Y, VX, VY, S, species, count, self, px, py, vx, vy, pair_wrap, width, height, out);
        return;
    }
#endif
    olfati_sense_lanes(k, X, Y, VX, VY, S, species, count, self, px, py, vx, vy, pair_wrap, width, height, out);
}

void olfati_agent(const world_t *w, const olfati_consts_t *k, size_t i, const olfati_sums_t *s, olfati_batch_t *out)
{
    const agents_t *a = &w->cur;
    const sim_params_t *p = world_params_for(w, a->flags[i]); /* its species' gains */
    const float px = a->x[i], py = a->y[i], vx = a->vx[i], vy = a->vy[i];

    float ux = p->os_c1_alpha * s->grad_x + p->os_c2_alpha * s->cons_x;
    float uy = p->os_c1_alpha * s->grad_y + p->os_c2_alpha * s->cons_y;
    vec2 beta = {0.0f, 0.0f};
    if (p->model == MODEL_OLFATI3 && w->n_obstacles) /* (no obstacle adds +0, as the sum over none would) */
        beta = olfati_beta_feedback(w, k, px, py, vx, vy);

    if (out->count && i != out->first + (size_t)out->count) olfati_flush(w, out);
    if (!out->count) out->first = i;
    const int l = out->count++;
    out->p[l] = p;
    out->x[l] = px, out->y[l] = py, out->vx[l] = vx, out->vy[l] = vy;
    out->ux[l] = ux, out->uy[l] = uy, out->beta_x[l] = beta.x, out->beta_y[l] = beta.y;
    if (out->count == LANES) olfati_flush(w, out);
}

/* The batch's γ-agents (olfati2, olfati3): u += −c1γ (q − q_r) − c2γ (p − p_r)
 * toward the nearest client target, else the moving reference; then the
 * β-agents' share (olfati3), in that order, as one agent at a time did;
 * then p += u·dt. The nearest targets are looked up for the whole batch
 * (motion_nearest_target_index_agents: the same targets and displacements
 * as motion_nearest_target, at a fraction of the index's visits). */
static void olfati_feedback(const world_t *w, olfati_batch_t *b)
{
    float tx[LANES], ty[LANES];
    int32_t which[LANES];
    bool gamma = false;
    /* u is an acceleration: its change of velocity stands for the ticks
     * until the agent's next steer (staggered steering, world_steer_dt). */
    const float steer_dt = world_steer_dt(w);
    for (int l = 0; l < b->count; l++) gamma |= b->p[l]->model >= MODEL_OLFATI2;
    if (gamma && w->n_targets)
        motion_nearest_target_index_agents(w, b->count, b->x, b->y, tx, ty, which);
    else
        for (int l = 0; l < LANES; l++) which[l] = -1;
    for (int l = 0; l < b->count; l++) {
        const sim_params_t *p = b->p[l];
        const float px = b->x[l], py = b->y[l], vx = b->vx[l], vy = b->vy[l];
        float ux = b->ux[l], uy = b->uy[l];
        if (p->model >= MODEL_OLFATI2) {
            vec2 to_ref;
            float ref_vx, ref_vy;
            if (which[l] >= 0) {
                to_ref = (vec2){tx[l], ty[l]};
                ref_vx = w->targets[which[l]].vx;
                ref_vy = w->targets[which[l]].vy;
            } else {
                to_ref = (vec2){w->gamma_x - px, w->gamma_y - py};
                if (w->params.border == BORDER_WRAP) { /* the world's edge (world-only) */
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
            ux += b->beta_x[l];
            uy += b->beta_y[l];
        }
        b->nvx[l] = vx + ux * steer_dt, b->nvy[l] = vy + uy * steer_dt;
        b->max_speed[l] = p->max_speed;
    }
}

/* |p| ≤ max_speed (a safety net the paper does not need with its gains),
 * then q += p·dt, LANES agents at a time: the one-agent operations lane by
 * lane (the limit applied where the speed is over it), and straight into
 * the finish batch, which then ends them. Lanes past the count are not
 * used. */
KERNEL_CLONES
static void olfati_flush_lanes(const world_t *w, olfati_batch_t *b)
{
    const lanes_f nvx = lanes_load(b->nvx), nvy = lanes_load(b->nvy), max = lanes_load(b->max_speed);
    const lanes_f speed2 = nvx * nvx + nvy * nvy, m = max / lanes_sqrt(speed2);
    const lanes_i over = speed2 > max * max;
    const lanes_f vx = lanes_select(over, nvx * m, nvx), vy = lanes_select(over, nvy * m, nvy);
    finish_batch_t *e = &b->ends;
    e->first = b->first, e->count = b->count;
    lanes_store(e->x, lanes_load(b->x) + vx * w->dt);
    lanes_store(e->y, lanes_load(b->y) + vy * w->dt);
    lanes_store(e->vx, vx);
    lanes_store(e->vy, vy);
    memset(e->flags, 0, sizeof e->flags);
    finish_batch_flush(w, e);
}

void olfati_flush(const world_t *w, olfati_batch_t *b)
{
    if (b->count) {
        olfati_feedback(w, b);
        olfati_flush_lanes(w, b);
    }
    b->count = 0;
}

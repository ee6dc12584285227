/* couzin: the zone model of Couzin, Krause, James, Ruxton & Franks 2002
 * ("Collective memory and spatial sorting in animal groups", J. theor.
 * Biol. 218:1-11). Every agent flies at one constant speed s and, each
 * step, picks a desired direction d from the neighbours it perceives (all
 * round but a blind angle of 360° − α behind):
 *
 *   repulsion   (|r_ij| < r_r):          d = −Σ r̂_ij, and nothing else counts;
 *   otherwise   orientation (r_r … r_o):  d_o = Σ v̂_j over them and itself,
 *               attraction  (r_o … r_a):  d_a = Σ r̂_ij,
 *               d = ½(d̂_o + d̂_a) when both have neighbours, else the one
 *               that has, else its own heading;
 *
 * with r_o = r_r + Δr_o and r_a = r_o + Δr_a. d is rotated by Gaussian
 * noise, the heading turns toward it by at most θ·dt, and the agent moves
 * s·dt along its new heading.
 *
 * The paper's step is τ = 0.1 s; here the world's tick is, so the noise is
 * given per √s (cz_noise·√dt per tick: the same heading diffusion whatever
 * the tick rate) and the turn per tick is θ·dt. Obstacles and predators
 * (not in the paper) join d like in the other models, so that the live
 * world's features keep working; with neither present it is the paper's
 * model. Noise comes from the world's counter-based generator by (tick,
 * id), so a step is the same whatever the thread count. Angles and their
 * sines come from angles.h, not libm (within 1.3e-7). */
#include <math.h>
#include <stdbool.h>

#include "sim/angles.h"
#include "sim/clones.h"
#include "sim/heading_lanes.h"
#include "sim/lanes.h"
#include "sim/models.h"
#include "sim/neighbours_avx512.h"
#include "sim/motion.h"
#include "sim/prng.h"
#include "sim/prng_lanes.h"

#define PI_F 3.14159265f
/* Stream of the counter-based generator for the angular noise. */
#define NOISE_STREAM 0x637a5f6e6f6973ull

couzin_consts_t couzin_consts(const sim_params_t *p)
{
    const float r_o = p->cz_r_r + p->cz_dr_o, r_a = r_o + p->cz_dr_a;
    return (couzin_consts_t){
        .rr2 = p->cz_r_r * p->cz_r_r,
        .ro2 = r_o * r_o,
        .ra2 = r_a * r_a,
        .cos_half = cosf(p->cz_fov * (PI_F / 360.0f)),
        .blind = p->cz_fov < 360.0f,
#ifdef SENSE_HAS_AVX512
        .avx512 = sense_avx512_usable(),
#endif
    };
}

float couzin_reach(const sim_params_t *p) { return p->cz_r_r + p->cz_dr_o + p->cz_dr_a; }

/* One agent's perception, summed in two sets of eight lanes: set 0 takes
 * the candidates j with j mod 16 < 8, set 1 the others. Each lane of each
 * set adds its candidates in span order; the sets are added lane by lane
 * at the end (couzin_total). The portable loop runs one set after the
 * other, AVX-512's loop both at once as the two halves of a 16-lane
 * vector: the same additions in the same order, so the same bits. The
 * counts are integers, the same in any order (a mask lane is −1, so
 * subtracting it counts one). */
typedef struct couzin_set {
    lanes_f rx, ry, ox, oy, ax, ay;
} couzin_set_t;

typedef struct couzin_acc {
    couzin_set_t set[2];
    int n_rep, n_ori, n_att;
} couzin_acc_t;

/* Where a span's candidates are, seen from one agent: squared distances,
 * unit offsets r̂ (NaN or ∞ where the distance is 0 or out of range) and,
 * with a blind angle, whether each is inside the field of perception. The
 * portable loop works them out for a whole chunk of the span first, in
 * blocks that do not depend on each other, so that the square roots and
 * divisions of many blocks are under way at once; the sums then read them
 * back. In one loop the sums waited on each block's division, and the
 * core ran out of room for the work queued behind it. */
#define COUZIN_CHUNK 256
_Static_assert(COUZIN_CHUNK % (2 * LANES) == 0, "a chunk starts a block of set 0");
typedef struct couzin_places {
    float d2[COUZIN_CHUNK], ux[COUZIN_CHUNK], uy[COUZIN_CHUNK];
    uint32_t seen[COUZIN_CHUNK];
} couzin_places_t;

/* The places of candidates [j0, end) (end − j0 ≤ COUZIN_CHUNK, in blocks
 * of eight, the last one reaching past end), at [0, end − j0). */
LANES_INLINE void couzin_place(couzin_places_t *at, const couzin_consts_t *k, const float *X, const float *Y,
                               int32_t j0, int32_t end, float px, float py, float hx, float hy, bool pair_wrap,
                               float width, float height, const bool general, const bool blind)
{
    const lanes_f one = (lanes_f){0} + 1.0f;
    const float half_w = 0.5f * width, half_h = 0.5f * height;
    for (int32_t j = j0; j < end; j += LANES) {
        lanes_f dx = lanes_load(X + j) - px, dy = lanes_load(Y + j) - py;
        if (general && pair_wrap) { /* motion_wrap_delta, lane by lane */
            dx = lanes_select(dx > half_w, dx - width, lanes_select(dx < -half_w, dx + width, dx));
            dy = lanes_select(dy > half_h, dy - height, lanes_select(dy < -half_h, dy + height, dy));
        }
        const lanes_f d2 = dx * dx + dy * dy;
        /* Lanes out of range may divide by zero: masked out bit by bit. */
        const lanes_f inv = one / lanes_sqrt(d2);
        const lanes_f ux = dx * inv, uy = dy * inv;
        lanes_store(at->d2 + (j - j0), d2);
        lanes_store(at->ux + (j - j0), ux);
        lanes_store(at->uy + (j - j0), uy);
        if (blind) { /* inside the field of perception; NaN (distance 0) is not */
            lanes_i seen = hx * ux + hy * uy >= k->cos_half;
            if (general) seen &= d2 > 0.0f; /* r̂ infinite where d² underflows: couzin_sense */
            memcpy(at->seen + (j - j0), &seen, sizeof seen);
        }
    }
}

/* Adds candidates [0, count): blocks of eight, alternately to set 0 and
 * set 1, a chunk at a time. Each call site passes constants for `general`
 * (a self to leave out by index, species or per-pair wrapping may occur)
 * and `blind`, so that the common case (none of them) runs a loop with no
 * tests of them inside; every variant gives the same bits. */
LANES_INLINE void couzin_span(couzin_acc_t *acc, const couzin_consts_t *k, const float *X, const float *Y,
                             const float *VX, const float *VY, const float *S, float species, int32_t count,
                             int32_t self, float px, float py, float hx, float hy, bool pair_wrap, float width,
                             float height, const bool general, const bool blind)
{
    couzin_places_t at;
    lanes_i nr = {0}, no = {0}, na = {0};
    for (int32_t j0 = 0; j0 < count; j0 += COUZIN_CHUNK) { /* a multiple of 16: the sets stay as they were */
        const int32_t end = count - j0 < COUZIN_CHUNK ? count : j0 + COUZIN_CHUNK;
        couzin_place(&at, k, X, Y, j0, end, px, py, hx, hy, pair_wrap, width, height, general, blind);
        for (int set = 0; set < 2; set++) { /* one set's sums live at a time (AVX2 has 16 registers) */
            couzin_set_t a = acc->set[set];
            for (int32_t j = j0 + set * LANES; j < end; j += 2 * LANES) {
                const int32_t c = j - j0;
                const lanes_f d2 = lanes_load(at.d2 + c), ux = lanes_load(at.ux + c), uy = lanes_load(at.uy + c);
                /* Distance 0 is the agent itself (or one on the very same
                 * spot, which no zone can place); self is its entry when
                 * positions are from the past. Past count the positions
                 * are out of range. */
                lanes_i in = (d2 < k->ra2) & (blind ? lanes_load_i(at.seen + c) : d2 > 0.0f);
                if (general && self >= 0) {
                    lanes_i index;
                    for (int l = 0; l < LANES; l++) index[l] = j + l;
                    in &= index != self;
                }
                if (general && S) in &= lanes_load(S + j) == species;
                const lanes_i near = d2 < k->rr2, rep = in & near;
                const lanes_i beyond = in & ~near; /* orientation or attraction */
                const lanes_i ori = beyond & (d2 < k->ro2), att = beyond & ~ori;
                a.rx -= lanes_keep(rep, ux);
                a.ry -= lanes_keep(rep, uy);
                a.ox += lanes_keep(ori, lanes_load(VX + j));
                a.oy += lanes_keep(ori, lanes_load(VY + j));
                a.ax += lanes_keep(att, ux);
                a.ay += lanes_keep(att, uy);
                nr -= rep;
                no -= ori;
                na -= att;
            }
            acc->set[set] = a;
        }
    }
    for (int l = 0; l < LANES; l++) acc->n_rep += nr[l], acc->n_ori += no[l], acc->n_att += na[l];
}

/* The sums of both sets, lane by lane, then across the lanes. */
LANES_INLINE couzin_sums_t couzin_total(const couzin_set_t *s0, const couzin_set_t *s1, int n_rep, int n_ori,
                                        int n_att)
{
    const lanes_f zero = {0};
    const quad_f q0 = lanes_sum4(s0->rx + s1->rx, s0->ry + s1->ry, s0->ox + s1->ox, s0->oy + s1->oy),
                 q1 = lanes_sum4(s0->ax + s1->ax, s0->ay + s1->ay, zero, zero);
    return (couzin_sums_t){.rep_x = q0[0], .rep_y = q0[1], .ori_x = q0[2], .ori_y = q0[3], .att_x = q1[0],
                           .att_y = q1[1], .n_rep = n_rep, .n_ori = n_ori, .n_att = n_att};
}

#ifdef SENSE_HAS_AVX512
/* couzin_span's common case (general false) with AVX-512: sixteen
 * candidates a vector, its low half set 0 and its high half set 1, so that
 * one instruction does the work of two of the portable loop's. The compares
 * write mask registers, each sum is one merge-masked add or subtract, and
 * the counts are the masks' bits counted. The same IEEE operations on the
 * same lanes as the portable loop; a lane it adds +0 to is left as it was,
 * which is the same since no accumulator is ever −0 (they start at +0). */
typedef struct couzin_avx512 {
    __m512 rx, ry, ox, oy, ax, ay;
    int n_rep, n_ori, n_att;
} couzin_avx512_t;

/* Where candidates j0 … j0 + 15 are: offsets, squared distances and
 * inverse distances. With `last`, only the eight from j0 are loaded (the
 * span ends within them). */
typedef struct couzin_where16 {
    __m512 dx, dy, d2, inv;
} couzin_where16_t;

static inline __attribute__((always_inline)) SENSE_AVX512_TARGET couzin_where16_t
couzin_where_avx512(const float *X, const float *Y, int32_t j0, float px, float py, const bool last)
{
    const __m512 xs = last ? _mm512_maskz_loadu_ps(0x00ff, X + j0) : _mm512_loadu_ps(X + j0);
    const __m512 ys = last ? _mm512_maskz_loadu_ps(0x00ff, Y + j0) : _mm512_loadu_ps(Y + j0);
    const __m512 dx = _mm512_sub_ps(xs, _mm512_set1_ps(px)), dy = _mm512_sub_ps(ys, _mm512_set1_ps(py));
    const __m512 d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy));
    return (couzin_where16_t){dx, dy, d2, _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(d2))};
}

/* Adds candidates j0 … j0 + 15, at `at`; with `last` the high half is
 * out of the span and masked out. */
static inline __attribute__((always_inline)) SENSE_AVX512_TARGET void
couzin_block_avx512(couzin_avx512_t *a, const couzin_consts_t *k, const couzin_where16_t *at, const float *VX,
                    const float *VY, int32_t j0, float hx, float hy, bool blind, const bool last)
{
    const __mmask16 lanes = last ? 0x00ff : 0xffff;
    const __m512 d2 = at->d2;
    __mmask16 in = _mm512_mask_cmp_ps_mask(lanes, d2, _mm512_set1_ps(k->ra2), _CMP_LT_OQ);
    if (!blind) in = _mm512_mask_cmp_ps_mask(in, d2, _mm512_setzero_ps(), _CMP_GT_OQ);
    const __m512 ux = _mm512_mul_ps(at->dx, at->inv), uy = _mm512_mul_ps(at->dy, at->inv);
    if (blind) /* false for NaN (distance 0), as in the portable loop */
        in = _mm512_mask_cmp_ps_mask(in, _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(hx), ux), _mm512_mul_ps(_mm512_set1_ps(hy), uy)),
                                     _mm512_set1_ps(k->cos_half), _CMP_GE_OQ);
    const __mmask16 near = _mm512_cmp_ps_mask(d2, _mm512_set1_ps(k->rr2), _CMP_LT_OQ);
    const __mmask16 rep = in & near, beyond = in & (__mmask16)~near;
    const __mmask16 ori = _mm512_mask_cmp_ps_mask(beyond, d2, _mm512_set1_ps(k->ro2), _CMP_LT_OQ);
    const __mmask16 att = beyond & (__mmask16)~ori;
    const __m512 vx = last ? _mm512_maskz_loadu_ps(lanes, VX + j0) : _mm512_loadu_ps(VX + j0);
    const __m512 vy = last ? _mm512_maskz_loadu_ps(lanes, VY + j0) : _mm512_loadu_ps(VY + j0);
    a->rx = _mm512_mask_sub_ps(a->rx, rep, a->rx, ux);
    a->ry = _mm512_mask_sub_ps(a->ry, rep, a->ry, uy);
    a->ox = _mm512_mask_add_ps(a->ox, ori, a->ox, vx);
    a->oy = _mm512_mask_add_ps(a->oy, ori, a->oy, vy);
    a->ax = _mm512_mask_add_ps(a->ax, att, a->ax, ux);
    a->ay = _mm512_mask_add_ps(a->ay, att, a->ay, uy);
    a->n_rep += __builtin_popcount(rep);
    a->n_ori += __builtin_popcount(ori);
    a->n_att += __builtin_popcount(att);
}

/* Each step works out where the next sixteen are before it adds these,
 * so that one block's square root and division overlap the other's sums;
 * a last block of eight is done on its own. */
static __attribute__((noinline)) SENSE_AVX512_TARGET void
couzin_sense_avx512(const couzin_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                    int32_t count, float px, float py, float hx, float hy, bool blind, couzin_sums_t *out)
{
    const __m512 zero = _mm512_setzero_ps();
    couzin_avx512_t a = {zero, zero, zero, zero, zero, zero, 0, 0, 0};
    int32_t j0 = 0;
    if (LANES < count) { /* at least one whole block of sixteen */
        couzin_where16_t at = couzin_where_avx512(X, Y, 0, px, py, false);
        for (;; j0 += 2 * LANES) {
            const int32_t next = j0 + 2 * LANES;
            if (next + LANES >= count) {
                couzin_block_avx512(&a, k, &at, VX, VY, j0, hx, hy, blind, false);
                j0 = next;
                break;
            }
            const couzin_where16_t ahead = couzin_where_avx512(X, Y, next, px, py, false);
            couzin_block_avx512(&a, k, &at, VX, VY, j0, hx, hy, blind, false);
            at = ahead;
        }
    }
    if (j0 < count) {
        const couzin_where16_t at = couzin_where_avx512(X, Y, j0, px, py, true);
        couzin_block_avx512(&a, k, &at, VX, VY, j0, hx, hy, blind, true);
    }
#define COUZIN_HALF(v, h) ((lanes_f)_mm512_extractf32x8_ps((v), (h)))
    const couzin_set_t s0 = {COUZIN_HALF(a.rx, 0), COUZIN_HALF(a.ry, 0), COUZIN_HALF(a.ox, 0),
                             COUZIN_HALF(a.oy, 0), COUZIN_HALF(a.ax, 0), COUZIN_HALF(a.ay, 0)};
    const couzin_set_t s1 = {COUZIN_HALF(a.rx, 1), COUZIN_HALF(a.ry, 1), COUZIN_HALF(a.ox, 1),
                             COUZIN_HALF(a.oy, 1), COUZIN_HALF(a.ax, 1), COUZIN_HALF(a.ay, 1)};
#undef COUZIN_HALF
    *out = couzin_total(&s0, &s1, a.n_rep, a.n_ori, a.n_att);
}
#endif

/* Eight candidates at a time, one accumulator per lane and set, lanes
 * summed in a fixed order at the end: the span is the same whichever
 * thread senses it, so the sums are too. VX/VY are the candidates' unit
 * headings (couzin_headings), worked out once per cell rather than once
 * per pair. */
KERNEL_CLONES
void couzin_sense(const couzin_consts_t *k, const float *X, const float *Y, const float *VX, const float *VY,
                  const float *S, float species, int32_t count, int32_t self, float px, float py, float vx, float vy,
                  bool pair_wrap, float width, float height, couzin_sums_t *out)
{
    /* The agent's own unit heading; one standing still sees all round. */
    const float speed = sqrtf(vx * vx + vy * vy);
    const bool blind = k->blind && speed > 0.0f;
    const float hx = speed > 0.0f ? vx / speed : 0.0f, hy = speed > 0.0f ? vy / speed : 0.0f;
    /* The fast loops take a blind angle's test for the test of distance 0,
     * as r̂ = d·(1/√d²) is NaN there. But where d² underflows to 0 while
     * the offsets are not 0, r̂ is infinite and may look inside the field.
     * That takes an agent within 2^-30 of the origin on both axes: on an
     * axis where it is farther, another place differs from its own by 0
     * or by at least 2^-54, whose square is a normal float. Such an agent
     * takes the general loop, which also tests d² > 0. */
    const bool at_origin = fabsf(px) < 0x1p-30f && fabsf(py) < 0x1p-30f;
#ifdef SENSE_HAS_AVX512
    if (k->avx512 && self < 0 && !S && !pair_wrap && !at_origin) {
        couzin_sense_avx512(k, X, Y, VX, VY, count, px, py, hx, hy, blind, out);
        return;
    }
#endif
    const lanes_f zero = {0};
    const couzin_set_t none = {zero, zero, zero, zero, zero, zero};
    couzin_acc_t a = {{none, none}, 0, 0, 0};
    if (self >= 0 || S || pair_wrap || at_origin)
        couzin_span(&a, k, X, Y, VX, VY, S, species, count, self, px, py, hx, hy, pair_wrap, width, height, true, blind);
    else if (blind)
        couzin_span(&a, k, X, Y, VX, VY, S, species, count, self, px, py, hx, hy, pair_wrap, width, height, false, true);
    else
        couzin_span(&a, k, X, Y, VX, VY, S, species, count, self, px, py, hx, hy, pair_wrap, width, height, false, false);
    *out = couzin_total(&a.set[0], &a.set[1], a.n_rep, a.n_ori, a.n_att);
}

KERNEL_CLONES
void couzin_headings(float *VX, float *VY, int32_t count)
{
    const lanes_f zero = {0}, one = zero + 1.0f;
    for (int32_t j0 = 0; j0 < count; j0 += LANES) {
        const lanes_f vxj = lanes_load(VX + j0), vyj = lanes_load(VY + j0);
        const lanes_f s2 = vxj * vxj + vyj * vyj;
        const lanes_i moving = s2 > 0.0f;
        const lanes_f vinv = one / lanes_sqrt(lanes_select(moving, s2, one));
        lanes_store(VX + j0, lanes_keep(moving, vxj * vinv));
        lanes_store(VY + j0, lanes_keep(moving, vyj * vinv));
    }
}

/* (x, y) scaled to length 1; false (and unchanged) when it has none. */
static bool normalise(float *x, float *y)
{
    const float len = sqrtf(*x * *x + *y * *y);
    if (!(len > 0.0f)) return false;
    *x /= len;
    *y /= len;
    return true;
}

/* normalise in every lane: the lanes where (x, y) has a length. */
LANES_INLINE lanes_i normalise_lanes(lanes_f *x, lanes_f *y)
{
    const lanes_f len = lanes_sqrt(*x * *x + *y * *y);
    const lanes_i some = len > 0.0f;
    const lanes_f by = lanes_select(some, len, (lanes_f){0} + 1.0f);
    *x = lanes_select(some, *x / by, *x);
    *y = lanes_select(some, *y / by, *y);
    return some;
}

/* couzin_direction for eight agents: the lanes where something was
 * perceived (elsewhere d is left as it was). */
LANES_INLINE lanes_i direction_lanes(const couzin_batch_t *b, lanes_f hx, lanes_f hy, lanes_f *dx, lanes_f *dy)
{
    lanes_i n_rep, n_ori, n_att;
    memcpy(&n_rep, b->n_rep, sizeof n_rep);
    memcpy(&n_ori, b->n_ori, sizeof n_ori);
    memcpy(&n_att, b->n_att, sizeof n_att);
    /* Repulsion has priority. */
    lanes_f rx = lanes_load(b->rep_x), ry = lanes_load(b->rep_y);
    const lanes_i repelled = n_rep > 0, away = normalise_lanes(&rx, &ry);
    lanes_f ox = lanes_load(b->ori_x) + hx, oy = lanes_load(b->ori_y) + hy, ax = lanes_load(b->att_x),
            ay = lanes_load(b->att_y);
    const lanes_i has_o = (n_ori > 0) & normalise_lanes(&ox, &oy), has_a = (n_att > 0) & normalise_lanes(&ax, &ay);
    lanes_f mx = lanes_select(has_o, lanes_select(has_a, 0.5f * (ox + ax), ox), ax);
    lanes_f my = lanes_select(has_o, lanes_select(has_a, 0.5f * (oy + ay), oy), ay);
    const lanes_i mixed = (has_o | has_a) & normalise_lanes(&mx, &my);
    *dx = lanes_select(repelled, rx, lanes_select(mixed, mx, *dx));
    *dy = lanes_select(repelled, ry, lanes_select(mixed, my, *dy));
    return (repelled & away) | (~repelled & mixed);
}

bool couzin_direction(const couzin_sums_t *s, float hx, float hy, float *dx, float *dy)
{
    couzin_batch_t b = {.count = 1};
    for (int k = 0; k < LANES; k++) {
        b.rep_x[k] = s->rep_x, b.rep_y[k] = s->rep_y, b.ori_x[k] = s->ori_x, b.ori_y[k] = s->ori_y;
        b.att_x[k] = s->att_x, b.att_y[k] = s->att_y, b.n_rep[k] = s->n_rep, b.n_ori[k] = s->n_ori;
        b.n_att[k] = s->n_att;
    }
    const lanes_f zero = {0};
    lanes_f x = zero, y = zero;
    const lanes_i found = direction_lanes(&b, zero + hx, zero + hy, &x, &y);
    if (found[0]) *dx = x[0], *dy = y[0];
    return found[0] != 0;
}

/* couzin_turn for eight headings. */
LANES_INLINE lanes_f turn_lanes(lanes_f heading, lanes_f desired, lanes_f max_turn)
{
    lanes_f error = desired - heading;
    error = lanes_select(error > PI_F, error - 2.0f * PI_F, error);
    error = lanes_select(error < -PI_F, error + 2.0f * PI_F, error);
    error = lanes_select(error > max_turn, max_turn, error);
    error = lanes_select(error < -max_turn, -max_turn, error);
    return heading + error;
}

float couzin_turn(float heading, float desired, float max_turn)
{
    const lanes_f zero = {0};
    return turn_lanes(zero + heading, zero + desired, zero + max_turn)[0];
}

void couzin_agent(const world_t *w, size_t i, const couzin_sums_t *s, couzin_batch_t *out)
{
    if (out->count && i != out->first + (size_t)out->count) couzin_flush(w, out);
    if (!out->count) out->first = i;
    const int k = out->count++;
    out->rep_x[k] = s->rep_x, out->rep_y[k] = s->rep_y, out->ori_x[k] = s->ori_x, out->ori_y[k] = s->ori_y;
    out->att_x[k] = s->att_x, out->att_y[k] = s->att_y;
    out->n_rep[k] = s->n_rep, out->n_ori[k] = s->n_ori, out->n_att[k] = s->n_att;
    if (out->count == LANES) couzin_flush(w, out);
}

/* Standard normal draws for the batch's agents at this tick (Box-Muller),
 * 0 in lanes past count. */
LANES_INLINE lanes_f gaussians(const world_t *w, const couzin_batch_t *b)
{
    const uint64_t key = prng_hash_key(prng_hash_stream(w->seed, NOISE_STREAM), w->tick);
    const prng_lanes_t id = prng_ids_lanes(w->cur.id, b->first, b->count), keys = (prng_lanes_t){0} + key;
    const lanes_f u1 = 1.0f - prng_hash_unit_lanes(keys, id * 2); /* (0, 1] */
    const lanes_f u2 = prng_hash_unit_lanes(keys, id * 2 + 1);
    lanes_f root = {0};
    for (int k = 0; k < b->count; k++) root[k] = -2.0f * logf(u1[k]);
    lanes_f s, c;
    angle_sincos_lanes(2.0f * PI_F * u2, &s, &c);
    return lanes_sqrt(root) * c;
}

KERNEL_CLONES
void couzin_flush(const world_t *w, couzin_batch_t *b)
{
    if (!b->count) return;
    const agents_t *a = &w->cur;
    const size_t i0 = b->first;
    const int count = b->count;
    const lanes_f zero = {0};
    /* Lanes past count hold what an earlier batch left; their results
     * are not stored. */
    const heading_lanes_t h = heading_lanes_load(w, i0);
    const sim_params_t *ps[LANES];
    lanes_f speed = zero, noise = zero, turn_rate = zero;
    for (int k = 0; k < LANES; k++) {
        ps[k] = k < count ? world_params_for(w, a->flags[i0 + k]) : &w->params;
        speed[k] = ps[k]->cz_speed, noise[k] = ps[k]->cz_noise, turn_rate[k] = ps[k]->cz_turn_rate;
    }
    const lanes_f hx = h.hx, hy = h.hy;

    lanes_f dx = hx, dy = hy; /* no one perceived: keep going */
    direction_lanes(b, hx, hy, &dx, &dy);
    if (w->n_obstacles || w->n_predators) {
        for (int k = 0; k < count; k++) {
            const sim_params_t *p = ps[k];
            float x = dx[k], y = dy[k];
            vec2 avoid, away;
            bool extra = false;
            if (p->w_avoid > 0 && motion_avoid(w, h.px[k], h.py[k], h.vx[k], h.vy[k], &avoid) &&
                normalise(&avoid.x, &avoid.y))
                x += p->w_avoid * avoid.x, y += p->w_avoid * avoid.y, extra = true;
            if (w->n_predators && p->w_flee > 0 && motion_evade(w, h.px[k], h.py[k], &away) && normalise(&away.x, &away.y))
                x += p->w_flee * away.x, y += p->w_flee * away.y, extra = true;
            if (extra && !normalise(&x, &y)) x = hx[k], y = hy[k];
            dx[k] = x, dy[k] = y;
        }
    }

    /* The desired direction's angle from the heading (in [−π, π]), the
     * noise added, wrapped and limited: the heading is rotated by that,
     * which takes one atan2 where two angles took two. */
    lanes_f desired = angle_atan2_lanes(hx * dy - hy * dx, hx * dx + hy * dy);
    const lanes_i noisy = noise > 0.0f;
    if (lanes_any(noisy)) desired = lanes_select(noisy, desired + noise * sqrtf(world_steer_dt(w)) * gaussians(w, b), desired);
    const lanes_f turn = turn_lanes(zero, desired, turn_rate * (PI_F / 180.0f) * world_steer_dt(w));
    const uint8_t flags[LANES] = {0};
    heading_lanes_turn(w, &h, i0, count, turn, speed, flags);
    b->count = 0;
}

/* neighbours_avx512: the fast variants of sense_span (neighbours.h) with
 * AVX-512's mask registers, for CPUs that have them (issue 25, goal 3).
 *
 * The portable loop keeps its masks in vectors: every masked sum is an AND
 * and an add, and every mask combination one more vector operation, on the
 * same ports as the arithmetic. Here the compares write mask registers
 * (chained: a compare under a mask ANDs for free) and each sum is one
 * merge-masked add or subtract. The arithmetic is the portable loop's, the
 * same IEEE operations in the same order on the same lanes, so the sums
 * are bit-identical:
 *   - a lane the portable loop adds +0 to is left as it was here. The two
 *     agree because no accumulator is ever −0 (they start at +0, and in
 *     round-to-nearest a sum or difference is −0 only when its first
 *     operand is −0), and x + 0 = x − 0 = x for every other x;
 *   - the lanes it keeps compute what it computes: inv = 1/d², then
 *     s − d·inv, a + v, p − d·(inv − 1/r²), with no contraction
 *     (-ffp-contract=off, as everywhere);
 *   - the neighbour count is the number of set mask bits, an integer
 *     kept outside the vectors (the portable loop's is in integer lanes).
 * unit_kernel compares the two loops on random spans, bit for bit. */
#ifndef SWARMCAST_NEIGHBOURS_AVX512_H
#define SWARMCAST_NEIGHBOURS_AVX512_H

#include "sim/clones.h"
#include "sim/neighbours.h"

#if KERNEL_TOP_LEVEL >= 4
#define SENSE_HAS_AVX512 1
#include <immintrin.h>

#define SENSE_AVX512_TARGET __attribute__((target("arch=x86-64-v4")))

/* True when this CPU runs the functions below. */
static inline bool sense_avx512_usable(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v4");
}

/* sense_span for a fast mode (mode.generic false): the same sums, but for
 * the neighbour count, which it returns (acc->minus_n is left as it was;
 * see sense_finish_counted). */
static inline __attribute__((always_inline)) SENSE_AVX512_TARGET uint32_t
sense_span_avx512(sense_acc_t *acc, const float *restrict X, const float *restrict Y, const float *restrict VX,
                  const float *restrict VY, int32_t end, float qx, float qy, const sense_self_t *me,
                  const sense_params_t *sp, const sense_mode_t mode)
{
    const __m256 QX = _mm256_set1_ps(qx), QY = _mm256_set1_ps(qy), zero = _mm256_setzero_ps();
    const __m256 one = _mm256_set1_ps(1.0f), sep2 = _mm256_set1_ps(sp->sep2), ali2 = _mm256_set1_ps(me->ali2);
    const __m256 contact2 = _mm256_set1_ps(sp->contact2), inv_contact2 = _mm256_set1_ps(sp->inv_contact2);
    const __m256 mvx = _mm256_set1_ps(me->vx), mvy = _mm256_set1_ps(me->vy);
    const __m256 k_fov = _mm256_set1_ps(mode.wide ? -me->k_fov[ZONE_ALI] : me->k_fov[ZONE_ALI]);
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MAX));
    __m256 sx = (__m256)acc->sx, sy = (__m256)acc->sy, ax = (__m256)acc->ax, ay = (__m256)acc->ay;
    __m256 cx = (__m256)acc->cx, cy = (__m256)acc->cy, px = (__m256)acc->px, py = (__m256)acc->py;
    uint32_t count = 0;
    for (int32_t j0 = 0; j0 < end; j0 += SENSE_LANES) {
        const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(X + j0), QX);
        const __m256 dy = _mm256_sub_ps(_mm256_loadu_ps(Y + j0), QY);
        const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        const __mmask8 apart = _mm256_cmp_ps_mask(d2, zero, _CMP_GT_OQ);
        __mmask8 seen = apart;
        if (mode.view) { /* lanes_in_view: dot·|dot| ≥ ±k·d² */
            const __m256 dot = _mm256_add_ps(_mm256_mul_ps(mvx, dx), _mm256_mul_ps(mvy, dy));
            const __m256 signed_dot2 = _mm256_mul_ps(dot, _mm256_and_ps(dot, magnitude));
            seen = _mm256_mask_cmp_ps_mask(apart, signed_dot2, _mm256_mul_ps(k_fov, d2), _CMP_GE_OQ);
        }
        const __mmask8 m_sep = _mm256_mask_cmp_ps_mask(seen, d2, sep2, _CMP_LT_OQ);
        const __mmask8 m_ali = _mm256_mask_cmp_ps_mask(seen, d2, ali2, _CMP_LT_OQ);
        const __mmask8 touching = _mm256_mask_cmp_ps_mask(apart, d2, contact2, _CMP_LT_OQ);
        const __m256 inv_d2 = _mm256_div_ps(one, d2);
        sx = _mm256_mask_sub_ps(sx, m_sep, sx, _mm256_mul_ps(dx, inv_d2));
        sy = _mm256_mask_sub_ps(sy, m_sep, sy, _mm256_mul_ps(dy, inv_d2));
        ax = _mm256_mask_add_ps(ax, m_ali, ax, _mm256_loadu_ps(VX + j0));
        ay = _mm256_mask_add_ps(ay, m_ali, ay, _mm256_loadu_ps(VY + j0));
        cx = _mm256_mask_add_ps(cx, m_ali, cx, dx);
        cy = _mm256_mask_add_ps(cy, m_ali, cy, dy);
        /* Neighbours in any zone: m_sep's lanes are among m_ali's (the
         * fast variants have sep2 ≤ ali2). */
        count += (uint32_t)__builtin_popcount(m_ali);
        const __m256 k = _mm256_sub_ps(inv_d2, inv_contact2);
        px = _mm256_mask_sub_ps(px, touching, px, _mm256_mul_ps(dx, k));
        py = _mm256_mask_sub_ps(py, touching, py, _mm256_mul_ps(dy, k));
    }
    acc->sx = (lanes_f)sx, acc->sy = (lanes_f)sy, acc->ax = (lanes_f)ax, acc->ay = (lanes_f)ay;
    acc->cx = (lanes_f)cx, acc->cy = (lanes_f)cy, acc->px = (lanes_f)px, acc->py = (lanes_f)py;
    return count;
}
#endif

#endif

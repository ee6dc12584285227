/* angles: atan2 and sin/cos for the per-agent heading rules (unicycle,
 * Couzin) without libm. libm's versions were most of those models' time
 * beside the neighbour loop; these are a few dozen operations, one value
 * at a time or (the _lanes versions, the same operations) eight at once,
 * for the rules, which batch their agents. The one-value versions are the
 * reference the lanes are tested against (test_angles.c) and serve any
 * caller with one value.
 *
 * Both work in double and round once to float, with Taylor series whose
 * first left-out term bounds the truncation: atan on |t| ≤ tan(π/8) to t¹⁷
 * (|t|¹⁹/19 < 3·10⁻⁹), sin and cos on |r| ≤ π/4 to r¹³ and r¹⁴ (< 3·10⁻¹⁴).
 * So each result is within ANGLES_MAX_ERROR of the exact value
 * (test_angles.c checks it against libm's double functions over the
 * domain). Only IEEE +, −, ×, ÷ and floor: the same bits on every target. */
#ifndef SWARMCAST_ANGLES_H
#define SWARMCAST_ANGLES_H

#include <math.h>
#include <stdint.h>

#include "sim/lanes.h"

/* Largest absolute error of angle_atan2 (radians) and angle_sincos, a
 * little over half a float ulp at π (and at 1). */
#define ANGLES_MAX_ERROR 1.3e-7

#define ANGLES_PI 3.14159265358979323846
#define ANGLES_TAN_PI_8 0.41421356237309504880

/* atan(t) for |t| ≤ tan(π/8). The polynomial in t² by Estrin's scheme
 * (pairs, then pairs of pairs): a third of Horner's chain of dependent
 * operations. */
static inline double angles_atan_small(double t)
{
    const double x = t * t, x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
    /* Constants as products (x/c would divide at run time). */
    const double p01 = 1.0 - (1.0 / 3) * x, p23 = (1.0 / 5) - (1.0 / 7) * x;
    const double p45 = (1.0 / 9) - (1.0 / 11) * x, p67 = (1.0 / 13) - (1.0 / 15) * x;
    const double p = (p01 + x2 * p23) + x4 * (p45 + x2 * p67) + x8 * (1.0 / 17);
    return p * t;
}

/* atan2(y, x) in [−π, π], 0 for (0, 0). Branch-free (headings come in
 * every direction, so a branch on the octant would be a coin toss). */
static inline float angle_atan2(float y, float x)
{
    const double ax = fabs((double)x), ay = fabs((double)y);
    /* Into the first octant's cone around 0, π/2 or π/4: one division. */
    const int near_x = ay <= ANGLES_TAN_PI_8 * ax, near_y = !near_x && ax <= ANGLES_TAN_PI_8 * ay;
    const double num = near_x ? ay : near_y ? -ax : ay - ax;
    const double den = near_x ? ax : near_y ? ay : ay + ax;
    const double base = near_x ? 0.0 : near_y ? 0.5 * ANGLES_PI : 0.25 * ANGLES_PI;
    const double t = den > 0.0 ? num / (den > 0.0 ? den : 1.0) : 0.0;
    double a = base + angles_atan_small(t);
    a = x < 0.0f ? ANGLES_PI - a : a;
    return (float)(y < 0.0f ? -a : a);
}

/* sin(a) and cos(a), for |a| up to a few thousand radians. */
static inline void angle_sincos(float a, float *s, float *c)
{
    /* a = k·π/2 + r, |r| ≤ π/4 (π/2 in two parts: k·P1 is exact). */
    const double P1 = 1.5707963267341256, P2 = 6.077100506506192e-11;
    const double k = floor((double)a * (2.0 / ANGLES_PI) + 0.5);
    const double r = ((double)a - k * P1) - k * P2, x = r * r, x2 = x * x, x4 = x2 * x2;
    /* Both polynomials in r² by Estrin's scheme, as in angles_atan_small. */
    const double s01 = 1.0 - (1.0 / 6) * x, s23 = (1.0 / 120) - (1.0 / 5040) * x;
    const double s45 = (1.0 / 362880) - (1.0 / 39916800) * x;
    const double sr = r * ((s01 + x2 * s23) + x4 * (s45 + x2 * (1.0 / 6227020800.0)));
    const double c01 = 1.0 - 0.5 * x, c23 = (1.0 / 24) - (1.0 / 720) * x;
    const double c45 = (1.0 / 40320) - (1.0 / 3628800) * x, c67 = (1.0 / 479001600) - (1.0 / 87178291200.0) * x;
    const double cr = (c01 + x2 * c23) + x4 * (c45 + x2 * c67);
    /* The quadrant k mod 4 swaps and negates them (selects, not a branch). */
    const long q = (long)k;
    const double s0 = (q & 1) ? cr : sr, c0 = (q & 1) ? sr : cr;
    *s = (float)((q & 2) ? -s0 : s0);
    *c = (float)(((q + 1) & 2) ? -c0 : c0);
}

/* The same two for eight values at once, in double lanes, with the same
 * operations in the same order: each lane's bits are the scalar
 * function's (test_angles.c), the chains of dependent operations run side
 * by side instead of one after the other. The doubles go four at a time
 * (two halves of the eight): a vector of eight doubles is wider than an
 * AVX2 register, and GCC turns its comparisons into scalar code there. */
typedef double angles_d __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t angles_m __attribute__((vector_size(4 * sizeof(int64_t))));

/* mask ? a : b for double lanes (a mask lane is all ones or all zeros). */
#define angles_select(mask, a, b) ((angles_d)(((angles_m)(a) & (mask)) | ((angles_m)(b) & ~(mask))))

/* Lanes 0–3 (half 0) or 4–7 (half 1) of v as doubles, and back. */
#define angles_half(v, h) \
    __builtin_convertvector((h) ? __builtin_shufflevector(v, v, 4, 5, 6, 7) : __builtin_shufflevector(v, v, 0, 1, 2, 3), angles_d)
#define angles_join(lo, hi) \
    __builtin_shufflevector(__builtin_convertvector(lo, quad_f), __builtin_convertvector(hi, quad_f), 0, 1, 2, 3, 4, 5, 6, 7)

LANES_INLINE angles_d angles_atan_small_lanes(angles_d t)
{
    const angles_d x = t * t, x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
    const angles_d p01 = 1.0 - (1.0 / 3) * x, p23 = (1.0 / 5) - (1.0 / 7) * x;
    const angles_d p45 = (1.0 / 9) - (1.0 / 11) * x, p67 = (1.0 / 13) - (1.0 / 15) * x;
    const angles_d p = (p01 + x2 * p23) + x4 * (p45 + x2 * p67) + x8 * (1.0 / 17);
    return p * t;
}

/* angle_atan2 of four (y, x) in double lanes, before rounding to float. */
LANES_INLINE angles_d angles_atan2_half(angles_d y, angles_d x)
{
    const angles_d zero = {0};
    const angles_m sign = (angles_m){0} + INT64_MIN;
    const angles_d ax = (angles_d)((angles_m)x & ~sign), ay = (angles_d)((angles_m)y & ~sign);
    const angles_m near_x = ay <= ANGLES_TAN_PI_8 * ax, near_y = ~near_x & (ax <= ANGLES_TAN_PI_8 * ay);
    const angles_d num = angles_select(near_x, ay, angles_select(near_y, -ax, ay - ax));
    const angles_d den = angles_select(near_x, ax, angles_select(near_y, ay, ay + ax));
    const angles_d base = angles_select(near_x, zero, angles_select(near_y, zero + 0.5 * ANGLES_PI, zero + 0.25 * ANGLES_PI));
    const angles_m positive = den > 0.0;
    const angles_d t = angles_select(positive, num / angles_select(positive, den, zero + 1.0), zero);
    angles_d a = base + angles_atan_small_lanes(t);
    a = angles_select(x < 0.0, ANGLES_PI - a, a);
    return angles_select(y < 0.0, -a, a);
}

LANES_INLINE lanes_f angle_atan2_lanes(lanes_f yf, lanes_f xf)
{
    return angles_join(angles_atan2_half(angles_half(yf, 0), angles_half(xf, 0)),
                       angles_atan2_half(angles_half(yf, 1), angles_half(xf, 1)));
}

/* floor(y) for |y| < 2^51, lane by lane, exactly: y rounded to an integer
 * by adding and taking away 1.5·2^52, less one where that rounded up.
 * Vector operations only (floor lane by lane may be a call per lane). */
LANES_INLINE angles_d angles_floor_lanes(angles_d y)
{
    const angles_d zero = {0}, big = zero + 6755399441055744.0;
    const angles_d r = (y + big) - big;
    return r - angles_select(r > y, zero + 1.0, zero);
}

/* angle_sincos of four values in double lanes, before rounding to float. */
LANES_INLINE void angles_sincos_half(angles_d a, angles_d *s, angles_d *c)
{
    const double P1 = 1.5707963267341256, P2 = 6.077100506506192e-11;
    const angles_d k = angles_floor_lanes(a * (2.0 / ANGLES_PI) + 0.5);
    const angles_d r = (a - k * P1) - k * P2, x = r * r, x2 = x * x, x4 = x2 * x2;
    const angles_d s01 = 1.0 - (1.0 / 6) * x, s23 = (1.0 / 120) - (1.0 / 5040) * x;
    const angles_d s45 = (1.0 / 362880) - (1.0 / 39916800) * x;
    const angles_d sr = r * ((s01 + x2 * s23) + x4 * (s45 + x2 * (1.0 / 6227020800.0)));
    const angles_d c01 = 1.0 - 0.5 * x, c23 = (1.0 / 24) - (1.0 / 720) * x;
    const angles_d c45 = (1.0 / 40320) - (1.0 / 3628800) * x, c67 = (1.0 / 479001600) - (1.0 / 87178291200.0) * x;
    const angles_d cr = (c01 + x2 * c23) + x4 * (c45 + x2 * c67);
    /* The quadrant k mod 4 (in doubles: AVX2 has no conversion to int64
     * lanes), as the scalar version's k & 1, k & 2 and (k + 1) & 2. */
    const angles_d q = k - 4.0 * angles_floor_lanes(k * 0.25);
    const angles_m odd = (q == 1.0) | (q == 3.0);
    const angles_d s0 = angles_select(odd, cr, sr), c0 = angles_select(odd, sr, cr);
    *s = angles_select(q >= 2.0, -s0, s0);
    *c = angles_select((q == 1.0) | (q == 2.0), -c0, c0);
}

LANES_INLINE void angle_sincos_lanes(lanes_f af, lanes_f *s, lanes_f *c)
{
    angles_d s_lo, c_lo, s_hi, c_hi;
    angles_sincos_half(angles_half(af, 0), &s_lo, &c_lo);
    angles_sincos_half(angles_half(af, 1), &s_hi, &c_hi);
    *s = angles_join(s_lo, s_hi);
    *c = angles_join(c_lo, c_hi);
}

#endif

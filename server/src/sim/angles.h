/* angles: atan2 and sin/cos for the per-agent heading rules (unicycle,
 * Couzin) without libm. libm's versions were most of those models' time
 * beside the neighbour loop; these are a few dozen scalar operations.
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

/* Largest absolute error of angle_atan2 (radians) and angle_sincos, a
 * little over half a float ulp at π (and at 1). */
#define ANGLES_MAX_ERROR 1.3e-7

#define ANGLES_PI 3.14159265358979323846
#define ANGLES_TAN_PI_8 0.41421356237309504880

/* atan(t) for |t| ≤ tan(π/8). */
static inline double angles_atan_small(double t)
{
    const double t2 = t * t;
    /* Constants as products (x/c would divide at run time). */
    const double p =
        1.0 + t2 * (-(1.0 / 3) + t2 * ((1.0 / 5) + t2 * (-(1.0 / 7) + t2 * ((1.0 / 9) + t2 * (-(1.0 / 11) + t2 * ((1.0 / 13) +
                                                                                                           t2 * (-(1.0 / 15) + t2 * (1.0 / 17))))))));
    return p * t;
}

/* atan2(y, x) in [−π, π], 0 for (0, 0). */
static inline float angle_atan2(float y, float x)
{
    const double ax = fabs((double)x), ay = fabs((double)y);
    /* Into the first octant's cone around 0, π/4 or π/2: one division. */
    double base, t;
    if (ay <= ANGLES_TAN_PI_8 * ax)
        base = 0.0, t = ax > 0.0 ? ay / ax : 0.0;
    else if (ax <= ANGLES_TAN_PI_8 * ay)
        base = 0.5 * ANGLES_PI, t = -ax / ay;
    else
        base = 0.25 * ANGLES_PI, t = (ay - ax) / (ay + ax);
    double a = base + angles_atan_small(t);
    if (x < 0.0f) a = ANGLES_PI - a;
    return (float)(y < 0.0f ? -a : a);
}

/* sin(a) and cos(a), for |a| up to a few thousand radians. */
static inline void angle_sincos(float a, float *s, float *c)
{
    /* a = k·π/2 + r, |r| ≤ π/4 (π/2 in two parts: k·P1 is exact). */
    const double P1 = 1.5707963267341256, P2 = 6.077100506506192e-11;
    const double k = floor((double)a * (2.0 / ANGLES_PI) + 0.5);
    const double r = ((double)a - k * P1) - k * P2, r2 = r * r;
    const double sr =
        r * (1.0 + r2 * (-(1.0 / 6) + r2 * ((1.0 / 120) + r2 * (-(1.0 / 5040) + r2 * ((1.0 / 362880) +
                                                                                 r2 * (-(1.0 / 39916800) + r2 * (1.0 / 6227020800.0)))))));
    const double cr =
        1.0 + r2 * (-0.5 + r2 * ((1.0 / 24) + r2 * (-(1.0 / 720) + r2 * ((1.0 / 40320) + r2 * (-(1.0 / 3628800) +
                                                                                        r2 * ((1.0 / 479001600) - r2 * (1.0 / 87178291200.0)))))));
    switch ((long)k & 3) {
    case 0: *s = (float)sr, *c = (float)cr; break;
    case 1: *s = (float)cr, *c = (float)-sr; break;
    case 2: *s = (float)-sr, *c = (float)-cr; break;
    default: *s = (float)-cr, *c = (float)sr; break;
    }
}

#endif

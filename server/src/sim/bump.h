/* bump: Olfati-Saber's bump function without libm, for the pair loop.
 *
 *   ρ_h(u) = 1 on [0, h), ½(1 + cos(π(u − h)/(1 − h))) on [h, 1), 0 beyond
 *
 * The cosine part is a polynomial: with s = (u − h)/(1 − h) in [0, 1) and
 * t = s − ½ in [−½, ½), ½(1 + cos(πs)) = ½ − ½ sin(πt) = ½ + t Q(t²), where
 * Q is the cubic closest to −½ sin(πt)/t in the sense that the largest
 * |t (Q(t²) + ½ sin(πt)/t)| over [−½, ½] is smallest (a Remez fit; 5.8·10⁻⁷
 * in exact arithmetic; a quartic gave 3.3·10⁻⁹, one multiply-add more per
 * pair, well below what the pair loop's bound, OLFATI_PAIR_ERROR, needs).
 * With float rounding the result is within BUMP_MAX_ERROR of the exact
 * bump over the whole domain (test_bump.c checks it against libm's double
 * cosine). Only +, × and comparisons: lane-wise IEEE operations, so the
 * scalar and the lane version give the same bits at every vector width. */
#ifndef SWARMCAST_BUMP_H
#define SWARMCAST_BUMP_H

#include "sim/lanes.h"

/* The largest |bump − ½(1 + cos(π s))| over the domain, in absolute terms. */
#define BUMP_MAX_ERROR 8e-7f

/* Q's coefficients, of t⁰, t², t⁴, t⁶. */
#define BUMP_Q0 -1.57078685f
#define BUMP_Q1 2.58343842f
#define BUMP_Q2 -1.26988696f
#define BUMP_Q3 0.274891351f

/* ½ + t Q(t²), t2 = t². */
#define BUMP_POLY(t, t2) (0.5f + (t) * (((BUMP_Q3 * (t2) + BUMP_Q2) * (t2) + BUMP_Q1) * (t2) + BUMP_Q0))

/* ½(1 + cos(π s)) for s in [0, 1] and ρ_h(u), lane-wise, for a vector
 * type V with mask type M (lanes.h's);
 * inv_span = 1/(1 − h). */
#define BUMP_DEFINE(V, M, cos_name, bump_name, reach_name)                                                    \
    LANES_INLINE V cos_name(V s)                                                                               \
    {                                                                                                          \
        const V t = s - 0.5f, t2 = t * t;                                                                      \
        return BUMP_POLY(t, t2);                                                                               \
    }                                                                                                          \
    LANES_INLINE V bump_name(V u, float h, float inv_span)                                                     \
    {                                                                                                          \
        const V zero = {0};                                                                                    \
        const V inner = cos_name((u - h) * inv_span);                                                          \
        const V outer = (V)((M)inner & (u < 1.0f));                                                            \
        const M below = u < h;                                                                                 \
        const V one_or_zero = (V)((M)(zero + 1.0f) & (u >= 0.0f));                                             \
        return (V)(((M)one_or_zero & below) | ((M)outer & ~below));                                            \
    }                                                                                                          \
    /* The bump from t = s − ½ directly, for u in [0, 1] (the pair loop's:      \
     * within reach), where it is 1 below t = −½ and the polynomial above. */  \
    LANES_INLINE V reach_name(V t)                                                                             \
    {                                                                                                          \
        const V zero = {0}, t2 = t * t;                                                                        \
        const V inner = BUMP_POLY(t, t2);                                                                      \
        const M plateau = t < -0.5f;                                                                           \
        return (V)(((M)(zero + 1.0f) & plateau) | ((M)inner & ~plateau));                                      \
    }

BUMP_DEFINE(lanes_f, lanes_i, bump_cos_lanes, bump_lanes, bump_reach_lanes)

/* The same for one value (the same bits as a lane of bump_lanes). */
static inline float bump_of(float u, float h, float inv_span)
{
    const lanes_f v = bump_lanes((lanes_f){0} + u, h, inv_span);
    return v[0];
}

#endif

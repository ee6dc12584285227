/* bump: Olfati-Saber's bump function without libm, for the pair loop.
 *
 *   ρ_h(u) = 1 on [0, h), ½(1 + cos(π(u − h)/(1 − h))) on [h, 1), 0 beyond
 *
 * The cosine part is a polynomial: with s = (u − h)/(1 − h) in [0, 1) and
 * t = s − ½ in [−½, ½), ½(1 + cos(πs)) = ½ − ½ sin(πt), and sin(πt) is its
 * Taylor series to t¹¹ (the first term left out is below (π/2)¹³/13! <
 * 3·10⁻⁸). With float rounding the result is within BUMP_MAX_ERROR of the
 * exact bump over the whole domain (test_bump.c checks it against libm's
 * double cosine). Only +, × and comparisons: lane-wise IEEE operations, so
 * the scalar and the lane version give the same bits at every vector width. */
#ifndef SWARMCAST_BUMP_H
#define SWARMCAST_BUMP_H

#include "sim/lanes.h"
#include "sim/wide.h"

/* The largest |bump − ½(1 + cos(π s))| over the domain, in absolute terms. */
#define BUMP_MAX_ERROR 3e-7f

/* sin(π t)'s Taylor coefficients, (−1)^k π^(2k+1)/(2k+1)!. */
#define BUMP_S1 3.14159265f
#define BUMP_S3 -5.16771278f
#define BUMP_S5 2.55016404f
#define BUMP_S7 -0.599264529f
#define BUMP_S9 0.0821458866f
#define BUMP_S11 -0.00737043095f

/* ½(1 + cos(π s)) for s in [0, 1] and ρ_h(u), lane-wise, for a vector
 * type V with mask type M (lanes.h's and wide.h's); inv_span = 1/(1 − h). */
#define BUMP_DEFINE(V, M, cos_name, bump_name)                                                                \
    LANES_INLINE V cos_name(V s)                                                                               \
    {                                                                                                          \
        const V t = s - 0.5f, t2 = t * t;                                                                      \
        const V p = ((((BUMP_S11 * t2 + BUMP_S9) * t2 + BUMP_S7) * t2 + BUMP_S5) * t2 + BUMP_S3) * t2 + BUMP_S1; \
        return 0.5f - 0.5f * (p * t);                                                                          \
    }                                                                                                          \
    LANES_INLINE V bump_name(V u, float h, float inv_span)                                                     \
    {                                                                                                          \
        const V zero = {0};                                                                                    \
        const V inner = cos_name((u - h) * inv_span);                                                          \
        const V outer = (V)((M)inner & (u < 1.0f));                                                            \
        const M below = u < h;                                                                                 \
        const V one_or_zero = (V)((M)(zero + 1.0f) & (u >= 0.0f));                                             \
        return (V)(((M)one_or_zero & below) | ((M)outer & ~below));                                            \
    }

BUMP_DEFINE(lanes_f, lanes_i, bump_cos_lanes, bump_lanes)
BUMP_DEFINE(wide_f, wide_i, bump_cos_wide, bump_wide)

/* The same for one value (the same bits as a lane of bump_lanes). */
static inline float bump_of(float u, float h, float inv_span)
{
    const lanes_f v = bump_lanes((lanes_f){0} + u, h, inv_span);
    return v[0];
}

#endif

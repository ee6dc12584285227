/* wide: 16-lane float and mask vectors, two lanes_f side by side, for a
 * pair loop whose arithmetic outweighs its loads (Olfati-Saber's). One
 * AVX-512 register holds a whole vector, so each instruction does twice
 * the work of an 8-lane one; elsewhere the compiler splits it into two
 * AVX2 (or four SSE) registers. Lane-wise IEEE operations, as in lanes.h:
 * the same bits at every width. Low and high halves give back lanes_f, so
 * that 8-lane accumulators can take them one after the other, in the order
 * an 8-lane loop would. */
#ifndef SWARMCAST_WIDE_H
#define SWARMCAST_WIDE_H

#include <string.h>

#include "sim/lanes.h"

#define WIDE (2 * LANES)

typedef float wide_f __attribute__((vector_size(WIDE * sizeof(float))));
typedef int32_t wide_i __attribute__((vector_size(WIDE * sizeof(int32_t))));

LANES_INLINE wide_f wide_load(const float *p)
{
    wide_f v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Lanes 0–7 and 8–15. */
LANES_INLINE lanes_f wide_lo(wide_f v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7); }
LANES_INLINE lanes_f wide_hi(wide_f v) { return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15); }

/* Lane-wise square root, correctly rounded like sqrtf. */
LANES_INLINE wide_f wide_sqrt(wide_f v)
{
    wide_f r;
    for (int k = 0; k < WIDE; k++) r[k] = sqrtf(v[k]);
    return r;
}

#endif

/* lanes: 8-lane float and mask vectors (GCC/Clang vector extensions) for
 * the hot loops of the simulation and the metrics. Plain C arithmetic on
 * them compiles to SIMD instructions of the target's width (one AVX
 * register, two SSE ones); with KERNEL_CLONES (clones.h) the functions using
 * them are built for each x86-64 level. Lane-wise IEEE operations give the
 * same bits at every width. Everything here is inlined: no vector ever
 * crosses a call (hence -Wno-psabi in CMakeLists.txt). */
#ifndef SWARMCAST_LANES_H
#define SWARMCAST_LANES_H

#include <stdint.h>
#include <string.h>

#define LANES 8

typedef float lanes_f __attribute__((vector_size(LANES * sizeof(float))));
typedef int32_t lanes_i __attribute__((vector_size(LANES * sizeof(int32_t))));

#define LANES_INLINE static inline __attribute__((always_inline))

LANES_INLINE lanes_f lanes_load(const float *p)
{
    lanes_f v;
    memcpy(&v, p, sizeof v);
    return v;
}

LANES_INLINE lanes_i lanes_load_i(const uint32_t *p)
{
    lanes_i v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* mask ? v : 0, bit by bit (a mask lane is all ones or all zeros). */
#define lanes_keep(mask, v) ((lanes_f)((lanes_i)(v) & (mask)))
/* mask ? a : b */
#define lanes_select(mask, a, b) ((lanes_f)(((lanes_i)(a) & (mask)) | ((lanes_i)(b) & ~(mask))))

#endif

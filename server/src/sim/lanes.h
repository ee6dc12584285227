/* lanes: 8-lane float and mask vectors (GCC/Clang vector extensions) for
 * the hot loops of the simulation and the metrics. Plain C arithmetic on
 * them compiles to SIMD instructions of the target's width (one AVX
 * register, two SSE ones); with KERNEL_CLONES (clones.h) the functions using
 * them are built for each x86-64 level. Lane-wise IEEE operations give the
 * same bits at every width. Everything here is inlined: no vector ever
 * crosses a call (hence -Wno-psabi in CMakeLists.txt). */
#ifndef SWARMCAST_LANES_H
#define SWARMCAST_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LANES 8

typedef float lanes_f __attribute__((vector_size(LANES * sizeof(float))));
typedef int32_t lanes_i __attribute__((vector_size(LANES * sizeof(int32_t))));
typedef float quad_f __attribute__((vector_size(4 * sizeof(float))));

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

/* The transpose of eight quads: out[f][k] = q[k][f]. Gathers field f of
 * eight records (one per lane) from their 4-float groups. */
LANES_INLINE void lanes_from_quads(quad_f q0, quad_f q1, quad_f q2, quad_f q3, quad_f q4, quad_f q5, quad_f q6,
                                   quad_f q7, lanes_f out[4])
{
    lanes_f t0 = __builtin_shufflevector(q0, q4, 0, 1, 2, 3, 4, 5, 6, 7);
    lanes_f t1 = __builtin_shufflevector(q1, q5, 0, 1, 2, 3, 4, 5, 6, 7);
    lanes_f t2 = __builtin_shufflevector(q2, q6, 0, 1, 2, 3, 4, 5, 6, 7);
    lanes_f t3 = __builtin_shufflevector(q3, q7, 0, 1, 2, 3, 4, 5, 6, 7);
    lanes_f u0 = __builtin_shufflevector(t0, t1, 0, 8, 1, 9, 4, 12, 5, 13);
    lanes_f u1 = __builtin_shufflevector(t0, t1, 2, 10, 3, 11, 6, 14, 7, 15);
    lanes_f u2 = __builtin_shufflevector(t2, t3, 0, 8, 1, 9, 4, 12, 5, 13);
    lanes_f u3 = __builtin_shufflevector(t2, t3, 2, 10, 3, 11, 6, 14, 7, 15);
    out[0] = __builtin_shufflevector(u0, u2, 0, 1, 8, 9, 4, 5, 12, 13);
    out[1] = __builtin_shufflevector(u0, u2, 2, 3, 10, 11, 6, 7, 14, 15);
    out[2] = __builtin_shufflevector(u1, u3, 0, 1, 8, 9, 4, 5, 12, 13);
    out[3] = __builtin_shufflevector(u1, u3, 2, 3, 10, 11, 6, 7, 14, 15);
}

LANES_INLINE void lanes_store(float *p, lanes_f v) { memcpy(p, &v, sizeof v); }

/* Is any lane of the mask set? */
LANES_INLINE int lanes_any(lanes_i m)
{
    typedef int32_t quad_i __attribute__((vector_size(4 * sizeof(int32_t))));
    quad_i h = __builtin_shufflevector(m, m, 0, 1, 2, 3) | __builtin_shufflevector(m, m, 4, 5, 6, 7);
    h |= __builtin_shufflevector(h, h, 2, 3, 0, 1);
    h |= __builtin_shufflevector(h, h, 1, 0, 3, 2);
    return h[0] != 0;
}

/* Lane-wise square root, correctly rounded like sqrtf (one vsqrtps where
 * the target has it: -fno-math-errno lets the compiler merge the lanes). */
LANES_INLINE lanes_f lanes_sqrt(lanes_f v)
{
    lanes_f r;
    for (int k = 0; k < LANES; k++) r[k] = sqrtf(v[k]);
    return r;
}

/* mask ? v : 0, bit by bit (a mask lane is all ones or all zeros). */
#define lanes_keep(mask, v) ((lanes_f)((lanes_i)(v) & (mask)))
/* mask ? a : b */
#define lanes_select(mask, a, b) ((lanes_f)(((lanes_i)(a) & (mask)) | ((lanes_i)(b) & ~(mask))))

#endif

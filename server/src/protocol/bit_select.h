/* bit_select: x where c holds, else y, chosen on the bits. The value is
 * exactly the one chosen, and the compiler keeps it a select: with ?: on
 * floating-point values GCC threads the cases into branches, and a loop of
 * them no longer vectorizes. For the quantizer's branch-free loops. */
#ifndef SWARMCAST_BIT_SELECT_H
#define SWARMCAST_BIT_SELECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* One body for each floating type T, U its bits (an unsigned of T's size):
 * a mask of all ones or all zeros from c picks x's bits or y's. */
#define BIT_SELECT(name, T, U)                                              \
    static inline T name(bool c, T x, T y)                                  \
    {                                                                       \
        _Static_assert(sizeof(T) == sizeof(U), #U " is " #T "'s bits");     \
        U bx, by, m = (U)0 - (U)c;                                          \
        memcpy(&bx, &x, sizeof bx);                                         \
        memcpy(&by, &y, sizeof by);                                         \
        const U r = (bx & m) | (by & ~m);                                   \
        T out;                                                              \
        memcpy(&out, &r, sizeof out);                                       \
        return out;                                                         \
    }

BIT_SELECT(select_float, float, uint32_t)
BIT_SELECT(select_double, double, uint64_t)

#undef BIT_SELECT

#endif

/* bit_select: x where c holds, else y, chosen on the bits. The value is
 * exactly the one chosen, and the compiler keeps it a select: with ?: on
 * floating-point values GCC threads the cases into branches, and a loop of
 * them no longer vectorizes. For the quantizer's branch-free loops. */
#ifndef SWARMCAST_BIT_SELECT_H
#define SWARMCAST_BIT_SELECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline float select_float(bool c, float x, float y)
{
    uint32_t bx, by, m = 0u - (uint32_t)c;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    uint32_t r = (bx & m) | (by & ~m);
    float out;
    memcpy(&out, &r, sizeof out);
    return out;
}

static inline double select_double(bool c, double x, double y)
{
    uint64_t bx, by, m = 0u - (uint64_t)c;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    uint64_t r = (bx & m) | (by & ~m);
    double out;
    memcpy(&out, &r, sizeof out);
    return out;
}

#endif

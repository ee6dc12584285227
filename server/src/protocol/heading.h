/* heading: a velocity's direction quantized to a power-of-two number of
 * steps, round(atan2(vy, vx) · steps / 2π) mod steps, shared by snapshot v1
 * (256 steps) and v2 (1024 steps). */
#ifndef SWARMCAST_HEADING_H
#define SWARMCAST_HEADING_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/bit_select.h"

/* steps: a power of two ≤ 65536. A zero velocity, a NaN component or two
 * infinite ones give 0 (no direction; never undefined behaviour). */
uint32_t heading_quantize(float vx, float vy, uint32_t steps);

/* ---- the computation itself, for loops the compiler vectorizes ----------- */

/* Computed without atan2 (a tenth of the cost): fold the direction into the
 * first octant, a = min/max ∈ [0, 1]; take c = the nearest of 65 table
 * points k/64 and atan a = atan c + atan t with t = (a − c)/(1 + a·c),
 * |t| ≤ 1/128, where t − t³/3 is exact to 1e-11; unfold. The angle is good
 * to ~3e-7 rad, so the step agrees with atan2's but for directions that
 * close to a step edge. */
#define HEADING_ATAN_STEPS 64

/* atan(k / 64) for k = 0 … 64 (made on the first call). */
const float *heading_atan_table(void);

/* heading_quantize with the table passed in. Every choice is a select, not
 * a branch (the signs of a flock's velocities are random: a branch on them
 * would mispredict half the time), so that a loop of it vectorizes; each
 * lane does the same IEEE operations as the scalar call, hence the same
 * bits. A velocity with no direction is computed on a stand-in (a = 1,
 * which keeps the table index in range) and gives 0. */
static inline uint32_t heading_quantize_with(const float *atan_table, float vx, float vy, uint32_t steps)
{
    const float pi = 3.14159265358979f;
    float ax = fabsf(vx), ay = fabsf(vy);
    bool steep = ay > ax;
    float lo = select_float(steep, ax, ay), hi = select_float(steep, ay, ax);
    /* hi == 0: atan2(0, 0) = 0. A NaN component, or both infinite, make a
     * NaN ratio: no direction either. Written so that NaN fails the test. */
    bool zero = hi == 0.0f;
    float a = lo / select_float(zero, 1.0f, hi);
    bool direction = !zero & (a <= 1.0f);      /* & not &&: no branch */
    a = select_float(a <= 1.0f, a, 1.0f);      /* NaN → 1: a stand-in in the table's range */
    int k = (int)(a * HEADING_ATAN_STEPS + 0.5f);
    float c = (float)k * (1.0f / HEADING_ATAN_STEPS);
    float t = (a - c) / (1.0f + a * c);
    float angle = atan_table[k] + t * (1.0f - t * t * (1.0f / 3.0f));
    angle = select_float(steep, 0.5f * pi - angle, angle);
    angle = select_float(vx < 0.0f, pi - angle, angle);
    angle = select_float(vy < 0.0f, -angle, angle);
    float s = (float)steps;
    float q = angle * (s / (2.0f * pi)) + 0.5f; /* in (−steps/2 + ½, steps/2 + ½] */
    int floor_q = (int)(q + s) - (int)steps;    /* floor, for the negative half too */
    return (uint32_t)floor_q & (steps - 1u) & (0u - (uint32_t)direction);
}

#endif

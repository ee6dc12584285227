#include "protocol/heading.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>

/* Computed without atan2 (a tenth of the cost): fold the direction into the
 * first octant, a = min/max ∈ [0, 1]; take c = the nearest of 65 table
 * points k/64 and atan a = atan c + atan t with t = (a − c)/(1 + a·c),
 * |t| ≤ 1/128, where t − t³/3 is exact to 1e-11; unfold. The angle is good
 * to ~3e-7 rad, so the step agrees with atan2's but for directions that
 * close to a step edge. */
#define ATAN_TABLE_STEPS 64

static float atan_table[ATAN_TABLE_STEPS + 1];
static pthread_once_t atan_once = PTHREAD_ONCE_INIT;

static void init_atan_table(void)
{
    for (int k = 0; k <= ATAN_TABLE_STEPS; k++) atan_table[k] = (float)atan((double)k / ATAN_TABLE_STEPS);
}

uint32_t heading_quantize(float vx, float vy, uint32_t steps)
{
    const float pi = 3.14159265358979f;
    float ax = fabsf(vx), ay = fabsf(vy);
    bool steep = ay > ax;
    float lo = steep ? ax : ay, hi = steep ? ay : ax;
    if (hi == 0.0f) return 0; /* atan2(0, 0) = 0 */
    float a = lo / hi;
    /* A NaN component, or both infinite: no direction, and a NaN index would
     * read outside the table. Written so that NaN fails the test. */
    if (!(a <= 1.0f)) return 0;
    pthread_once(&atan_once, init_atan_table);
    int k = (int)(a * ATAN_TABLE_STEPS + 0.5f);
    float c = (float)k * (1.0f / ATAN_TABLE_STEPS);
    float t = (a - c) / (1.0f + a * c);
    float angle = atan_table[k] + t * (1.0f - t * t * (1.0f / 3.0f));
    if (steep) angle = 0.5f * pi - angle;
    if (vx < 0.0f) angle = pi - angle;
    if (vy < 0.0f) angle = -angle;
    float s = (float)steps;
    float q = angle * (s / (2.0f * pi)) + 0.5f; /* in (−steps/2 + ½, steps/2 + ½] */
    int floor_q = (int)(q + s) - (int)steps;    /* floor, for the negative half too */
    return (uint32_t)floor_q & (steps - 1u);
}

/* heading: a velocity's direction quantized to a power-of-two number of
 * steps, round(atan2(vy, vx) · steps / 2π) mod steps, shared by snapshot v1
 * (256 steps) and v2 (1024 steps). */
#ifndef SWARMCAST_HEADING_H
#define SWARMCAST_HEADING_H

#include <stdint.h>

/* steps: a power of two ≤ 65536. A zero velocity, a NaN component or two
 * infinite ones give 0 (no direction; never undefined behaviour). */
uint32_t heading_quantize(float vx, float vy, uint32_t steps);

#endif

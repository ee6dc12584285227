#include "protocol/heading.h"

#include <pthread.h>

static float atan_table[HEADING_ATAN_STEPS + 1];
static pthread_once_t atan_once = PTHREAD_ONCE_INIT;

static void init_atan_table(void)
{
    for (int k = 0; k <= HEADING_ATAN_STEPS; k++) atan_table[k] = (float)atan((double)k / HEADING_ATAN_STEPS);
}

const float *heading_atan_table(void)
{
    pthread_once(&atan_once, init_atan_table);
    return atan_table;
}

uint32_t heading_quantize(float vx, float vy, uint32_t steps)
{
    return heading_quantize_with(heading_atan_table(), vx, vy, steps);
}

#include "sim/prng.h"

/* PCG's 64-bit LCG multiplier (Knuth / O'Neill). */
#define PCG_MULT 6364136223846793005ULL

uint32_t prng_u32(prng_t *rng)
{
    uint64_t old = rng->state;
    rng->state = old * PCG_MULT + rng->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

void prng_seed(prng_t *rng, uint64_t seed, uint64_t stream)
{
    rng->state = 0;
    rng->inc = (stream << 1u) | 1u;
    prng_u32(rng);
    rng->state += seed;
    prng_u32(rng);
}

float prng_unit(prng_t *rng)
{
    return (float)(prng_u32(rng) >> 8) * (1.0f / 16777216.0f);
}

float prng_range(prng_t *rng, float lo, float hi)
{
    return lo + (hi - lo) * prng_unit(rng);
}

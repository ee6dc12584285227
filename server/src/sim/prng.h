/* prng: a small seeded generator (PCG-XSH-RR 64/32) so that a seed fully
 * determines a world. Never seeded from time or the OS. */
#ifndef SWARMCAST_PRNG_H
#define SWARMCAST_PRNG_H

#include <stdint.h>

typedef struct prng {
    uint64_t state;
    uint64_t inc; /* odd: selects one of 2^63 streams */
} prng_t;

void prng_seed(prng_t *rng, uint64_t seed, uint64_t stream);
uint32_t prng_u32(prng_t *rng);
/* Uniform in [0, 1), 24 random bits: exactly representable as a float. */
float prng_unit(prng_t *rng);
/* Uniform in [lo, hi). */
float prng_range(prng_t *rng, float lo, float hi);

#endif

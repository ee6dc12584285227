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

/* A counter-based draw: the same (seed, a, b, c) always give the same number,
 * whichever thread asks and in whatever order — for per-agent, per-tick
 * randomness in a parallel step. (splitmix64's finalizer over the inputs.) */
static inline uint64_t prng_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* prng_hash_unit in its three stages, for a rule that draws many numbers
 * sharing (seed, a) or (seed, a, b): the shared stages are mixed once, not
 * once per draw. prng_hash_unit_of(prng_hash_key(prng_hash_stream(seed, a),
 * b), c) is prng_hash_unit(seed, a, b, c), bit for bit. */
static inline uint64_t prng_hash_stream(uint64_t seed, uint64_t a)
{
    return prng_mix(prng_mix(seed + 0x9e3779b97f4a7c15ull) ^ a);
}

/* What the second and third stages add to b and c (prng_lanes.h too). */
#define PRNG_HASH_B 0x632be59bd9b4e019ull
#define PRNG_HASH_C 0x8cb92ba72f3d8dd7ull

static inline uint64_t prng_hash_key(uint64_t stream, uint64_t b) { return prng_mix(stream ^ (b + PRNG_HASH_B)); }

static inline float prng_hash_unit_of(uint64_t key, uint64_t c)
{
    return (float)(prng_mix(key ^ (c + PRNG_HASH_C)) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform in [0, 1), 24 random bits. */
static inline float prng_hash_unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return prng_hash_unit_of(prng_hash_key(prng_hash_stream(seed, a), b), c);
}

#endif

/* prng_lanes: the counter-based draws of prng.h for eight counters at
 * once, in 64-bit vector lanes (a rule that batches its agents draws one
 * number per agent). Each lane's bits are the scalar functions'. */
#ifndef SWARMCAST_PRNG_LANES_H
#define SWARMCAST_PRNG_LANES_H

#include <stdint.h>

#include "sim/lanes.h"
#include "sim/prng.h"

typedef uint64_t prng_lanes_t __attribute__((vector_size(LANES * sizeof(uint64_t))));

/* prng_mix, lane by lane. */
LANES_INLINE prng_lanes_t prng_mix_lanes(prng_lanes_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* prng_hash_key(stream, b[k]) in lane k. */
LANES_INLINE prng_lanes_t prng_hash_key_lanes(uint64_t stream, prng_lanes_t b)
{
    return prng_mix_lanes(stream ^ (b + PRNG_HASH_B));
}

/* prng_hash_unit_of(key[k], c[k]) in lane k (the same key in all when a
 * scalar is given for it). */
LANES_INLINE lanes_f prng_hash_unit_lanes(prng_lanes_t key, prng_lanes_t c)
{
    typedef int64_t signed_lanes_t __attribute__((vector_size(LANES * sizeof(int64_t))));
    /* 24 bits: exact as an int32 and as a float. */
    const lanes_i bits = __builtin_convertvector((signed_lanes_t)(prng_mix_lanes(key ^ (c + PRNG_HASH_C)) >> 40), lanes_i);
    return __builtin_convertvector(bits, lanes_f) * (1.0f / 16777216.0f);
}

/* The agents' ids first … first + count − 1 in lanes 0 … count − 1, 0 past. */
LANES_INLINE prng_lanes_t prng_ids_lanes(const uint32_t *id, size_t first, int count)
{
    prng_lanes_t v = {0};
    for (int k = 0; k < count; k++) v[k] = id[first + (size_t)k];
    return v;
}

#endif

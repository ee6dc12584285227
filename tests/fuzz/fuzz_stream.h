/* fuzz_stream: a fuzz input read as a stream of values, for targets that
 * build structured inputs (snapshots, worlds) from the bytes; zeros once
 * the input runs out, so every input is a valid stream. */
#ifndef SWARMCAST_FUZZ_STREAM_H
#define SWARMCAST_FUZZ_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct stream {
    const uint8_t *p;
    size_t left;
} stream_t;

static inline uint8_t take_u8(stream_t *s)
{
    if (!s->left) return 0;
    s->left--;
    return *s->p++;
}

static inline uint16_t take_u16(stream_t *s) { return (uint16_t)(take_u8(s) | take_u8(s) << 8); }

static inline uint32_t take_u32(stream_t *s) { return (uint32_t)take_u16(s) | (uint32_t)take_u16(s) << 16; }

/* Any float at all (NaN and infinities included): 32 raw bits. */
static inline float take_f32(stream_t *s)
{
    uint32_t bits = take_u32(s);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#endif

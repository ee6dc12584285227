/* le_bytes: little-endian field writers, shared by the v1 and v2 frame
 * encoders (every multi-byte header field of the protocol is little-endian). */
#ifndef SWARMCAST_LE_BYTES_H
#define SWARMCAST_LE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void put_f32(uint8_t *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_u32(p, bits);
}

#endif

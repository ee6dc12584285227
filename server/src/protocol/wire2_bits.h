/* wire2_bits: the bit primitives of protocol v2 (protocol/PROTOCOL.md,
 * "Bit primitives"). The stream is LSB-first: bit i is bit (i & 7) of byte
 * (i >> 3); u(n) writes an n-bit value least significant bit first.
 *
 *   EG(k)  Exp-Golomb of order k of an unsigned v: w = v + 2^k, b = bitlength(w);
 *          (b − k − 1) zero bits, a one bit, then the low (b − 1) bits of w.
 *   SE(k)  EG(k) of zigzag(s) (s ≥ 0 → 2s, s < 0 → −2s − 1).
 *
 * The writer grows its buffer as needed; an allocation failure is sticky
 * (wire2_bitw_finish then fails), so encoders check once at the end. The
 * reader never reads outside its buffer: reading past the end yields zero
 * bits and sets `overrun`; an EG prefix of more than 32 zeros sets
 * `malformed`. Decoders check both flags (wire2_bitr_ok) where convenient —
 * a value read after a failure is meaningless but harmless. */
#ifndef SWARMCAST_WIRE2_BITS_H
#define SWARMCAST_WIRE2_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The longest EG zero prefix a decoder accepts. */
#define WIRE2_EG_MAX_PREFIX 32u

typedef struct wire2_bitw {
    uint8_t *buf;   /* bytes written so far (whole bytes only; the rest is in acc) */
    size_t len;     /* whole bytes in buf */
    size_t cap;     /* allocated bytes of buf */
    uint64_t acc;   /* pending bits, LSB first */
    unsigned nacc;  /* pending bit count, < 8 between calls */
    bool failed;    /* an allocation failed: the output is lost */
} wire2_bitw_t;

/* An empty writer (no allocation until the first bit); wire2_bitw_t w = {0} is the same. */
void wire2_bitw_init(wire2_bitw_t *w);
/* Empties the writer keeping its buffer (for reuse without reallocating). */
void wire2_bitw_reset(wire2_bitw_t *w);
void wire2_bitw_free(wire2_bitw_t *w);
/* Makes room for at least `bytes` more bytes (optional: a hint). */
void wire2_bitw_reserve(wire2_bitw_t *w, size_t bytes);
/* Appends raw bytes; only at a byte boundary (the frame/chunk headers). */
void wire2_bitw_bytes(wire2_bitw_t *w, const void *p, size_t n);

/* Makes room for the next store (growing the buffer); the writers' slow path. */
void wire2_bitw_spill(wire2_bitw_t *w);
/* Writes of more than 32 bits (EG of large values), out of line. */
void wire2_put_eg_long(wire2_bitw_t *w, uint64_t v, unsigned k);

/* Up to 56 bits at once (several codes joined: the encoder's fast path);
 * bits above n must be 0. Inline: the encoder writes a few of these per
 * agent per snapshot. The pending bits (fewer than 8) and the new ones are
 * stored as 8 bytes at the end of the buffer at once; only the whole bytes
 * among them count as written. */
static inline void wire2_put_bits(wire2_bitw_t *w, uint64_t bits, unsigned n)
{
    w->acc |= bits << w->nacc;
    w->nacc += n;
    if (w->cap - w->len < 8) wire2_bitw_spill(w);
    if (w->failed) {
        w->acc = 0;
        w->nacc = 0;
        return;
    }
    uint64_t acc = w->acc;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(w->buf + w->len, &acc, 8);
#else
    for (unsigned i = 0; i < 8; i++) w->buf[w->len + i] = (uint8_t)(acc >> (8u * i));
#endif
    w->len += w->nacc >> 3;
    w->acc = acc >> (w->nacc & ~7u);
    w->nacc &= 7u;
}

/* u(n), n ≤ 32; bits of v above n are ignored. */
static inline void wire2_put_u(wire2_bitw_t *w, uint32_t v, unsigned n)
{
    wire2_put_bits(w, n >= 32 ? (uint64_t)v : (uint64_t)(v & ((1u << n) - 1u)), n);
}

/* The bits of EG(k) of v as they go in the stream, and their count; only
 * for codes of at most 32 bits (*n is then ≤ 32; else it is 0 and the
 * caller writes with wire2_put_eg). */
static inline uint64_t wire2_eg_code(uint64_t v, unsigned k, unsigned *n)
{
    uint64_t x = v + ((uint64_t)1 << k);
    unsigned b = 64u - (unsigned)__builtin_clzll(x);
    unsigned zeros = b - k - 1u, total = zeros + b;
    if (total > 32) {
        *n = 0;
        return 0;
    }
    *n = total;
    uint64_t low = x & ((((uint64_t)1) << (b - 1u)) - 1u);
    return ((low << 1) | 1u) << zeros;
}

/* EG(k) of v ≤ 2^47 − 2^k, k ≤ 15. */
static inline void wire2_put_eg(wire2_bitw_t *w, uint64_t v, unsigned k)
{
    uint64_t x = v + ((uint64_t)1 << k);
    unsigned b = 64u - (unsigned)__builtin_clzll(x);
    unsigned zeros = b - k - 1u;
    unsigned total = zeros + b; /* zeros, the one bit, b − 1 low bits */
    if (total <= 32) {
        /* LSB-first: the zeros, then the one bit, then the low bits. */
        uint64_t low = x & ((((uint64_t)1) << (b - 1u)) - 1u);
        wire2_put_u(w, (uint32_t)(((low << 1) | 1u) << zeros), total);
    } else {
        wire2_put_eg_long(w, v, k);
    }
}

/* SE(k) of s, |s| ≤ 2^46. */
static inline void wire2_put_se(wire2_bitw_t *w, int64_t s, unsigned k);
/* Bits written so far (including pending ones). */
size_t wire2_bitw_bits(const wire2_bitw_t *w);
/* Pads with zero bits to a whole byte; returns the byte count, or 0 with
 * w->failed set if an allocation failed (an empty stream also returns 0,
 * with failed false). The bytes are w->buf[0 .. len). */
size_t wire2_bitw_finish(wire2_bitw_t *w);

/* Bits EG(k) of v takes (v ≤ 2^47), for choosing k. */
static inline unsigned wire2_eg_bits(uint64_t v, unsigned k)
{
    uint64_t w = v + ((uint64_t)1 << k);
    unsigned b = 64u - (unsigned)__builtin_clzll(w);
    return 2u * b - k - 1u;
}
/* Branch-free (residual signs are random: a branch would mispredict half
 * the time). s >> 63 is all ones for a negative s (GCC and clang shift
 * signed values arithmetically). */
static inline uint64_t wire2_zigzag(int64_t s) { return ((uint64_t)s << 1) ^ (uint64_t)(s >> 63); }
static inline int64_t wire2_unzigzag(uint64_t z) { return (int64_t)((z >> 1) ^ (0 - (z & 1u))); }
static inline void wire2_put_se(wire2_bitw_t *w, int64_t s, unsigned k) { wire2_put_eg(w, wire2_zigzag(s), k); }
/* wrapH(d) = ((d + 512) mod 1024) − 512; wrapL(d) = ((d + 32) mod 64) − 32. */
static inline int32_t wire2_wrap_h(int32_t d) { return ((d + 512) & 1023) - 512; }
static inline int32_t wire2_wrap_l(int32_t d) { return ((d + 32) & 63) - 32; }

typedef struct wire2_bitr {
    const uint8_t *buf;
    size_t len_bits;   /* bits available */
    size_t pos;        /* next bit to read */
    bool overrun;      /* a read went past len_bits */
    bool malformed;    /* an EG prefix exceeded WIRE2_EG_MAX_PREFIX */
} wire2_bitr_t;

void wire2_bitr_init(wire2_bitr_t *r, const uint8_t *buf, size_t len_bytes);
uint32_t wire2_get_u(wire2_bitr_t *r, unsigned n); /* n ≤ 32 */
/* EG(k) (k ≤ 15): values up to 2^47 can come out of a 32-zero prefix; the
 * caller bounds them. */
uint64_t wire2_get_eg(wire2_bitr_t *r, unsigned k);
int64_t wire2_get_se(wire2_bitr_t *r, unsigned k);
static inline bool wire2_bitr_ok(const wire2_bitr_t *r) { return !r->overrun && !r->malformed; }

#endif

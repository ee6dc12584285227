#include "protocol/wire2_bits.h"

#include <stdlib.h>
#include <string.h>

void wire2_bitw_init(wire2_bitw_t *w) { *w = (wire2_bitw_t){0}; }

void wire2_bitw_reset(wire2_bitw_t *w)
{
    w->len = 0;
    w->acc = 0;
    w->nacc = 0;
    w->failed = false;
}

void wire2_bitw_free(wire2_bitw_t *w)
{
    free(w->buf);
    *w = (wire2_bitw_t){0};
}

static bool ensure(wire2_bitw_t *w, size_t more)
{
    if (w->failed) return false;
    if (w->cap - w->len >= more) return true;
    size_t cap = w->cap ? w->cap : 256;
    while (cap - w->len < more) {
        if (cap > SIZE_MAX / 2) {
            w->failed = true;
            return false;
        }
        cap *= 2;
    }
    uint8_t *buf = realloc(w->buf, cap);
    if (!buf) {
        w->failed = true;
        return false;
    }
    w->buf = buf;
    w->cap = cap;
    return true;
}

void wire2_bitw_reserve(wire2_bitw_t *w, size_t bytes) { (void)ensure(w, bytes + 8); }

void wire2_bitw_spill(wire2_bitw_t *w) { (void)ensure(w, 8); }

/* Up to 64 bits, in pieces of at most 32. */
static void put_u64(wire2_bitw_t *w, uint64_t v, unsigned n)
{
    while (n > 32) {
        wire2_put_u(w, (uint32_t)v, 32);
        v >>= 32;
        n -= 32;
    }
    wire2_put_u(w, (uint32_t)v, n);
}

void wire2_put_eg_long(wire2_bitw_t *w, uint64_t v, unsigned k)
{
    uint64_t x = v + ((uint64_t)1 << k);
    unsigned b = 64u - (unsigned)__builtin_clzll(x);
    unsigned zeros = b - k - 1u;
    uint64_t low = x & ((((uint64_t)1) << (b - 1u)) - 1u);
    put_u64(w, 0, zeros);
    wire2_put_u(w, 1, 1);
    put_u64(w, low, b - 1u);
}

size_t wire2_bitw_bits(const wire2_bitw_t *w) { return w->len * 8u + w->nacc; }

size_t wire2_bitw_finish(wire2_bitw_t *w)
{
    if (w->nacc && ensure(w, 1)) w->buf[w->len++] = (uint8_t)w->acc;
    w->acc = 0;
    w->nacc = 0;
    return w->failed ? 0 : w->len;
}

void wire2_bitw_bytes(wire2_bitw_t *w, const void *p, size_t n)
{
    /* Only at a byte boundary: pending whole bytes go out first. */
    (void)wire2_bitw_finish(w);
    if (n && ensure(w, n)) {
        memcpy(w->buf + w->len, p, n);
        w->len += n;
    }
}

/* ---- reader ---- */

void wire2_bitr_init(wire2_bitr_t *r, const uint8_t *buf, size_t len_bytes)
{
    *r = (wire2_bitr_t){.buf = buf, .len_bits = len_bytes * 8u};
}

/* The next 57+ bits from pos (zero bits past the end), without advancing. */
static uint64_t peek(const wire2_bitr_t *r)
{
    size_t byte = r->pos >> 3;
    size_t len = r->len_bits >> 3;
    uint64_t v = 0;
    if (byte + 8 <= len) {
        const uint8_t *p = r->buf + byte;
        v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
            (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
    } else {
        for (size_t i = 0; byte + i < len; i++) v |= (uint64_t)r->buf[byte + i] << (8u * i);
    }
    return v >> (r->pos & 7u);
}

static bool advance(wire2_bitr_t *r, size_t n)
{
    if (r->overrun || n > r->len_bits - r->pos) {
        r->overrun = true;
        r->pos = r->len_bits;
        return false;
    }
    r->pos += n;
    return true;
}

uint32_t wire2_get_u(wire2_bitr_t *r, unsigned n)
{
    if (n == 0) return 0;
    uint64_t v = peek(r);
    if (!advance(r, n)) return 0;
    return n >= 32 ? (uint32_t)v : (uint32_t)(v & ((1u << n) - 1u));
}

static uint64_t get_u64(wire2_bitr_t *r, unsigned n)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (n > 32) {
        v |= (uint64_t)wire2_get_u(r, 32) << shift;
        shift += 32;
        n -= 32;
    }
    return v | (uint64_t)wire2_get_u(r, n) << shift;
}

uint64_t wire2_get_eg(wire2_bitr_t *r, unsigned k)
{
    if (r->overrun || r->malformed) return 0;
    uint64_t window = peek(r);
    unsigned m;
    if (window & (((uint64_t)1 << (WIRE2_EG_MAX_PREFIX + 1u)) - 1u)) {
        m = (unsigned)__builtin_ctzll(window);
    } else {
        /* No one bit within 33: too long a prefix, unless the data ran out first. */
        if (r->len_bits - r->pos <= WIRE2_EG_MAX_PREFIX) {
            advance(r, r->len_bits - r->pos + 1u);
        } else {
            r->malformed = true;
        }
        return 0;
    }
    if (!advance(r, m + 1u)) return 0;
    unsigned bits = m + k;
    uint64_t x = get_u64(r, bits);
    return ((((uint64_t)1) << bits) | x) - ((uint64_t)1 << k);
}

int64_t wire2_get_se(wire2_bitr_t *r, unsigned k) { return wire2_unzigzag(wire2_get_eg(r, k)); }

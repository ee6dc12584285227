/* base64: the standard alphabet (RFC 4648, with '=' padding), for binary
 * arrays kept inside JSON text (the state file's agents). Decoding is strict:
 * only the alphabet, padding only at the end, a length that is a multiple of
 * four and no non-zero bits left over, so every byte string has exactly one
 * text. */
#ifndef SWARMCAST_BASE64_H
#define SWARMCAST_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Characters base64 needs for n bytes (no terminating NUL counted). */
static inline size_t base64_encoded_len(size_t n) { return (n + 2) / 3 * 4; }

/* Writes base64_encoded_len(n) characters to out (no NUL). */
void base64_encode(const uint8_t *in, size_t n, char *out);

/* Decodes text of len characters into out, which has room for cap bytes.
 * Returns the number of bytes, or -1 when the text is not base64 or does not
 * fit. */
long base64_decode(const char *text, size_t len, uint8_t *out, size_t cap);

#endif

#include "protocol/base64.h"

#include <stdbool.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const uint8_t *in, size_t n, char *out)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *out++ = '=';
    }
}

/* The 6-bit value of a base64 character, or -1. */
static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

long base64_decode(const char *text, size_t len, uint8_t *out, size_t cap)
{
    if (len % 4) return -1;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 4) {
        bool last = i + 4 == len;
        /* '=' may only end the text: "xx==" or "xxx=". */
        int pad = last && text[i + 3] == '=' ? (text[i + 2] == '=' ? 2 : 1) : 0;
        int s[4];
        for (int k = 0; k < 4 - pad; k++)
            if ((s[k] = sextet(text[i + k])) < 0) return -1;
        for (int k = 4 - pad; k < 4; k++) s[k] = 0;
        uint32_t v = (uint32_t)s[0] << 18 | (uint32_t)s[1] << 12 | (uint32_t)s[2] << 6 | (uint32_t)s[3];
        size_t bytes = 3 - (size_t)pad;
        /* Bits the padding drops must be zero, or two texts would decode alike. */
        if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff))) return -1;
        if (n + bytes > cap) return -1;
        out[n++] = (uint8_t)(v >> 16);
        if (bytes > 1) out[n++] = (uint8_t)(v >> 8);
        if (bytes > 2) out[n++] = (uint8_t)v;
    }
    return (long)n;
}

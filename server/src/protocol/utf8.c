#include "protocol/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0) return 0;
    unsigned char b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t more;
    uint32_t v;
    unsigned char lo = 0x80, hi = 0xbf; /* the allowed range of the second byte */
    if (b >= 0xc2 && b <= 0xdf) {
        more = 1;
        v = b & 0x1fu;
    } else if (b >= 0xe0 && b <= 0xef) {
        more = 2;
        v = b & 0x0fu;
        if (b == 0xe0) lo = 0xa0; /* overlong */
        if (b == 0xed) hi = 0x9f; /* surrogates */
    } else if (b >= 0xf0 && b <= 0xf4) {
        more = 3;
        v = b & 0x07u;
        if (b == 0xf0) lo = 0x90; /* overlong */
        if (b == 0xf4) hi = 0x8f; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (n <= more) return 0;
    for (size_t k = 1; k <= more; k++) {
        unsigned char c = s[k];
        if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xbf)) return 0;
        v = v << 6 | (c & 0x3fu);
    }
    *cp = v;
    return more + 1;
}

bool utf8_valid(const void *s, size_t len)
{
    const unsigned char *p = s;
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_next(p + i, len - i, &cp);
        if (!n) return false;
        i += n;
    }
    return true;
}

void text_init(text_t *t, char *buf, size_t cap)
{
    *t = (text_t){buf, cap, 0, cap == 0};
    if (cap) buf[0] = '\0';
}

/* Appends n bytes that are valid UTF-8, or marks the text cut. */
static bool put(text_t *t, const char *s, size_t n)
{
    if (t->cut || t->len + n >= t->cap) {
        t->cut = true;
        return false;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
    return true;
}

void text_add_n(text_t *t, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_next(p + i, n - i, &cp);
        if (k ? !put(t, s + i, k) : !put(t, UTF8_REPLACEMENT, 3)) return;
        i += k ? k : 1;
    }
}

void text_add_cp(text_t *t, uint32_t cp)
{
    char enc[4];
    size_t n;
    if (cp < 0x80) {
        enc[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        enc[0] = (char)(0xc0 | cp >> 6), enc[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    } else if (cp < 0x10000) {
        enc[0] = (char)(0xe0 | cp >> 12), enc[1] = (char)(0x80 | (cp >> 6 & 0x3f)), enc[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        enc[0] = (char)(0xf0 | cp >> 18), enc[1] = (char)(0x80 | (cp >> 12 & 0x3f)),
        enc[2] = (char)(0x80 | (cp >> 6 & 0x3f)), enc[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    /* A surrogate or a value past U+10FFFF is no character: U+FFFD. */
    text_add_n(t, enc, cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 1 : n);
}

void text_add(text_t *t, const char *s) { text_add_n(t, s, strlen(s)); }

void text_vaddf(text_t *t, const char *fmt, va_list ap)
{
    char small[256];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        text_add_n(t, small, (size_t)n);
    } else if (n >= 0) {
        /* Longer than the scratch: formatted whole, so that the cut falls
         * between characters here too. */
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, again);
            text_add_n(t, big, (size_t)n);
        } else {
            t->cut = true;
        }
        free(big);
    }
    va_end(again);
}

void text_addf(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_vaddf(t, fmt, ap);
    va_end(ap);
}

static void vfail(char *msg, size_t cap, const char *fmt, va_list ap)
{
    text_t t;
    text_init(&t, msg, cap);
    text_vaddf(&t, fmt, ap);
}

int text_fail(char *msg, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(msg, cap, fmt, ap);
    va_end(ap);
    return -1;
}

int text_fail_code(int code, char *msg, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(msg, cap, fmt, ap);
    va_end(ap);
    return code;
}

bool text_copy(char *dst, size_t cap, const char *src, size_t n)
{
    text_t t;
    text_init(&t, dst, cap);
    text_add_n(&t, src, n);
    return !t.cut;
}

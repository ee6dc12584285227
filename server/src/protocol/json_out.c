#include "protocol/json_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/utf8.h"

/* The number is formatted in a local buffer and then copied: formatting
 * straight into the parameter trips a false "null destination" warning of
 * GCC under -fsanitize=undefined. */
static void shortest(char out[JSON_NUM_MAX], double v, int from, int to, bool as_float)
{
    char text[JSON_NUM_MAX] = "null";
    if (isfinite(v)) {
        for (int digits = from; digits <= to; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, v);
            if (as_float ? strtof(text, NULL) == (float)v : strtod(text, NULL) == v) break;
        }
    }
    memcpy(out, text, sizeof text);
}

void json_float(char out[JSON_NUM_MAX], float f) { shortest(out, (double)f, 6, 9, true); }

void json_double(char out[JSON_NUM_MAX], double d) { shortest(out, d, 15, 17, false); }

void jb_init_fixed(jbuf_t *b, char *buf, size_t cap)
{
    *b = (jbuf_t){buf, 0, cap, false, cap == 0};
    if (cap) buf[0] = '\0';
}

void jb_init_growing(jbuf_t *b) { *b = (jbuf_t){NULL, 0, 0, true, false}; }

void jb_free(jbuf_t *b)
{
    if (b->grow) free(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
}

/* Room for n more bytes and the NUL. */
static bool reserve(jbuf_t *b, size_t n)
{
    if (b->failed) return false;
    if (b->len + n + 1 <= b->cap) return true;
    if (!b->grow) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *grown = realloc(b->buf, cap);
    if (!grown) {
        b->failed = true;
        return false;
    }
    b->buf = grown;
    b->cap = cap;
    return true;
}

static void append(jbuf_t *b, const char *s, size_t n)
{
    if (!reserve(b, n)) return;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

void jb_raw(jbuf_t *b, const char *s) { append(b, s, strlen(s)); }

void jb_printf(jbuf_t *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        append(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void jb_string(jbuf_t *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    append(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_next(p + i, n - i, &cp);
        char esc[8];
        if (!k) {
            /* Not UTF-8: U+FFFD in its place, escaped, so that the text
             * stays valid whatever it was given. */
            append(b, "\\ufffd", 6);
            k = 1;
        } else if (cp == '"' || cp == '\\') {
            esc[0] = '\\';
            esc[1] = (char)cp;
            append(b, esc, 2);
        } else if (cp < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            append(b, esc, 6);
        } else {
            append(b, s + i, k);
        }
        i += k;
    }
    append(b, "\"", 1);
}

void jb_float(jbuf_t *b, float f)
{
    char num[JSON_NUM_MAX];
    json_float(num, f);
    jb_raw(b, num);
}

void jb_double(jbuf_t *b, double d)
{
    char num[JSON_NUM_MAX];
    json_double(num, d);
    jb_raw(b, num);
}

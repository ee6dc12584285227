/* utf8: the one reader of UTF-8 in the server, and the one way it builds
 * bounded text that goes out.
 *
 * Reading: utf8_next and utf8_valid follow Unicode 15, table 3-7 (no
 * overlong forms, no surrogates, nothing past U+10FFFF). net checks every
 * text message it receives and sends with utf8_valid; the JSON reader and
 * the name rules read code points with utf8_next.
 *
 * Writing: a text_t appends pieces (some of them typed by people) into a
 * fixed buffer and keeps it valid UTF-8 whatever it is given: a byte that
 * is not part of a well-formed character becomes U+FFFD, and a piece that
 * does not fit is cut before the first character that does not fit, never
 * inside one. A browser fails the whole WebSocket on one invalid text
 * frame, so an invalid sentence would cost every viewer its connection. */
#ifndef SWARMCAST_UTF8_H
#define SWARMCAST_UTF8_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* Length (1–4) of the well-formed UTF-8 character at s[0, n) and its code
 * point in *cp; 0 when the bytes there are not one (or n is 0). */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
/* Whether s[0, len) is well-formed UTF-8. */
bool utf8_valid(const void *s, size_t len);

/* Text being built into buf[0, cap): always NUL-terminated and valid UTF-8.
 * cut: something did not fit (what was added before it stays; nothing is
 * added after it, so a cut text never skips a piece and shows a later one). */
typedef struct text {
    char *buf;
    size_t cap, len;
    bool cut;
} text_t;

/* cap must be at least 1. */
void text_init(text_t *t, char *buf, size_t cap);
/* Appends s[0, n) (n bytes, NUL bytes included as U+0000). */
void text_add_n(text_t *t, const char *s, size_t n);
/* Appends the character cp (U+FFFD for a surrogate or past U+10FFFF). */
void text_add_cp(text_t *t, uint32_t cp);
/* Appends the NUL-terminated s. */
void text_add(text_t *t, const char *s);
/* Appends what printf would make of fmt, with the same rules. */
void text_addf(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void text_vaddf(text_t *t, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* msg[0, cap) := what printf makes of fmt, as a text_t makes it; returns
 * -1, for the readers that fail with a reason in a caller's buffer. */
int text_fail(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, returning `code` (a reader's own error value). */
int text_fail_code(int code, char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* dst[0, cap) := src[0, n) as a text_t makes it; returns whether it was
 * whole (not cut). */
bool text_copy(char *dst, size_t cap, const char *src, size_t n);

#endif

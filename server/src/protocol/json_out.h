/* json_out: small helpers to write JSON text by hand where the output must be
 * byte-for-byte reproducible and cheap (command log, final state): numbers in
 * the shortest form that reads back exactly, strings escaped, appended into a
 * fixed or growing buffer. */
#ifndef SWARMCAST_JSON_OUT_H
#define SWARMCAST_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_NUM_MAX 32

/* The shortest decimal (up to 9 digits) that reads back as the same float;
 * "null" when not finite. */
void json_float(char out[JSON_NUM_MAX], float f);
/* The shortest decimal (up to 17 digits) that reads back as the same double;
 * "null" when not finite. */
void json_double(char out[JSON_NUM_MAX], double d);

/* An append buffer. With grow, it reallocates as needed; without, it writes
 * into the caller's buf and only marks overflow. */
typedef struct jbuf {
    char *buf;
    size_t len, cap;
    bool grow;
    bool failed; /* out of room or out of memory: the text is incomplete */
} jbuf_t;

void jb_init_fixed(jbuf_t *b, char *buf, size_t cap);
void jb_init_growing(jbuf_t *b);
void jb_free(jbuf_t *b); /* growing buffers only */
void jb_raw(jbuf_t *b, const char *s);
void jb_printf(jbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal, quotes included; a byte of s that is not
 * part of a well-formed UTF-8 character is written as \ufffd, so the
 * output is valid UTF-8 whatever s holds. */
void jb_string(jbuf_t *b, const char *s);
void jb_float(jbuf_t *b, float f);
void jb_double(jbuf_t *b, double d);

#endif

#include "protocol/json_strict.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/utf8.h"

/* A key of an object being read: where its string starts (the opening
 * quote) and a hash of its code points, so that "type" and "typ\u0065"
 * collide as they should. */
typedef struct key_ref {
    uint64_t hash;
    size_t at;
} key_ref_t;

/* Keys of the open objects, innermost last: most messages fit here without
 * a heap allocation. */
#define INLINE_KEYS 32

typedef struct reader {
    const unsigned char *s;
    size_t len, pos;
    int depth;
    key_ref_t *keys;
    size_t n_keys, cap_keys;
    key_ref_t inline_keys[INLINE_KEYS];
    json_strict_error_t *err;
} reader_t;

static int fail_at(reader_t *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(reader_t *r, size_t at, const char *fmt, ...)
{
    char what[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->err->offset = at;
    snprintf(r->err->message, sizeof r->err->message, "%s at byte %zu", what, at);
    return JSON_STRICT_E_INVALID;
}

/* A byte as a message shows it: printable ASCII quoted, anything else by
 * its value, so the message stays printable whatever the text holds. */
static const char *describe(unsigned char c, char buf[32])
{
    if (c == 0)
        snprintf(buf, 32, "a NUL byte");
    else if (c < 0x20 || c == 0x7f)
        snprintf(buf, 32, "control character 0x%02x", c);
    else if (c >= 0x80)
        snprintf(buf, 32, "byte 0x%02x", c);
    else
        snprintf(buf, 32, "'%c'", c);
    return buf;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static bool is_word_char(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-' ||
           c == '_';
}

static void skip_whitespace(reader_t *r)
{
    while (r->pos < r->len) {
        unsigned char c = r->s[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        r->pos++;
    }
}

/* Four hex digits at s[0, n): 0 and their value, or -1. */
static int hex4(const unsigned char *s, size_t n, uint32_t *out)
{
    if (n < 4) return -1;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned char c = s[k];
        uint32_t d;
        if (is_digit(c))
            d = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (uint32_t)(c - 'A' + 10);
        else
            return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

/* One code point of the string opened at byte `opened`, read at *i: 1 with
 * *cp (and *i past it), 0 at the closing quote (and *i past it), or an
 * error. Escapes are decoded, so equal keys compare equal however they are
 * written. */
static int string_code_point(reader_t *r, size_t opened, size_t *i, uint32_t *cp)
{
    if (*i >= r->len) return fail_at(r, opened, "unterminated string");
    unsigned char c = r->s[*i];
    if (c == '"') {
        (*i)++;
        return 0;
    }
    if (c == 0) return fail_at(r, *i, "NUL byte in a string");
    if (c < 0x20) return fail_at(r, *i, "unescaped control character 0x%02x in a string", c);
    if (c >= 0x80) {
        size_t n = utf8_next(r->s + *i, r->len - *i, cp);
        if (!n) return fail_at(r, *i, "invalid UTF-8 in a string");
        *i += n;
        return 1;
    }
    if (c != '\\') {
        *cp = c;
        (*i)++;
        return 1;
    }
    size_t at = *i;
    if (at + 1 >= r->len) return fail_at(r, opened, "unterminated string");
    char shown[32];
    switch (r->s[at + 1]) {
    case '"': *cp = '"'; break;
    case '\\': *cp = '\\'; break;
    case '/': *cp = '/'; break;
    case 'b': *cp = '\b'; break;
    case 'f': *cp = '\f'; break;
    case 'n': *cp = '\n'; break;
    case 'r': *cp = '\r'; break;
    case 't': *cp = '\t'; break;
    case 'u': break;
    default: return fail_at(r, at, "invalid escape: backslash followed by %s", describe(r->s[at + 1], shown));
    }
    if (r->s[at + 1] != 'u') {
        *i = at + 2;
        return 1;
    }
    uint32_t u;
    if (hex4(r->s + at + 2, r->len - at - 2, &u)) return fail_at(r, at, "\\u must be followed by four hex digits");
    *i = at + 6;
    if (u == 0) return fail_at(r, at, "escaped NUL (\\u0000) in a string");
    if (u >= 0xdc00 && u <= 0xdfff) return fail_at(r, at, "unpaired UTF-16 surrogate \\u%04x", (unsigned)u);
    if (u >= 0xd800 && u <= 0xdbff) {
        uint32_t low;
        if (r->len - *i < 6 || r->s[*i] != '\\' || r->s[*i + 1] != 'u' || hex4(r->s + *i + 2, 4, &low) ||
            low < 0xdc00 || low > 0xdfff)
            return fail_at(r, at, "unpaired UTF-16 surrogate \\u%04x", (unsigned)u);
        u = 0x10000u + ((u - 0xd800u) << 10) + (low - 0xdc00u);
        *i += 6;
    }
    *cp = u;
    return 1;
}

/* The string at r->pos (its opening quote); its FNV-1a hash when hash is
 * not NULL. */
static int read_string(reader_t *r, uint64_t *hash)
{
    size_t opened = r->pos, i = r->pos + 1;
    uint64_t h = 0xcbf29ce484222325u;
    for (;;) {
        uint32_t cp;
        int rc = string_code_point(r, opened, &i, &cp);
        if (rc < 0) return rc;
        if (rc == 0) break;
        h = (h ^ cp) * 0x100000001b3u;
    }
    r->pos = i;
    if (hash) *hash = h;
    return 0;
}

/* Whether the (already validated) strings at a and b hold the same code
 * points. */
static bool same_key(reader_t *r, size_t a, size_t b)
{
    size_t i = a + 1, j = b + 1;
    for (;;) {
        uint32_t ca = 0, cb = 0;
        int ra = string_code_point(r, a, &i, &ca), rb = string_code_point(r, b, &j, &cb);
        if (ra != rb || ca != cb) return false;
        if (ra <= 0) return ra == 0;
    }
}

/* The key at `at` for a message: printable ASCII, other code points as '?',
 * cut short. */
static const char *key_excerpt(reader_t *r, size_t at, char buf[40])
{
    size_t i = at + 1, n = 0;
    uint32_t cp;
    while (n < 32 && string_code_point(r, at, &i, &cp) == 1) buf[n++] = (cp >= 0x20 && cp < 0x7f) ? (char)cp : '?';
    if (n == 32) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static int add_key(reader_t *r, uint64_t hash, size_t at)
{
    if (r->n_keys == r->cap_keys) {
        size_t cap = r->cap_keys * 2;
        key_ref_t *grown = r->keys == r->inline_keys ? malloc(cap * sizeof *grown)
                                                      : realloc(r->keys, cap * sizeof *grown);
        if (!grown) {
            r->err->offset = at;
            snprintf(r->err->message, sizeof r->err->message, "out of memory for the keys of an object");
            return JSON_STRICT_E_NOMEM;
        }
        if (r->keys == r->inline_keys) memcpy(grown, r->inline_keys, sizeof r->inline_keys);
        r->keys = grown;
        r->cap_keys = cap;
    }
    r->keys[r->n_keys++] = (key_ref_t){hash, at};
    return 0;
}

static int by_hash_then_place(const void *pa, const void *pb)
{
    const key_ref_t *a = pa, *b = pb;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return a->at < b->at ? -1 : (a->at > b->at);
}

/* The keys of one object, keys[base, n_keys): sorted by hash, so only keys
 * with equal hashes are compared. Reports the first repeat in the text. */
static int check_duplicates(reader_t *r, size_t base)
{
    key_ref_t *k = r->keys + base;
    size_t n = r->n_keys - base;
    if (n < 2) return 0;
    qsort(k, n, sizeof *k, by_hash_then_place);
    size_t repeat = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && k[j].hash == k[i].hash; j++)
            if (k[j].at < repeat && same_key(r, k[i].at, k[j].at)) repeat = k[j].at;
    if (repeat == SIZE_MAX) return 0;
    char name[40];
    return fail_at(r, repeat, "duplicate key '%s'", key_excerpt(r, repeat, name));
}

static int read_value(reader_t *r);

static int read_object(reader_t *r)
{
    size_t opened = r->pos++, base = r->n_keys;
    char shown[32];
    int rc;
    skip_whitespace(r);
    if (r->pos < r->len && r->s[r->pos] == '}') {
        r->pos++;
        return 0;
    }
    for (;;) {
        if (r->pos >= r->len) return fail_at(r, r->pos, "the text ends inside the object opened at byte %zu", opened);
        if (r->s[r->pos] != '"')
            return fail_at(r, r->pos, "expected a key (a string), found %s", describe(r->s[r->pos], shown));
        uint64_t hash;
        size_t at = r->pos;
        if ((rc = read_string(r, &hash)) || (rc = add_key(r, hash, at))) return rc;
        skip_whitespace(r);
        if (r->pos >= r->len) return fail_at(r, r->pos, "the text ends inside the object opened at byte %zu", opened);
        if (r->s[r->pos] != ':')
            return fail_at(r, r->pos, "expected ':' after a key, found %s", describe(r->s[r->pos], shown));
        r->pos++;
        skip_whitespace(r);
        if ((rc = read_value(r))) return rc;
        skip_whitespace(r);
        if (r->pos >= r->len) return fail_at(r, r->pos, "the text ends inside the object opened at byte %zu", opened);
        unsigned char c = r->s[r->pos];
        if (c == '}') {
            r->pos++;
            break;
        }
        if (c != ',') return fail_at(r, r->pos, "expected ',' or '}' after a value, found %s", describe(c, shown));
        size_t comma = r->pos++;
        skip_whitespace(r);
        if (r->pos < r->len && r->s[r->pos] == '}') return fail_at(r, comma, "trailing comma before '}'");
    }
    rc = check_duplicates(r, base);
    r->n_keys = base;
    return rc;
}

static int read_array(reader_t *r)
{
    size_t opened = r->pos++;
    char shown[32];
    int rc;
    skip_whitespace(r);
    if (r->pos < r->len && r->s[r->pos] == ']') {
        r->pos++;
        return 0;
    }
    for (;;) {
        if ((rc = read_value(r))) return rc;
        skip_whitespace(r);
        if (r->pos >= r->len) return fail_at(r, r->pos, "the text ends inside the array opened at byte %zu", opened);
        unsigned char c = r->s[r->pos];
        if (c == ']') {
            r->pos++;
            return 0;
        }
        if (c != ',') return fail_at(r, r->pos, "expected ',' or ']' after a value, found %s", describe(c, shown));
        size_t comma = r->pos++;
        skip_whitespace(r);
        if (r->pos < r->len && r->s[r->pos] == ']') return fail_at(r, comma, "trailing comma before ']'");
    }
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and nothing word-like
 * straight after it (so `0x10` and `1.5.2` are named as bad numbers). */
static int read_number(reader_t *r)
{
    const unsigned char *s = r->s;
    size_t start = r->pos, i = start, n = r->len;
    char shown[32];
    if (s[i] == '-') {
        i++;
        if (i >= n || !is_digit(s[i])) return fail_at(r, start, "'-' must be followed by a digit");
    }
    if (s[i] == '0') {
        i++;
        if (i < n && is_digit(s[i])) return fail_at(r, start, "leading zero in a number");
    } else {
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && s[i] == '.') {
        size_t dot = i++;
        if (i >= n || !is_digit(s[i])) return fail_at(r, dot, "a number's '.' must be followed by a digit");
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return fail_at(r, e, "a number's exponent has no digits");
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && is_word_char(s[i])) return fail_at(r, i, "unexpected %s in a number", describe(s[i], shown));
    if (i - start > JSON_STRICT_MAX_NUMBER_CHARS)
        return fail_at(r, start, "a number longer than %d characters", JSON_STRICT_MAX_NUMBER_CHARS);
    r->pos = i;
    return 0;
}

static bool starts_with(const reader_t *r, const char *word)
{
    size_t n = strlen(word);
    return r->len - r->pos >= n && memcmp(r->s + r->pos, word, n) == 0;
}

static int read_literal(reader_t *r, const char *word)
{
    if (!starts_with(r, word)) return fail_at(r, r->pos, "a bare word that is not true, false or null");
    r->pos += strlen(word);
    return 0;
}

static int read_value(reader_t *r)
{
    if (r->pos >= r->len) return fail_at(r, r->pos, "expected a value, found the end of the text");
    unsigned char c = r->s[r->pos];
    char shown[32];
    switch (c) {
    case '{':
    case '[': {
        if (r->depth >= JSON_STRICT_MAX_DEPTH)
            return fail_at(r, r->pos, "objects and arrays nested deeper than %d levels", JSON_STRICT_MAX_DEPTH);
        r->depth++;
        int rc = c == '{' ? read_object(r) : read_array(r);
        r->depth--;
        return rc;
    }
    case '"': return read_string(r, NULL);
    case 't': return read_literal(r, "true");
    case 'f': return read_literal(r, "false");
    case 'n': return read_literal(r, "null");
    case '+': return fail_at(r, r->pos, "a number may not start with '+'");
    case '.': return fail_at(r, r->pos, "a number must start with a digit, not '.'");
    default:
        if (c == '-' || is_digit(c)) return read_number(r);
        if (starts_with(r, "NaN") || starts_with(r, "Infinity"))
            return fail_at(r, r->pos, "NaN and Infinity are not JSON numbers");
        return fail_at(r, r->pos, "expected a value, found %s", describe(c, shown));
    }
}

int json_strict_check(const char *text, size_t len, json_strict_error_t *err)
{
    memset(err, 0, sizeof *err);
    reader_t r = {.s = (const unsigned char *)text, .len = len, .err = err, .cap_keys = INLINE_KEYS};
    r.keys = r.inline_keys;
    char shown[32];
    int rc;
    if (len >= 3 && r.s[0] == 0xef && r.s[1] == 0xbb && r.s[2] == 0xbf) {
        rc = fail_at(&r, 0, "a byte-order mark");
    } else {
        skip_whitespace(&r);
        if (r.pos >= len)
            rc = fail_at(&r, r.pos, len ? "no JSON value, only whitespace" : "no JSON value, the text is empty");
        else
            rc = read_value(&r);
        if (rc == 0) {
            skip_whitespace(&r);
            if (r.pos < len) rc = fail_at(&r, r.pos, "text after the JSON value (%s)", describe(r.s[r.pos], shown));
        }
    }
    if (r.keys != r.inline_keys) free(r.keys);
    return rc;
}

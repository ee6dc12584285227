#include "protocol/presence_name.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "protocol/utf8.h"

/* Embeddings, overrides and isolates: a name must not reorder the text
 * drawn after it. */
static bool is_bidi_control(uint32_t cp) { return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069); }

static bool is_variation_selector(uint32_t cp)
{
    return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180d) ||
           cp == 0x180f;
}

/* Drawn as nothing, or as a blank, without being a space: format
 * characters, the Default Ignorable Code Points (zero-width spaces and
 * joiners, the soft hyphen, tags, the Hangul fillers U+115F, U+1160,
 * U+3164, U+FFA0, ...) and the blank braille pattern. */
static bool is_invisible(uint32_t cp)
{
    const utf8proc_property_t *p = utf8proc_get_property((utf8proc_int32_t)cp);
    return p->ignorable || p->category == UTF8PROC_CATEGORY_CF || cp == 0x2800;
}

static bool is_noncharacter(uint32_t cp) { return (cp & 0xfffe) == 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef); }

static bool is_mark(utf8proc_category_t c)
{
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

/* Marks that stack above or below their character (spacing marks, Mc, sit
 * beside it and are bounded by the character count). */
static bool is_stacking_mark(utf8proc_category_t c) { return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME; }

typedef enum { AFTER_NOTHING, AFTER_SPACE, AFTER_BASE, AFTER_MARK, AFTER_SELECTOR } after_t;

/* The first pass: refuses what must not be in a name at all, removes what
 * cannot be seen, turns spaces into one U+0020 between words. out has room
 * for strlen(in) + 1 bytes (it only ever shrinks). */
static int sift(const char *in, char *out, char *msg, size_t msg_len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = strlen(in), len = 0;
    after_t after = AFTER_NOTHING;
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        size_t k = utf8_next(s + at, n - at, &cp);
        if (!k) return text_fail(msg, msg_len, "field 'name' is not valid UTF-8");
        at += k;
        utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
        if (c == UTF8PROC_CATEGORY_CC)
            return text_fail(msg, msg_len, "field 'name' holds a control character (U+%04X): names are printable text",
                          (unsigned)cp);
        if (c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP)
            return text_fail(msg, msg_len, "field 'name' holds a line or paragraph separator (U+%04X): a name is one line",
                          (unsigned)cp);
        if (is_bidi_control(cp))
            return text_fail(msg, msg_len,
                          "field 'name' holds a bidirectional control (U+%04X): it would reorder the text drawn after it",
                          (unsigned)cp);
        if (c == UTF8PROC_CATEGORY_CO || is_noncharacter(cp))
            return text_fail(msg, msg_len,
                          "field 'name' holds U+%04X, a private-use character or noncharacter: it shows differently "
                          "everywhere",
                          (unsigned)cp);
        if (is_variation_selector(cp)) {
            /* Kept right after the character it chooses the look of (an
             * emoji's colour form) or that character's marks, nowhere else
             * (NFC may split a character into a base and a mark). */
            if (after != AFTER_BASE && after != AFTER_MARK) continue;
            after = AFTER_SELECTOR;
        } else if (is_invisible(cp)) {
            continue;
        } else if (c == UTF8PROC_CATEGORY_CN) {
            return text_fail(msg, msg_len, "field 'name' holds U+%04X, which is not an assigned character", (unsigned)cp);
        } else if (c == UTF8PROC_CATEGORY_ZS) {
            if (after != AFTER_NOTHING && after != AFTER_SPACE) out[len++] = ' ';
            after = AFTER_SPACE;
            continue;
        } else if (is_mark(c)) {
            if (after == AFTER_NOTHING || after == AFTER_SPACE) continue; /* nothing to combine with */
            after = AFTER_MARK;
        } else {
            after = AFTER_BASE;
        }
        memcpy(out + len, s + at - k, k);
        len += k;
    }
    if (len && out[len - 1] == ' ') len--;
    out[len] = '\0';
    return 0;
}

/* The last pass, on the normalised text: caps the marks on each character,
 * counts the characters and the visible ones, and copies into out. */
static int measure(const char *nfc, char out[PRESENCE_NAME_BYTES], char *msg, size_t msg_len)
{
    const unsigned char *s = (const unsigned char *)nfc;
    size_t n = strlen(nfc), len = 0, chars = 0, visible = 0, marks = 0;
    for (size_t at = 0; at < n;) {
        uint32_t cp;
        size_t k = utf8_next(s + at, n - at, &cp);
        if (!k) return text_fail(msg, msg_len, "field 'name' is not valid UTF-8"); /* cannot happen: NFC of UTF-8 */
        at += k;
        utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
        if (is_stacking_mark(c)) {
            if (++marks > PRESENCE_NAME_MARKS) continue;
        } else if (!is_mark(c)) {
            marks = 0;
            if (c != UTF8PROC_CATEGORY_ZS) visible++;
        }
        if (++chars > PRESENCE_NAME_CHARS) continue; /* counted, not kept */
        memcpy(out + len, s + at - k, k);
        len += k;
    }
    out[len] = '\0';
    if (!visible)
        return text_fail(msg, msg_len,
                      "field 'name' has no visible character once spaces and invisible characters are removed: "
                      "give 1 to %d characters",
                      PRESENCE_NAME_CHARS);
    if (chars > PRESENCE_NAME_CHARS)
        return text_fail(msg, msg_len, "field 'name' has %zu characters; at most %d", chars, PRESENCE_NAME_CHARS);
    return 0;
}

/* "guest 7", "guest7", "#7": the shapes of the names the server and the
 * page make up for people. */
static bool is_label_with_number(const char *s, const char *prefix)
{
    size_t p = strlen(prefix);
    if (strncmp(s, prefix, p) != 0) return false;
    s += p;
    if (*s == ' ') s++;
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

/* Whether a cleaned name is one of the labels the page and the server use
 * for people, compared as NFKC case-folded text (so "YOU" and the
 * full-width "ｙｏｕ" are "you"). -1 when out of memory. */
static int is_reserved(const char *name)
{
    static const char *const labels[] = {"you", "someone", "operator", "visitor"};
    char *folded = (char *)utf8proc_NFKC_Casefold((const utf8proc_uint8_t *)name);
    if (!folded) return -1;
    bool reserved = is_label_with_number(folded, "guest") || is_label_with_number(folded, "#");
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) reserved |= strcmp(folded, labels[i]) == 0;
    free(folded);
    return reserved;
}

int presence_clean_name(const char *in, char out[PRESENCE_NAME_BYTES], char *msg, size_t msg_len)
{
    char *sifted = malloc(strlen(in) + 1);
    if (!sifted) return text_fail(msg, msg_len, "out of memory");
    if (sift(in, sifted, msg, msg_len)) {
        free(sifted);
        return -1;
    }
    utf8proc_uint8_t *nfc = NULL;
    utf8proc_ssize_t rc = utf8proc_map((const utf8proc_uint8_t *)sifted, 0, &nfc,
                                       UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    free(sifted);
    if (rc < 0) return text_fail(msg, msg_len, "field 'name' cannot be normalised: %s", utf8proc_errmsg(rc));
    int result = measure((const char *)nfc, out, msg, msg_len);
    free(nfc);
    int reserved = result ? 0 : is_reserved(out);
    if (reserved < 0) result = text_fail(msg, msg_len, "out of memory");
    if (reserved > 0)
        result = text_fail(msg, msg_len,
                        "field 'name' is one of the labels the page uses for people (you, someone, operator, visitor, "
                        "Guest N, #N): choose another");
    if (result) out[0] = '\0'; /* nothing of a refused name is used */
    return result;
}

/* json_strict: decides whether a text is exactly one JSON value under the
 * strict grammar of protocol/PROTOCOL.md ("Strict JSON"): RFC 8259 with no
 * extensions, plus a few limits of our own. cJSON, which parses the commands
 * afterwards, is lenient (it skips a byte-order mark and any byte <= 0x20 as
 * whitespace, reads `01`, `-01` and `1.`, keeps both of two equal keys), so
 * every message is checked here first, and a refusal names what is wrong and
 * at which byte.
 *
 * Refused, beyond RFC 8259's own grammar:
 *   - an escaped NUL (\u0000) in a string: our strings are C strings, so it
 *     would silently cut the string short;
 *   - a UTF-16 surrogate escape that is not a high one followed by a low one;
 *   - nesting of objects and arrays deeper than JSON_STRICT_MAX_DEPTH;
 *   - a number longer than JSON_STRICT_MAX_NUMBER_CHARS characters;
 *   - two keys of one object that are equal once unescaped.
 * The check reads no byte outside text[0, len) and is safe on any bytes. */
#ifndef SWARMCAST_JSON_STRICT_H
#define SWARMCAST_JSON_STRICT_H

#include <stddef.h>

#define JSON_STRICT_MAX_DEPTH 16
/* cJSON reads at most 63 characters of a number and would refuse a longer
 * one without saying why; no number the protocol needs comes close. */
#define JSON_STRICT_MAX_NUMBER_CHARS 63

enum { JSON_STRICT_OK = 0, JSON_STRICT_E_INVALID = -1, JSON_STRICT_E_NOMEM = -2 };

typedef struct json_strict_error {
    size_t offset;     /* byte (from 0) where the problem is */
    char message[120]; /* printable ASCII, e.g. "leading zero in a number at byte 12" */
} json_strict_error_t;

/* JSON_STRICT_OK when text[0, len) is one JSON value (surrounded by nothing
 * but JSON whitespace); otherwise JSON_STRICT_E_INVALID, or
 * JSON_STRICT_E_NOMEM when memory for an object's keys ran out, with err
 * filled. */
int json_strict_check(const char *text, size_t len, json_strict_error_t *err);

#endif

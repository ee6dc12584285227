#include "protocol/presence_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int refuse(cmd_error_t *err, const char *code, const char *fmt, ...)
{
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return PRESENCE_INVALID;
}

/* The code point at s (length in *len), or -1 when the bytes are not
 * well-formed UTF-8 (net checks every message, but this stays safe alone). */
static long next_code_point(const unsigned char *s, size_t *len)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (!n) return -1;
    long cp = n == 1 ? (long)c : (long)(c & (0x7fu >> n));
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80) return -1;
        cp = (cp << 6) | (s[k] & 0x3f);
    }
    static const long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
    *len = (size_t)n;
    return cp;
}

static bool is_space(long cp)
{
    return cp == ' ' || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f ||
           cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

/* Not printable: C0 and C1 controls, DEL, line and paragraph separators,
 * and the bidirectional overrides (a name must not reorder the text
 * drawn after it). Tabs and newlines are C0. */
static bool is_unprintable(long cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

int presence_clean_name(const char *in, char out[PRESENCE_NAME_BYTES], char *msg, size_t msg_len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = strlen(in), first = n, end = 0, chars = 0;
    for (size_t at = 0; at < n;) {
        size_t len;
        long cp = next_code_point(s + at, &len);
        if (cp < 0) return snprintf(msg, msg_len, "field 'name' is not valid UTF-8"), -1;
        if (is_unprintable(cp))
            return snprintf(msg, msg_len, "field 'name' holds a control character (U+%04lX): names are printable text", cp), -1;
        if (!is_space(cp)) {
            if (first == n) first = at;
            end = at + len;
        }
        at += len;
    }
    if (first == n) return snprintf(msg, msg_len, "field 'name' is empty once trimmed: give 1 to %d characters", PRESENCE_NAME_CHARS), -1;
    for (size_t at = first; at < end; chars++) {
        size_t len;
        next_code_point(s + at, &len);
        at += len;
    }
    if (chars > PRESENCE_NAME_CHARS)
        return snprintf(msg, msg_len, "field 'name' has %zu characters; at most %d", chars, PRESENCE_NAME_CHARS), -1;
    memcpy(out, in + first, end - first);
    out[end - first] = '\0';
    return 0;
}

static int parse_color(const char *s, uint32_t *out)
{
    if (strlen(s) != 7 || s[0] != '#') return -1;
    uint32_t v = 0;
    for (int k = 1; k < 7; k++) {
        char c = s[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

static int decode_hello(const cJSON *root, presence_msg_t *out, cmd_error_t *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    const cJSON *color = cJSON_GetObjectItemCaseSensitive(root, "color");
    if (name) {
        if (!cJSON_IsString(name)) return refuse(err, "bad_type", "field 'name' must be a string");
        char why[160];
        if (presence_clean_name(name->valuestring, out->name, why, sizeof why)) return refuse(err, "out_of_range", "%s", why);
        out->has_name = true;
    }
    if (color) {
        if (!cJSON_IsString(color)) return refuse(err, "bad_type", "field 'color' must be a string");
        if (parse_color(color->valuestring, &out->color))
            return refuse(err, "out_of_range", "field 'color' must be #rrggbb (six hexadecimal digits)");
        out->has_color = true;
    }
    return PRESENCE_DECODED;
}

/* x and y together, finite, inside the world (or neither, when allowed). */
static int decode_point(const cJSON *root, const cmd_limits_t *lim, bool required, presence_msg_t *out, cmd_error_t *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, "x"), *y = cJSON_GetObjectItemCaseSensitive(root, "y");
    if (!x && !y) return required ? refuse(err, "missing_field", "fields 'x' and 'y' are required") : PRESENCE_DECODED;
    if (!x || !y) return refuse(err, "missing_field", "fields 'x' and 'y' go together");
    if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y)) return refuse(err, "bad_type", "fields 'x' and 'y' must be numbers");
    double vx = x->valuedouble, vy = y->valuedouble;
    if (!isfinite(vx) || !isfinite(vy) || vx < 0 || vx > lim->width || vy < 0 || vy > lim->height)
        return refuse(err, "out_of_range", "the point (%g, %g) is outside the world [0, %g] x [0, %g]", vx, vy,
                      (double)lim->width, (double)lim->height);
    out->has_point = true;
    out->x = (float)vx, out->y = (float)vy;
    return PRESENCE_DECODED;
}

int presence_decode(const char *text, size_t len, const cmd_limits_t *limits, presence_msg_t *out, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    static const char *const names[] = {[PRESENCE_HELLO] = "hello", [PRESENCE_CURSOR] = "cursor",
                                        [PRESENCE_INSPECT] = "inspect", [PRESENCE_PING] = "ping"};
    int kind = -1;
    if (cJSON_IsString(type))
        for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
            if (strcmp(type->valuestring, names[k]) == 0) kind = k;
    if (kind < 0) {
        cJSON_Delete(root);
        return PRESENCE_NOT_PRESENCE;
    }
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    out->kind = (presence_kind_t)kind;
    err->cmd = names[kind];
    err->request_id = out->request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    int rc;
    /* inspect's "id": null (stop) is no request id. */
    if (id && cJSON_IsNull(id)) id = NULL;
    if (id && !(cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
                id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX)) {
        rc = refuse(err, "bad_type", "field 'id' must be a whole number in [0, 4294967295]");
    } else {
        if (id) err->request_id = out->request_id = (int64_t)id->valuedouble;
        switch (out->kind) {
        case PRESENCE_HELLO:
            rc = decode_hello(root, out, err);
            break;
        case PRESENCE_CURSOR:
            rc = decode_point(root, limits, true, out, err);
            break;
        case PRESENCE_PING: /* nothing but the id to echo */
            rc = PRESENCE_DECODED;
            break;
        default: { /* inspect: a point picks, "id": null (or no point) stops */
            rc = decode_point(root, limits, false, out, err);
            break;
        }
        }
    }
    cJSON_Delete(root);
    return rc;
}

const char *presence_kind_name(presence_kind_t kind)
{
    switch (kind) {
    case PRESENCE_HELLO: return "hello";
    case PRESENCE_CURSOR: return "cursor";
    case PRESENCE_INSPECT: return "inspect";
    default: return "ping";
    }
}

#include "protocol/presence_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(PRESENCE_INVALID == -1, "cmd_refuse's result is PRESENCE_INVALID");

/* The one list of presence message types, by kind. */
static const char *const kind_names[] = {[PRESENCE_HELLO] = "hello", [PRESENCE_CURSOR] = "cursor",
                                         [PRESENCE_INSPECT] = "inspect", [PRESENCE_PING] = "ping"};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == PRESENCE_KINDS, "a name for every presence kind");

const char *presence_kind_name(presence_kind_t kind)
{
    return (unsigned)kind < PRESENCE_KINDS ? kind_names[kind] : NULL;
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
        if (!cJSON_IsString(name)) return cmd_refuse(err, "bad_type", "field 'name' must be a string");
        char why[160];
        if (presence_clean_name(name->valuestring, out->name, why, sizeof why)) return cmd_refuse(err, "out_of_range", "%s", why);
        out->has_name = true;
    }
    if (color) {
        if (!cJSON_IsString(color)) return cmd_refuse(err, "bad_type", "field 'color' must be a string");
        if (parse_color(color->valuestring, &out->color))
            return cmd_refuse(err, "out_of_range", "field 'color' must be #rrggbb (six hexadecimal digits)");
        out->has_color = true;
    }
    return PRESENCE_DECODED;
}

/* x and y together, finite, inside the world (or neither, when allowed). */
static int decode_point(const cJSON *root, const cmd_limits_t *lim, bool required, presence_msg_t *out, cmd_error_t *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, "x"), *y = cJSON_GetObjectItemCaseSensitive(root, "y");
    if (!x && !y) return required ? cmd_refuse(err, "missing_field", "fields 'x' and 'y' are required") : PRESENCE_DECODED;
    if (!x || !y) return cmd_refuse(err, "missing_field", "fields 'x' and 'y' go together");
    if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y)) return cmd_refuse(err, "bad_type", "fields 'x' and 'y' must be numbers");
    double vx = x->valuedouble, vy = y->valuedouble;
    if (!isfinite(vx) || !isfinite(vy) || vx < 0 || vx > lim->width || vy < 0 || vy > lim->height)
        return cmd_refuse(err, "out_of_range", "the point (%g, %g) is outside the world [0, %g] x [0, %g]", vx, vy,
                      (double)lim->width, (double)lim->height);
    out->has_point = true;
    out->x = (float)vx, out->y = (float)vy;
    return PRESENCE_DECODED;
}

int presence_decode(const char *text, size_t len, const cmd_limits_t *limits, presence_msg_t *out, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    int kind = -1;
    if (cJSON_IsString(type))
        for (int k = 0; k < PRESENCE_KINDS; k++)
            if (strcmp(type->valuestring, presence_kind_name((presence_kind_t)k)) == 0) kind = k;
    if (kind < 0) {
        cJSON_Delete(root);
        return PRESENCE_NOT_PRESENCE;
    }
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    out->kind = (presence_kind_t)kind;
    err->cmd = presence_kind_name(out->kind);
    err->request_id = out->request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    int rc;
    /* inspect's "id": null (stop) is no request id. */
    if (id && cJSON_IsNull(id)) id = NULL;
    if (id && !(cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
                id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX)) {
        rc = cmd_refuse(err, "bad_type", "field 'id' must be a whole number in [0, 4294967295]");
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

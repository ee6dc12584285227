#include "protocol/cmd_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protocol/json_strict.h"
#include "protocol/utf8.h"

int cmd_refuse(cmd_error_t *err, const char *code, const char *fmt, ...)
{
    err->code = code;
    text_t t;
    text_init(&t, err->message, sizeof err->message);
    va_list ap;
    va_start(ap, fmt);
    text_vaddf(&t, fmt, ap);
    va_end(ap);
    return -1;
}

/* Client text quoted back in an error: printable ASCII only and short, so a
 * reply is always valid UTF-8 whatever the client sent. */
static const char *excerpt(const char *s, char buf[64])
{
    size_t n = 0;
    for (; s[n] && n < 63; n++) buf[n] = (s[n] >= 0x20 && s[n] < 0x7f) ? s[n] : '?';
    buf[n] = '\0';
    return buf;
}

/* A required or optional number field, finite, within [lo, hi]. */
static int get_number(const cJSON *obj, const char *name, bool required, double lo, double hi,
                      double *out, bool *present, cmd_error_t *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (present) *present = f != NULL;
    if (!f) return required ? cmd_refuse(err, "missing_field", "field '%s' is required", name) : 0;
    if (!cJSON_IsNumber(f)) return cmd_refuse(err, "bad_type", "field '%s' must be a number", name);
    double v = f->valuedouble;
    if (!isfinite(v)) return cmd_refuse(err, "out_of_range", "field '%s' must be finite", name);
    if (v < lo || v > hi) return cmd_refuse(err, "out_of_range", "field '%s' is %g, must be in [%g, %g]", name, v, lo, hi);
    *out = v;
    return 0;
}

/* As get_number, and the value must be a whole number. */
static int get_integer(const cJSON *obj, const char *name, bool required, double lo, double hi,
                       double *out, bool *present, cmd_error_t *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (f && cJSON_IsNumber(f) && isfinite(f->valuedouble) && f->valuedouble != floor(f->valuedouble))
        return cmd_refuse(err, "bad_type", "field '%s' must be a whole number", name);
    return get_number(obj, name, required, lo, hi, out, present, err);
}

static int decode_point(const cJSON *obj, const cmd_limits_t *lim, bool required, sim_cmd_t *out,
                        cmd_error_t *err)
{
    double x = 0, y = 0;
    bool has_x = false, has_y = false;
    if (get_number(obj, "x", required, 0, lim->width, &x, &has_x, err) ||
        get_number(obj, "y", required, 0, lim->height, &y, &has_y, err))
        return -1;
    if (has_x != has_y) return cmd_refuse(err, "missing_field", "fields 'x' and 'y' go together");
    out->has_point = has_x;
    out->x = (float)x;
    out->y = (float)y;
    return 0;
}

static int decode_set_param(const cJSON *obj, sim_cmd_t *out, cmd_error_t *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
    if (!name) return cmd_refuse(err, "missing_field", "field 'name' is required");
    if (!cJSON_IsString(name)) return cmd_refuse(err, "bad_type", "field 'name' must be a string");
    int index = params_find(name->valuestring);
    char quoted[64];
    if (index < 0) return cmd_refuse(err, "unknown_param", "no parameter named '%s'", excerpt(name->valuestring, quoted));
    const param_desc_t *d = params_desc((size_t)index);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(obj, "value");
    if (!value) return cmd_refuse(err, "missing_field", "field 'value' is required");

    double v;
    switch (d->type) {
    case PARAM_BOOL:
        if (!cJSON_IsBool(value)) return cmd_refuse(err, "bad_type", "%s takes true or false", d->name);
        v = cJSON_IsTrue(value) ? 1 : 0;
        break;
    case PARAM_ENUM:
        if (!cJSON_IsString(value)) return cmd_refuse(err, "bad_type", "%s takes a string", d->name);
        v = params_enum_index(d, value->valuestring);
        if (v < 0)
            return cmd_refuse(err, "out_of_range", "%s has no value '%s'", d->name, excerpt(value->valuestring, quoted));
        break;
    default:
        if (!cJSON_IsNumber(value)) return cmd_refuse(err, "bad_type", "%s takes a number", d->name);
        v = value->valuedouble;
        break;
    }
    /* A JSON number too large for a double arrives as infinity: a range error. */
    if (!isfinite(v)) return cmd_refuse(err, "out_of_range", "%s: value must be a finite number", d->name);
    /* Ranges are static: check them now on a scratch copy, with the same
     * messages the world would give. */
    sim_params_t scratch;
    params_defaults(&scratch);
    char why[sizeof err->message];
    int rc = params_set(&scratch, (size_t)index, v, why, sizeof why);
    if (rc == SIM_E_BAD_TYPE) return cmd_refuse(err, "bad_type", "%s", why);
    if (rc != SIM_OK) return cmd_refuse(err, "out_of_range", "%s", why);
    double species = -1;
    bool has_species = false;
    if (get_integer(obj, "species", false, 0, SIM_MAX_SPECIES - 1, &species, &has_species, err)) return -1;
    out->has_species = has_species;
    out->species = has_species ? (int)species : 0;
    out->param = index;
    out->value = v;
    return 0;
}

static int decode_body(const cJSON *obj, const cmd_limits_t *lim, sim_cmd_t *out, cmd_error_t *err)
{
    double v = 0;
    bool present = false;
    switch (out->kind) {
    case CMD_SET_TARGET:
        return decode_point(obj, lim, true, out, err);
    case CMD_ADD_OBSTACLE:
        if (decode_point(obj, lim, true, out, err) ||
            get_number(obj, "radius", true, SIM_OBSTACLE_MIN_RADIUS, SIM_OBSTACLE_MAX_RADIUS, &v, NULL, err))
            return -1;
        out->radius = (float)v;
        if (get_number(obj, "vx", false, -SIM_OBSTACLE_MAX_SPEED, SIM_OBSTACLE_MAX_SPEED, &v, &present, err)) return -1;
        out->vx = present ? (float)v : 0.0f;
        if (get_number(obj, "vy", false, -SIM_OBSTACLE_MAX_SPEED, SIM_OBSTACLE_MAX_SPEED, &v, &present, err)) return -1;
        out->vy = present ? (float)v : 0.0f;
        return 0;
    case CMD_MOVE_OBSTACLE:
        if (get_integer(obj, "obstacle_id", true, 0, UINT32_MAX, &v, NULL, err)) return -1;
        out->obstacle_id = (uint32_t)v;
        return decode_point(obj, lim, true, out, err);
    case CMD_SET_MODEL: {
        const cJSON *model = cJSON_GetObjectItemCaseSensitive(obj, "model");
        if (!model) return cmd_refuse(err, "missing_field", "field 'model' is required");
        if (!cJSON_IsString(model)) return cmd_refuse(err, "bad_type", "field 'model' must be a string");
        int index = params_enum_index(params_desc((size_t)params_find("model")), model->valuestring);
        char quoted[64];
        if (index < 0) return cmd_refuse(err, "out_of_range", "no model named '%s'", excerpt(model->valuestring, quoted));
        out->model = index;
        return 0;
    }
    case CMD_REMOVE_OBSTACLE:
        if (get_integer(obj, "obstacle_id", true, 0, UINT32_MAX, &v, NULL, err)) return -1;
        out->obstacle_id = (uint32_t)v;
        return 0;
    case CMD_SET_PARAM:
        return decode_set_param(obj, out, err);
    case CMD_ADD_AGENTS:
        if (get_integer(obj, "count", true, 1, SIM_MAX_ADD_AGENTS, &v, NULL, err)) return -1;
        out->count = (uint32_t)v;
        return decode_point(obj, lim, false, out, err);
    case CMD_RESET:
        if (get_integer(obj, "seed", false, 0, UINT32_MAX, &v, &present, err)) return -1;
        out->has_seed = present;
        out->seed = present ? (uint32_t)v : 0;
        if (get_integer(obj, "agents", false, 0, (double)lim->max_agents, &v, &present, err)) return -1;
        out->has_agents = present;
        out->agents = present ? (uint32_t)v : 0;
        return 0;
    default: /* clear_target, pause, resume: no fields */
        return 0;
    }
}

int cmd_decode(const char *text, size_t len, const cmd_limits_t *limits, uint32_t client_id,
               sim_cmd_t *out, cmd_error_t *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    err->request_id = -1;
    out->request_id = -1;
    out->client_id = client_id;

    /* cJSON is lenient (a byte-order mark, `01`, control characters, two
     * equal keys…): the text must first pass the protocol's strict grammar. */
    json_strict_error_t strict;
    int strict_rc = json_strict_check(text, len, &strict);
    if (strict_rc != JSON_STRICT_OK)
        return cmd_refuse(err, strict_rc == JSON_STRICT_E_NOMEM ? "internal" : "bad_json", "%s", strict.message);

    const char *parse_end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &parse_end, false);
    int rc = -1;
    /* One message is one object: text after it (a second object, say) would
     * otherwise be silently dropped. */
    bool trailing = false;
    if (root)
        for (const char *p = parse_end; p < text + len; p++) trailing |= !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');
    if (!root || !cJSON_IsObject(root) || trailing) {
        cmd_refuse(err, "bad_json", !root || trailing ? "the message is not one valid JSON object" : "a command must be a JSON object");
        goto done;
    }
    /* Both the id and the type are read first, so that any error can be
     * matched to its command as far as the message allows. */
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    bool id_ok = !id || (cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
                         id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX);
    if (id && id_ok) err->request_id = out->request_id = (int64_t)id->valuedouble;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    int kind = -1;
    /* The server's own commands (leave) are not a client's to send: to the
     * network they do not exist. */
    if (cJSON_IsString(type))
        for (int k = 0; k < CMD_COUNT; k++)
            if (!cmd_is_internal((cmd_kind_t)k) && strcmp(type->valuestring, cmd_name((cmd_kind_t)k)) == 0) kind = k;
    if (kind >= 0) {
        out->kind = (cmd_kind_t)kind;
        err->cmd = cmd_name(out->kind);
    }
    if (!id_ok) {
        cmd_refuse(err, "bad_type", "field 'id' must be a whole number in [0, 4294967295]");
        goto done;
    }
    if (!cJSON_IsString(type)) {
        cmd_refuse(err, "unknown_command", type ? "field 'type' must be a string" : "field 'type' is required");
        goto done;
    }
    if (kind < 0) {
        char quoted[64];
        cmd_refuse(err, "unknown_command", "unknown command '%s'", excerpt(type->valuestring, quoted));
        goto done;
    }
    rc = decode_body(root, limits, out, err);
done:
    cJSON_Delete(root);
    return rc;
}

#include "persist/record.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "persist/param_json.h"
#include "protocol/json_out.h"
#include "protocol/utf8.h"

#define SERVER_NAME "swarmcast " SWARMCAST_VERSION

/* A parameter value in its wire form: true/false, an enum name, or a number. */
static void put_param_value(jbuf_t *b, const param_desc_t *d, double v)
{
    switch (d->type) {
    case PARAM_BOOL:
        jb_raw(b, v != 0 ? "true" : "false");
        break;
    case PARAM_ENUM:
        if (v >= 0 && v <= d->max && v == floor(v))
            jb_string(b, d->enum_names[(int)v]);
        else
            b->failed = true;
        break;
    case PARAM_FLOAT:
    case PARAM_INT:
        jb_double(b, v);
        break;
    }
}

/* One case per command kind, and no default: a kind added to cmd_kind_t
 * without its case here is a compiler warning (an error with -Werror). */
int record_cmd_json(const sim_cmd_t *cmd, char *buf, size_t cap)
{
    if ((unsigned)cmd->kind >= CMD_COUNT) return -1;
    jbuf_t b;
    jb_init_fixed(&b, buf, cap);
    jb_raw(&b, "{\"type\":");
    jb_string(&b, cmd_name(cmd->kind));
    if (cmd->request_id >= 0) jb_printf(&b, ",\"id\":%lld", (long long)cmd->request_id);
    jb_printf(&b, ",\"client_id\":%lu", (unsigned long)cmd->client_id);
    /* Only when true, so that logs from before roles read the same. */
    if (cmd->visitor) jb_raw(&b, ",\"visitor\":true");
    switch (cmd->kind) {
    case CMD_SET_TARGET:
        jb_raw(&b, ",\"x\":");
        jb_float(&b, cmd->x);
        jb_raw(&b, ",\"y\":");
        jb_float(&b, cmd->y);
        break;
    case CMD_CLEAR_TARGET:
        break;
    case CMD_ADD_OBSTACLE:
        jb_raw(&b, ",\"x\":");
        jb_float(&b, cmd->x);
        jb_raw(&b, ",\"y\":");
        jb_float(&b, cmd->y);
        jb_raw(&b, ",\"radius\":");
        jb_float(&b, cmd->radius);
        if (cmd->vx != 0.0f || cmd->vy != 0.0f || signbit(cmd->vx) || signbit(cmd->vy)) {
            jb_raw(&b, ",\"vx\":");
            jb_float(&b, cmd->vx);
            jb_raw(&b, ",\"vy\":");
            jb_float(&b, cmd->vy);
        }
        break;
    case CMD_MOVE_OBSTACLE:
        jb_printf(&b, ",\"obstacle_id\":%lu,\"x\":", (unsigned long)cmd->obstacle_id);
        jb_float(&b, cmd->x);
        jb_raw(&b, ",\"y\":");
        jb_float(&b, cmd->y);
        break;
    case CMD_SET_MODEL: {
        int index = params_find("model");
        const param_desc_t *d = index >= 0 ? params_desc((size_t)index) : NULL;
        if (!d || d->type != PARAM_ENUM || cmd->model < 0 || cmd->model > (int)d->max) return -1;
        jb_raw(&b, ",\"model\":");
        jb_string(&b, d->enum_names[cmd->model]);
        break;
    }
    case CMD_REMOVE_OBSTACLE:
        jb_printf(&b, ",\"obstacle_id\":%lu", (unsigned long)cmd->obstacle_id);
        break;
    case CMD_SET_PARAM: {
        const param_desc_t *d = cmd->param >= 0 ? params_desc((size_t)cmd->param) : NULL;
        if (!d) return -1;
        jb_raw(&b, ",\"name\":");
        jb_string(&b, d->name);
        jb_raw(&b, ",\"value\":");
        put_param_value(&b, d, cmd->value);
        if (cmd->has_species) jb_printf(&b, ",\"species\":%d", cmd->species);
        break;
    }
    case CMD_ADD_AGENTS:
        jb_printf(&b, ",\"count\":%lu", (unsigned long)cmd->count);
        if (cmd->has_point) {
            jb_raw(&b, ",\"x\":");
            jb_float(&b, cmd->x);
            jb_raw(&b, ",\"y\":");
            jb_float(&b, cmd->y);
        }
        break;
    case CMD_RESET:
        if (cmd->has_seed) jb_printf(&b, ",\"seed\":%lu", (unsigned long)cmd->seed);
        if (cmd->has_agents) jb_printf(&b, ",\"agents\":%lu", (unsigned long)cmd->agents);
        break;
    case CMD_PAUSE:
    case CMD_RESUME:
    case CMD_STEP:
    case CMD_LEAVE:
        break;
    case CMD_COUNT:
        return -1;
    }
    jb_raw(&b, "}");
    return b.failed ? -1 : (int)b.len;
}

static int stream_status(FILE *f) { return ferror(f) ? -1 : 0; }

int record_write_header(FILE *f, const record_header_t *h)
{
    jbuf_t b;
    jb_init_growing(&b);
    jb_printf(&b, "{\"swarmcast_record\":%d,\"server\":", RECORD_FORMAT);
    jb_string(&b, SERVER_NAME);
    jb_printf(&b, ",\"seed\":%lu,\"agents\":%zu,\"world\":{\"width\":", (unsigned long)h->seed, h->agents);
    jb_float(&b, h->width);
    jb_raw(&b, ",\"height\":");
    jb_float(&b, h->height);
    jb_raw(&b, "},\"tick_hz\":");
    jb_double(&b, h->tick_hz);
    jb_printf(&b, ",\"max_agents\":%zu,\"max_targets\":%zu,\"params\":{", h->max_agents, h->max_targets);
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        if (i) jb_raw(&b, ",");
        jb_string(&b, d->name);
        jb_raw(&b, ":");
        put_param_value(&b, d, params_get(&h->params, i));
    }
    jb_raw(&b, "}}\n");
    int rc = b.failed ? -1 : 0;
    if (!rc) fputs(b.buf, f);
    jb_free(&b);
    return rc ? rc : stream_status(f);
}

int record_write_cmd(FILE *f, uint64_t tick, const sim_cmd_t *cmd)
{
    char text[RECORD_CMD_MAX];
    if (record_cmd_json(cmd, text, sizeof text) < 0) return -1;
    fprintf(f, "{\"tick\":%llu,\"cmd\":%s}\n", (unsigned long long)tick, text);
    return stream_status(f);
}

int record_write_end(FILE *f, uint64_t end_tick)
{
    fprintf(f, "{\"end_tick\":%llu}\n", (unsigned long long)end_tick);
    return stream_status(f);
}

/* ---- reading ------------------------------------------------------------ */

/* A whole number field in [lo, hi]. */
static int get_whole(const cJSON *obj, const char *name, double lo, double hi, double *out, char *msg, size_t msg_len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!f) return text_fail(msg, msg_len, "field '%s' is missing", name);
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || f->valuedouble != floor(f->valuedouble))
        return text_fail(msg, msg_len, "field '%s' must be a whole number", name);
    if (f->valuedouble < lo || f->valuedouble > hi)
        return text_fail(msg, msg_len, "field '%s' is %.17g, must be in [%g, %g]", name, f->valuedouble, lo, hi);
    *out = f->valuedouble;
    return 0;
}

static int get_positive(const cJSON *obj, const char *name, double *out, char *msg, size_t msg_len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!f) return text_fail(msg, msg_len, "field '%s' is missing", name);
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || !(f->valuedouble > 0))
        return text_fail(msg, msg_len, "field '%s' must be a positive number", name);
    *out = f->valuedouble;
    return 0;
}

int record_parse_header(const char *line, record_header_t *h, char *msg, size_t msg_len)
{
    memset(h, 0, sizeof *h);
    params_defaults(&h->params);
    cJSON *root = cJSON_Parse(line);
    int rc = -1;
    double v;
    if (!root || !cJSON_IsObject(root)) {
        text_fail(msg, msg_len, "the header is not a JSON object");
        goto done;
    }
    if (get_whole(root, "swarmcast_record", RECORD_FORMAT, RECORD_FORMAT, &v, msg, msg_len)) goto done;
    if (get_whole(root, "seed", 0, UINT32_MAX, &v, msg, msg_len)) goto done;
    h->seed = (uint32_t)v;
    if (get_whole(root, "max_agents", 1, 1e9, &v, msg, msg_len)) goto done;
    h->max_agents = (size_t)v;
    if (get_whole(root, "agents", 0, (double)h->max_agents, &v, msg, msg_len)) goto done;
    h->agents = (size_t)v;
    if (get_whole(root, "max_targets", 0, 1e6, &v, msg, msg_len)) goto done;
    h->max_targets = (size_t)v;
    if (get_positive(root, "tick_hz", &h->tick_hz, msg, msg_len)) goto done;
    const cJSON *world = cJSON_GetObjectItemCaseSensitive(root, "world");
    if (!cJSON_IsObject(world)) {
        text_fail(msg, msg_len, "field 'world' must be an object with width and height");
        goto done;
    }
    if (get_positive(world, "width", &v, msg, msg_len)) goto done;
    h->width = (float)v;
    if (get_positive(world, "height", &v, msg, msg_len)) goto done;
    h->height = (float)v;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (!cJSON_IsObject(params)) {
        text_fail(msg, msg_len, "field 'params' must be an object");
        goto done;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        int index;
        double value;
        char why[200];
        if (param_from_json(p->string, p, &index, &value, why, sizeof why)) {
            text_fail(msg, msg_len, "params: %s", why);
            goto done;
        }
        params_set(&h->params, (size_t)index, value, why, sizeof why);
    }
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

static bool is_leave(const cJSON *cmd)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(cmd, "type");
    return cJSON_IsString(type) && strcmp(type->valuestring, cmd_name(CMD_LEAVE)) == 0;
}

/* The server's own leave, which cmd_decode refuses as a client's, read as
 * the server made it: the client's id (and a request id, if one was given). */
static int read_leave(const cJSON *cmd, uint32_t client_id, sim_cmd_t *out, char *msg, size_t msg_len)
{
    memset(out, 0, sizeof *out);
    out->kind = CMD_LEAVE;
    out->client_id = client_id;
    out->request_id = -1;
    double v;
    if (cJSON_GetObjectItemCaseSensitive(cmd, "id")) {
        if (get_whole(cmd, "id", 0, UINT32_MAX, &v, msg, msg_len)) return -1;
        out->request_id = (int64_t)v;
    }
    return 0;
}

int record_parse_entry(const char *line, const record_header_t *h, record_entry_t *e, char *msg, size_t msg_len)
{
    memset(e, 0, sizeof *e);
    cJSON *root = cJSON_Parse(line);
    int rc = -1;
    double v;
    if (!root || !cJSON_IsObject(root)) {
        text_fail(msg, msg_len, "not a JSON object");
        goto done;
    }
    if (cJSON_GetObjectItemCaseSensitive(root, "end_tick")) {
        if (get_whole(root, "end_tick", 0, 9007199254740992.0, &v, msg, msg_len)) goto done;
        e->end = true;
        e->tick = (uint64_t)v;
        rc = 0;
        goto done;
    }
    if (get_whole(root, "tick", 0, 9007199254740992.0, &v, msg, msg_len)) goto done;
    e->tick = (uint64_t)v;
    cJSON *cmd = cJSON_GetObjectItemCaseSensitive(root, "cmd");
    if (!cJSON_IsObject(cmd)) {
        text_fail(msg, msg_len, "field 'cmd' must be an object");
        goto done;
    }
    if (get_whole(cmd, "client_id", 0, UINT32_MAX, &v, msg, msg_len)) goto done;
    uint32_t client_id = (uint32_t)v;
    const cJSON *visitor = cJSON_GetObjectItemCaseSensitive(cmd, "visitor");
    if (visitor && !cJSON_IsBool(visitor)) {
        text_fail(msg, msg_len, "field 'visitor' must be true or false");
        goto done;
    }
    if (is_leave(cmd)) {
        rc = read_leave(cmd, client_id, &e->cmd, msg, msg_len);
    } else {
        char *text = cJSON_PrintUnformatted(cmd);
        if (!text) {
            text_fail(msg, msg_len, "out of memory");
            goto done;
        }
        cmd_limits_t limits = {h->width, h->height, h->max_agents};
        cmd_error_t err;
        if (cmd_decode(text, strlen(text), &limits, client_id, &e->cmd, &err) == 0)
            rc = 0;
        else
            text_fail(msg, msg_len, "command %s: %s (%s)", err.cmd ? err.cmd : "(unknown)", err.message, err.code);
        free(text);
    }
    /* The role is the server's knowledge, not part of what the client sent. */
    if (rc == 0) e->cmd.visitor = cJSON_IsTrue(visitor);
done:
    cJSON_Delete(root);
    return rc;
}

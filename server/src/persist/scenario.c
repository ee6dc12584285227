#include "persist/scenario.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/param_json.h"
#include "persist/whole_file.h"
#include "protocol/utf8.h"

/* A whole number field in [lo, hi], when present. */
static int get_whole(const cJSON *obj, const char *field, const char *where, double lo, double hi, bool *present,
                     double *out, char *msg, size_t msg_len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, field);
    *present = f != NULL;
    if (!f) return 0;
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || f->valuedouble != floor(f->valuedouble))
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%sfield '%s' must be a whole number", where, field);
    if (f->valuedouble < lo || f->valuedouble > hi)
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%sfield '%s' is %.17g, must be in [%.17g, %.17g]", where, field, f->valuedouble, lo,
                       hi);
    *out = f->valuedouble;
    return 0;
}

static int get_real(const cJSON *obj, const char *field, const char *where, double lo, double hi, bool required,
                    double *out, char *msg, size_t msg_len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, field);
    if (!f) return required ? text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%sfield '%s' is required", where, field) : 0;
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble))
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%sfield '%s' must be a finite number", where, field);
    if (f->valuedouble < lo || f->valuedouble > hi)
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%sfield '%s' is %g, must be in [%g, %g]", where, field, f->valuedouble, lo, hi);
    *out = f->valuedouble;
    return 0;
}

/* "description" is for people (the page's list of scenarios); it changes nothing. */
static const char *const known_fields[] = {"seed",    "agents",  "world",      "model", "params",     "obstacles",
                                           "targets", "agent_list", "spawn", "steps", "description"};

int scenario_load(const char *path, scenario_t *s, char *msg, size_t msg_len)
{
    memset(s, 0, sizeof *s);
    size_t len = 0;
    char *text = whole_file_read(path, &len);
    if (!text) {
        snprintf(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
        return SCENARIO_E_IO;
    }
    int rc = scenario_load_text(text, len, s, msg, msg_len);
    free(text);
    return rc;
}

int scenario_load_text(const char *text, size_t len, scenario_t *s, char *msg, size_t msg_len)
{
    memset(s, 0, sizeof *s);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        /* Line of the error, for a person with an editor. */
        size_t at = end ? (size_t)(end - text) : 0, line = 1;
        for (size_t i = 0; i < at && i < len; i++) line += text[i] == '\n';
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "not valid JSON (near line %zu)", line);
    }
    bool trailing = false;
    for (const char *p = end; p < text + len; p++) trailing |= !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');
    s->json = root;
    if (!cJSON_IsObject(root) || trailing) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "the file must hold exactly one JSON object");

    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        bool known = false;
        for (size_t k = 0; k < sizeof known_fields / sizeof known_fields[0]; k++)
            known |= strcmp(item->string, known_fields[k]) == 0;
        if (!known)
            return text_fail_code(SCENARIO_E_INVALID, msg, msg_len,
                           "unknown field '%s' (known: seed, agents, world, model, params, obstacles, targets, description, "
                           "agent_list, spawn, steps)",
                           item->string);
    }

    double v;
    if (get_whole(root, "seed", "", 0, UINT32_MAX, &s->has_seed, &v, msg, msg_len)) return SCENARIO_E_INVALID;
    if (s->has_seed) s->seed = (uint32_t)v;
    if (get_whole(root, "agents", "", 0, 1e8, &s->has_agents, &v, msg, msg_len)) return SCENARIO_E_INVALID;
    if (s->has_agents) s->agents = (size_t)v;
    if (get_whole(root, "steps", "", 0, 1e12, &s->has_steps, &v, msg, msg_len)) return SCENARIO_E_INVALID;
    if (s->has_steps) s->steps = (uint64_t)v;

    const cJSON *world = cJSON_GetObjectItemCaseSensitive(root, "world");
    if (world) {
        if (!cJSON_IsObject(world)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'world' must be an object {\"width\", \"height\"}");
        double w = 0, h = 0;
        if (get_real(world, "width", "world: ", 10, 1e6, true, &w, msg, msg_len) ||
            get_real(world, "height", "world: ", 10, 1e6, true, &h, msg, msg_len))
            return SCENARIO_E_INVALID;
        s->has_world = true;
        s->width = (float)w;
        s->height = (float)h;
    }

    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "agent_list");
    if (list) {
        if (!cJSON_IsArray(list)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'agent_list' must be an array of {x, y, vx, vy}");
        s->has_agent_list = true;
        s->n_agent_list = (size_t)cJSON_GetArraySize(list);
        if (s->has_agents && s->agents != s->n_agent_list)
            return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'agents' is %zu but 'agent_list' has %zu entries", s->agents,
                           s->n_agent_list);
    }
    return SCENARIO_OK;
}

/* An array field's items as commands of one type. */
static int build_list(const cJSON *root, const char *field, const char *type, const cmd_limits_t *limits,
                      bool with_client, sim_cmd_t **out, size_t *n_out, char *msg, size_t msg_len)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, field);
    if (!list) return 0;
    if (!cJSON_IsArray(list)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'%s' must be an array of objects", field);
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (!n) return 0;
    if (!(*out = calloc(n, sizeof **out))) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "out of memory");
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (!cJSON_IsObject(item)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%s[%zu] must be an object", field, i);
        uint32_t client_id = (uint32_t)(i + 1);
        char where[64];
        snprintf(where, sizeof where, "%s[%zu]: ", field, i);
        cJSON *fields = cJSON_Duplicate(item, true);
        if (!fields) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "out of memory");
        if (with_client) {
            bool present;
            double v;
            if (get_whole(fields, "client_id", where, 0, UINT32_MAX, &present, &v, msg, msg_len)) {
                cJSON_Delete(fields);
                return SCENARIO_E_INVALID;
            }
            if (present) client_id = (uint32_t)v;
            cJSON_DeleteItemFromObjectCaseSensitive(fields, "client_id");
        }
        char why[200];
        int rc = cmd_from_json(type, fields, limits, client_id, &(*out)[i], why, sizeof why);
        cJSON_Delete(fields);
        if (rc) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "%s%s", where, why);
        i++;
        *n_out = i;
    }
    return 0;
}

static int build_params(scenario_t *s, const cJSON *root, char *msg, size_t msg_len)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (params && !cJSON_IsObject(params)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'params' must be an object {name: value}");
    size_t n = (model ? 1 : 0) + (params ? (size_t)cJSON_GetArraySize(params) : 0);
    if (!n) return 0;
    if (!(s->params = calloc(n, sizeof *s->params))) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "out of memory");
    char why[200];
    if (model) {
        sim_cmd_t *c = &s->params[s->n_params];
        *c = (sim_cmd_t){.kind = CMD_SET_PARAM, .request_id = -1};
        if (param_from_json("model", model, &c->param, &c->value, why, sizeof why))
            return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "model: %s", why);
        s->n_params++;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        sim_cmd_t *c = &s->params[s->n_params];
        *c = (sim_cmd_t){.kind = CMD_SET_PARAM, .request_id = -1};
        if (param_from_json(p->string, p, &c->param, &c->value, why, sizeof why))
            return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "params.%s: %s", p->string, why);
        s->n_params++;
    }
    return 0;
}

static int build_agents(scenario_t *s, const cJSON *root, const cmd_limits_t *limits, char *msg, size_t msg_len)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "agent_list");
    if (!list || !s->n_agent_list) return 0;
    if (!(s->agent_list = calloc(s->n_agent_list, sizeof *s->agent_list))) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "out of memory");
    size_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        if (!cJSON_IsObject(item)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "agent_list[%zu] must be an object", i);
        char where[64];
        snprintf(where, sizeof where, "agent_list[%zu]: ", i);
        double x = 0, y = 0, vx = 0, vy = 0;
        if (get_real(item, "x", where, 0, limits->width, true, &x, msg, msg_len) ||
            get_real(item, "y", where, 0, limits->height, true, &y, msg, msg_len) ||
            get_real(item, "vx", where, -1e6, 1e6, false, &vx, msg, msg_len) ||
            get_real(item, "vy", where, -1e6, 1e6, false, &vy, msg, msg_len))
            return SCENARIO_E_INVALID;
        s->agent_list[i++] = (scenario_agent_t){(float)x, (float)y, (float)vx, (float)vy};
    }
    return 0;
}

/* "spawn": a rectangle inside the world, and optionally the speeds the
 * agents start with. */
static int build_spawn(scenario_t *s, const cJSON *root, const cmd_limits_t *limits, char *msg, size_t msg_len)
{
    const cJSON *spawn = cJSON_GetObjectItemCaseSensitive(root, "spawn");
    if (!spawn) return 0;
    if (!cJSON_IsObject(spawn))
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len,
                              "'spawn' must be an object {\"x\", \"y\", \"width\", \"height\" [, \"speed_min\", \"speed_max\"]}");
    if (s->has_agent_list)
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'spawn' and 'agent_list' exclude each other (agent_list places every agent)");
    static const char *const fields[] = {"x", "y", "width", "height", "speed_min", "speed_max"};
    const cJSON *f;
    cJSON_ArrayForEach(f, spawn)
    {
        bool known = false;
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) known |= strcmp(f->string, fields[k]) == 0;
        if (!known)
            return text_fail_code(SCENARIO_E_INVALID, msg, msg_len,
                                  "spawn: unknown field '%s' (known: x, y, width, height, speed_min, speed_max)", f->string);
    }
    double x = 0, y = 0, w = 0, h = 0, lo = -1, hi = -1;
    if (get_real(spawn, "x", "spawn: ", 0, limits->width, true, &x, msg, msg_len) ||
        get_real(spawn, "y", "spawn: ", 0, limits->height, true, &y, msg, msg_len) ||
        get_real(spawn, "width", "spawn: ", 0, limits->width - x, true, &w, msg, msg_len) ||
        get_real(spawn, "height", "spawn: ", 0, limits->height - y, true, &h, msg, msg_len) ||
        get_real(spawn, "speed_min", "spawn: ", 0, 1e6, false, &lo, msg, msg_len) ||
        get_real(spawn, "speed_max", "spawn: ", 0, 1e6, false, &hi, msg, msg_len))
        return SCENARIO_E_INVALID;
    if ((lo < 0) != (hi < 0)) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "spawn: 'speed_min' and 'speed_max' go together");
    if (hi < lo) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "spawn: 'speed_max' is below 'speed_min'");
    s->has_spawn = true;
    s->spawn = (scenario_spawn_t){(float)x, (float)y, (float)w, (float)h, lo >= 0, lo >= 0 ? (float)lo : 0.0f,
                                  hi >= 0 ? (float)hi : 0.0f};
    return 0;
}

int scenario_build(scenario_t *s, const cmd_limits_t *limits, char *msg, size_t msg_len)
{
    const cJSON *root = s->json;
    if (!root) return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "no scenario loaded");
    if (build_params(s, root, msg, msg_len) ||
        build_list(root, "obstacles", "add_obstacle", limits, false, &s->obstacles, &s->n_obstacles, msg, msg_len) ||
        build_list(root, "targets", "set_target", limits, true, &s->targets, &s->n_targets, msg, msg_len) ||
        build_agents(s, root, limits, msg, msg_len) || build_spawn(s, root, limits, msg, msg_len))
        return SCENARIO_E_INVALID;
    if (s->n_obstacles > SIM_MAX_OBSTACLES)
        return text_fail_code(SCENARIO_E_INVALID, msg, msg_len, "'obstacles' has %zu entries; at most %d", s->n_obstacles, SIM_MAX_OBSTACLES);
    return SCENARIO_OK;
}

void scenario_free(scenario_t *s)
{
    cJSON_Delete(s->json);
    free(s->params);
    free(s->obstacles);
    free(s->targets);
    free(s->agent_list);
    memset(s, 0, sizeof *s);
}

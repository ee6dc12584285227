#include "protocol/room_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const room_msg_names[ROOM_MSG_KINDS] = {
    [ROOM_MSG_CREATE] = "create_room",
    [ROOM_MSG_RENAME] = "room_rename",
    [ROOM_MSG_CLOSE] = "room_close",
    [ROOM_MSG_LIST] = "rooms",
};

static int refuse(cmd_error_t *err, const char *code, const char *message)
{
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", message);
    return ROOM_INVALID;
}

/* A string field: NULL when absent; *bad when present and not a string. */
static const char *string_field(const cJSON *root, const char *name, bool *bad)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, name);
    *bad = f && !cJSON_IsString(f);
    return cJSON_IsString(f) ? f->valuestring : NULL;
}

static bool scenario_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > ROOM_SCENARIO_NAME_BYTES) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-')) return false;
    return true;
}

/* An experiment's folder name: one path component that cannot climb out. */
static bool experiment_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > ROOM_EXPERIMENT_NAME_BYTES || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-' || s[i] == '_' || s[i] == '.'))
            return false;
    return true;
}

static bool run_id_ok(const char *s)
{
    if (strlen(s) != ROOM_RUN_ID_BYTES) return false;
    for (size_t i = 0; i < ROOM_RUN_ID_BYTES; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

static int decode_fields(const cJSON *root, room_msg_t *out, cmd_error_t *err)
{
    bool bad;
    char why[160];
    const char *name = string_field(root, "name", &bad);
    if (bad) return refuse(err, "bad_type", "field 'name' must be a string");
    if (out->kind == ROOM_MSG_RENAME && !name) return refuse(err, "missing_field", "field 'name' is required");
    if (name && (out->kind == ROOM_MSG_CREATE || out->kind == ROOM_MSG_RENAME)) {
        if (presence_clean_name(name, out->name, why, sizeof why)) return refuse(err, "out_of_range", why);
        out->has_name = true;
    }
    if (out->kind == ROOM_MSG_CREATE) {
        const char *from = string_field(root, "from", &bad);
        if (bad) return refuse(err, "bad_type", "field 'from' must be a string");
        if (!from || !strcmp(from, "defaults"))
            out->from = ROOM_FROM_DEFAULTS;
        else if (!strcmp(from, "copy"))
            out->from = ROOM_FROM_COPY;
        else if (!strcmp(from, "scenario"))
            out->from = ROOM_FROM_NAMED_SCENARIO;
        else if (!strcmp(from, "run"))
            out->from = ROOM_FROM_RUN;
        else
            return refuse(err, "out_of_range", "field 'from' must be \"defaults\", \"copy\", \"scenario\" or \"run\"");
        const char *scenario = string_field(root, "scenario", &bad);
        if (bad) return refuse(err, "bad_type", "field 'scenario' must be a string");
        if (out->from == ROOM_FROM_NAMED_SCENARIO) {
            if (!scenario) return refuse(err, "missing_field", "field 'scenario' is required with \"from\":\"scenario\"");
            if (!scenario_name_ok(scenario))
                return refuse(err, "out_of_range", "field 'scenario' must be 1-48 of a-z, 0-9 and '-'");
            snprintf(out->scenario, sizeof out->scenario, "%s", scenario);
        }
        if (out->from == ROOM_FROM_RUN) {
            const char *experiment = string_field(root, "experiment", &bad);
            if (bad) return refuse(err, "bad_type", "field 'experiment' must be a string");
            const char *run = string_field(root, "run", &bad);
            if (bad) return refuse(err, "bad_type", "field 'run' must be a string");
            if (!experiment || !run)
                return refuse(err, "missing_field", "fields 'experiment' and 'run' are required with \"from\":\"run\"");
            if (!experiment_name_ok(experiment))
                return refuse(err, "out_of_range", "field 'experiment' must be a folder name: 1-64 of A-Z, a-z, 0-9, "
                                                   "'.', '_' and '-', not starting with '.'");
            if (!run_id_ok(run)) return refuse(err, "out_of_range", "field 'run' must be a run id: 16 of 0-9 and a-f");
            snprintf(out->experiment, sizeof out->experiment, "%s", experiment);
            snprintf(out->run, sizeof out->run, "%s", run);
        }
    }
    if (out->kind == ROOM_MSG_CLOSE) {
        const char *code = string_field(root, "code", &bad);
        if (bad) return refuse(err, "bad_type", "field 'code' must be a string");
        if (code) {
            if (strlen(code) > 32 || !room_code_normalize(code, out->code))
                return refuse(err, "out_of_range", "field 'code' is not a room code");
            out->has_code = true;
        }
    }
    return ROOM_DECODED;
}

int room_decode(const char *text, size_t len, room_msg_t *out, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    int kind = -1;
    for (int k = 0; cJSON_IsString(type) && k < ROOM_MSG_KINDS; k++)
        if (!strcmp(type->valuestring, room_msg_names[k])) kind = k;
    if (kind < 0) {
        cJSON_Delete(root);
        return ROOM_NOT_ROOM;
    }
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    out->kind = (room_msg_kind_t)kind;
    err->cmd = room_msg_names[kind];
    err->request_id = out->request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    int rc;
    if (id && cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
        id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX)
        err->request_id = out->request_id = (int64_t)id->valuedouble;
    if (id && out->request_id < 0)
        rc = refuse(err, "bad_type", "field 'id' must be a whole number in [0, 4294967295]");
    else
        rc = decode_fields(root, out, err);
    cJSON_Delete(root);
    return rc;
}

#include "persist/param_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_from_json(const char *type, const cJSON *obj, const cmd_limits_t *limits, uint32_t client_id, sim_cmd_t *out,
                  char *msg, size_t msg_len)
{
    cJSON *copy = obj ? cJSON_Duplicate(obj, true) : cJSON_CreateObject();
    if (!copy || !cJSON_IsObject(copy)) {
        cJSON_Delete(copy);
        snprintf(msg, msg_len, "%s", copy ? "must be an object" : "out of memory");
        return -1;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "type");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "id");
    cJSON_AddStringToObject(copy, "type", type);
    char *text = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    if (!text) {
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    cmd_error_t err;
    int rc = cmd_decode(text, strlen(text), limits, client_id, out, &err);
    free(text);
    if (rc) snprintf(msg, msg_len, "%s", err.message);
    return rc;
}

int param_from_json(const char *name, const cJSON *value, int *index, double *out, char *msg, size_t msg_len)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *v = value ? cJSON_Duplicate(value, true) : NULL;
    if (!obj || !v || !cJSON_AddStringToObject(obj, "name", name ? name : "")) {
        cJSON_Delete(obj);
        cJSON_Delete(v);
        snprintf(msg, msg_len, "out of memory");
        return -1;
    }
    cJSON_AddItemToObject(obj, "value", v);
    /* set_param needs no world limits. */
    cmd_limits_t limits = {1, 1, 1};
    sim_cmd_t cmd;
    int rc = cmd_from_json("set_param", obj, &limits, 0, &cmd, msg, msg_len);
    cJSON_Delete(obj);
    if (rc) return rc;
    *index = cmd.param;
    *out = cmd.value;
    return 0;
}

void param_json_put(jbuf_t *b, const param_desc_t *d, double value)
{
    switch (d->type) {
    case PARAM_BOOL:
        jb_raw(b, value != 0 ? "true" : "false");
        break;
    case PARAM_ENUM:
        if (value >= 0 && value <= d->max && value == floor(value))
            jb_string(b, d->enum_names[(int)value]);
        else
            b->failed = true;
        break;
    case PARAM_FLOAT:
    case PARAM_INT:
        jb_double(b, value);
        break;
    }
}

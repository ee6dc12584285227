#include "protocol/auth_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int auth_decode(const char *text, size_t len, char token[AUTH_MAX_TOKEN + 1], int64_t *request_id, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "auth") != 0) {
        cJSON_Delete(root);
        return AUTH_NOT_AUTH;
    }
    memset(err, 0, sizeof *err);
    err->cmd = "auth";
    err->request_id = *request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (id && cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
        id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX)
        err->request_id = *request_id = (int64_t)id->valuedouble;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "token");
    int rc = AUTH_INVALID;
    if (id && err->request_id < 0) {
        err->code = "bad_type";
        snprintf(err->message, sizeof err->message, "field 'id' must be a whole number in [0, 4294967295]");
    } else if (!t) {
        err->code = "missing_field";
        snprintf(err->message, sizeof err->message, "field 'token' is required");
    } else if (!cJSON_IsString(t)) {
        err->code = "bad_type";
        snprintf(err->message, sizeof err->message, "field 'token' must be a string");
    } else if (strlen(t->valuestring) > AUTH_MAX_TOKEN) {
        err->code = "out_of_range";
        snprintf(err->message, sizeof err->message, "field 'token' is longer than %d bytes", AUTH_MAX_TOKEN);
    } else {
        snprintf(token, AUTH_MAX_TOKEN + 1, "%s", t->valuestring);
        rc = AUTH_DECODED;
    }
    cJSON_Delete(root);
    return rc;
}

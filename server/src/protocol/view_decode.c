#include "protocol/view_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A finite number within ±VIEW_MAX_COORD (and > 0 when positive is set). */
static int number(const cJSON *root, const char *name, bool positive, double *out, cmd_error_t *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, name);
    if (!f) {
        snprintf(err->message, sizeof err->message, "field '%s' is required", name);
        return -1;
    }
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || fabs(f->valuedouble) > VIEW_MAX_COORD ||
        (positive && !(f->valuedouble > 0))) {
        snprintf(err->message, sizeof err->message, "field '%s' must be a %snumber of at most %g in magnitude", name,
                 positive ? "positive " : "", VIEW_MAX_COORD);
        return -1;
    }
    *out = f->valuedouble;
    return 0;
}

int view_decode(const char *text, size_t len, view_request_t *out, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "view") != 0) {
        cJSON_Delete(root);
        return VIEW_NOT_VIEW;
    }
    memset(err, 0, sizeof *err);
    err->cmd = "view";
    err->code = "bad_request";
    err->request_id = out->request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (id && cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble) &&
        id->valuedouble >= 0 && id->valuedouble <= UINT32_MAX)
        err->request_id = out->request_id = (int64_t)id->valuedouble;
    int rc = VIEW_INVALID;
    const cJSON *budget = cJSON_GetObjectItemCaseSensitive(root, "budget");
    out->budget = -1;
    if (id && err->request_id < 0) {
        snprintf(err->message, sizeof err->message, "field 'id' must be a whole number in [0, 4294967295]");
    } else if (number(root, "x", false, &out->x, err) || number(root, "y", false, &out->y, err) ||
               number(root, "w", true, &out->w, err) || number(root, "h", true, &out->h, err)) {
        /* err filled */
    } else if (budget && (!cJSON_IsNumber(budget) || !isfinite(budget->valuedouble) || budget->valuedouble < 0)) {
        snprintf(err->message, sizeof err->message, "field 'budget' must be a number of agents, 0 or more");
    } else {
        if (budget) out->budget = budget->valuedouble;
        rc = VIEW_DECODED;
    }
    cJSON_Delete(root);
    return rc;
}

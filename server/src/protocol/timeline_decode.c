#include "protocol/timeline_decode.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const timeline_op_names[] = {"seek", "play", "pause", "step", "live", "window", "share"};

/* A whole number in [lo, hi] (doubles hold every tick a run can reach exactly). */
static int whole(const cJSON *f, const char *name, double lo, double hi, double *out, cmd_error_t *err)
{
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || f->valuedouble != floor(f->valuedouble) ||
        f->valuedouble < lo || f->valuedouble > hi) {
        snprintf(err->message, sizeof err->message, "field '%s' must be a whole number in [%.0f, %.0f]", name, lo, hi);
        return -1;
    }
    *out = f->valuedouble;
    return 0;
}

static int decode_fields(const cJSON *root, timeline_request_t *out, cmd_error_t *err)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(root, "op");
    if (!cJSON_IsString(op)) {
        snprintf(err->message, sizeof err->message,
                 "field 'op' is required: one of seek, play, pause, step, live, window, share");
        return -1;
    }
    size_t n_ops = sizeof timeline_op_names / sizeof timeline_op_names[0], k = 0;
    while (k < n_ops && strcmp(op->valuestring, timeline_op_names[k]) != 0) k++;
    if (k == n_ops) {
        snprintf(err->message, sizeof err->message,
                 "unknown op: the timeline knows seek, play, pause, step, live, window and share");
        return -1;
    }
    out->op = (timeline_op_t)k;
    double v;
    const cJSON *tick = cJSON_GetObjectItemCaseSensitive(root, "tick");
    if (out->op == TIMELINE_SEEK) {
        if (!tick) {
            snprintf(err->message, sizeof err->message, "seek needs field 'tick'");
            return -1;
        }
        /* 2^53: the largest whole number a JSON number carries exactly. */
        if (whole(tick, "tick", 0, 9007199254740992.0, &v, err)) return -1;
        out->tick = (uint64_t)v;
    }
    const cJSON *speed = cJSON_GetObjectItemCaseSensitive(root, "speed");
    out->speed = 1.0;
    if (out->op == TIMELINE_PLAY && speed) {
        double s = cJSON_IsNumber(speed) ? speed->valuedouble : NAN;
        if (!isfinite(s) || fabs(s) < TIMELINE_MIN_SPEED || fabs(s) > TIMELINE_MAX_SPEED) {
            snprintf(err->message, sizeof err->message,
                     "field 'speed' must be a number from %g to %g, or from -%g to -%g to play backwards",
                     TIMELINE_MIN_SPEED, TIMELINE_MAX_SPEED, TIMELINE_MAX_SPEED, TIMELINE_MIN_SPEED);
            return -1;
        }
        out->speed = s;
    }
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "by");
    out->by = 1;
    if (out->op == TIMELINE_STEP && by) {
        if (whole(by, "by", -TIMELINE_MAX_STEP, TIMELINE_MAX_STEP, &v, err)) return -1;
        if (v == 0) {
            snprintf(err->message, sizeof err->message, "field 'by' must not be 0");
            return -1;
        }
        out->by = (int64_t)v;
    }
    return 0;
}

int timeline_decode(const char *text, size_t len, timeline_request_t *out, cmd_error_t *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "timeline") != 0) {
        cJSON_Delete(root);
        return TIMELINE_NOT_TIMELINE;
    }
    memset(err, 0, sizeof *err);
    memset(out, 0, sizeof *out);
    err->cmd = "timeline";
    err->code = "bad_request";
    err->request_id = out->request_id = -1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");
    double v;
    int rc = TIMELINE_INVALID;
    if (id && whole(id, "id", 0, UINT32_MAX, &v, err)) {
        /* err filled */
    } else {
        if (id) err->request_id = out->request_id = (int64_t)v;
        if (decode_fields(root, out, err) == 0) rc = TIMELINE_DECODED;
    }
    cJSON_Delete(root);
    return rc;
}

#include "bridge/lease_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_strict.h"
#include "rooms/room_code.h"

static cJSON *parse_strict(const char *text, size_t len)
{
    json_strict_error_t err;
    if (json_strict_check(text, len, &err) != JSON_STRICT_OK) return NULL;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (root && !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* An integer member in [lo, hi]. */
static int get_uint(const cJSON *o, const char *key, double lo, double hi, unsigned *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < lo || v->valuedouble > hi)
        return -1;
    *out = (unsigned)v->valuedouble;
    return 0;
}

static int parse_view(const cJSON *o, lease_view_t *out)
{
    if (!cJSON_IsObject(o)) return -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "m");
    if (!cJSON_IsString(m)) return -1;
    if (strcmp(m->valuestring, "d") == 0) out->mode = WIRE2_DETAIL;
    else if (strcmp(m->valuestring, "l") == 0) out->mode = WIRE2_LOD;
    else return -1;
    unsigned l, x0, y0, x1, y1;
    if (get_uint(o, "l", 0, WIRE2_MAX_LEVEL, &l) || get_uint(o, "x0", 0, 65535, &x0) ||
        get_uint(o, "y0", 0, 65535, &y0) || get_uint(o, "x1", 0, 65535, &x1) || get_uint(o, "y1", 0, 65535, &y1))
        return -1;
    out->rect = (wire2_rect_t){(uint8_t)l, (uint16_t)x0, (uint16_t)y0, (uint16_t)x1, (uint16_t)y1};
    return wire2_rect_valid(out->rect) ? 0 : -1;
}

static int parse_views(const cJSON *arr, lease_view_t *views, size_t *n)
{
    if (!cJSON_IsArray(arr)) return -1;
    *n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        if (*n == LEASE_MAX_VIEWS || parse_view(v, &views[*n]) < 0) return -1;
        (*n)++;
    }
    return 0;
}

/* The optional "room": absent is the default room (""); present, a code
 * in its canonical form. */
static int get_room(const cJSON *o, char out[ROOM_CODE_LEN + 1])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "room");
    out[0] = '\0';
    if (!v) return 0;
    char canonical[ROOM_CODE_LEN + 1];
    if (!cJSON_IsString(v) || !room_code_normalize(v->valuestring, canonical) || strcmp(canonical, v->valuestring) != 0)
        return -1;
    memcpy(out, canonical, sizeof canonical);
    return 0;
}

static void add_room(cJSON *o, const char *room)
{
    if (room && room[0]) cJSON_AddStringToObject(o, "room", room);
}

int lease_request_parse(const char *text, size_t len, lease_request_t *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = parse_strict(text, len);
    if (!root) return -1;
    int rc = -1;
    const cJSON *relay = cJSON_GetObjectItemCaseSensitive(root, "relay");
    unsigned tag, clients;
    if (cJSON_IsString(relay) && strlen(relay->valuestring) <= LEASE_NAME_MAX &&
        get_uint(root, "tag", 1, LEASE_TAG_MAX, &tag) == 0 && get_uint(root, "clients", 0, 4294967295.0, &clients) == 0 &&
        parse_views(cJSON_GetObjectItemCaseSensitive(root, "views"), out->views, &out->n_views) == 0 &&
        get_room(root, out->room) == 0) {
        snprintf(out->relay, sizeof out->relay, "%s", relay->valuestring);
        out->tag = tag;
        out->clients = clients;
        rc = 0;
    }
    cJSON_Delete(root);
    return rc;
}

static cJSON *view_json(const lease_view_t *v)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "m", v->mode == WIRE2_LOD ? "l" : "d");
    cJSON_AddNumberToObject(o, "l", v->rect.level);
    cJSON_AddNumberToObject(o, "x0", v->rect.x0);
    cJSON_AddNumberToObject(o, "y0", v->rect.y0);
    cJSON_AddNumberToObject(o, "x1", v->rect.x1);
    cJSON_AddNumberToObject(o, "y1", v->rect.y1);
    return o;
}

static cJSON *views_json(const lease_view_t *views, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) cJSON_AddItemToArray(arr, view_json(&views[i]));
    return arr;
}

char *lease_request_format(const lease_request_t *req)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "relay", req->relay);
    cJSON_AddNumberToObject(o, "tag", req->tag);
    add_room(o, req->room);
    cJSON_AddItemToObject(o, "views", views_json(req->views, req->n_views));
    cJSON_AddNumberToObject(o, "clients", req->clients);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

char *lease_reply_format(unsigned tag, const char *to, const char *room, const lease_view_t *granted, size_t n,
                         const char *hello, bool announce)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *h = hello ? cJSON_Parse(hello) : cJSON_CreateNull();
    if (!o || !h) {
        cJSON_Delete(o);
        cJSON_Delete(h);
        return NULL;
    }
    cJSON_AddBoolToObject(o, "ok", 1);
    cJSON_AddNumberToObject(o, "tag", tag);
    if (to) cJSON_AddStringToObject(o, "to", to);
    add_room(o, room);
    cJSON_AddItemToObject(o, "views", views_json(granted, n));
    cJSON_AddItemToObject(o, "hello", h);
    if (announce) cJSON_AddBoolToObject(o, "announce", 1);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

char *lease_reply_refusal(const char *error, const char *to, const char *room)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddBoolToObject(o, "ok", 0);
    cJSON_AddStringToObject(o, "error", error);
    if (to) cJSON_AddStringToObject(o, "to", to);
    add_room(o, room);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

int lease_reply_parse(const char *text, size_t len, lease_reply_t *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = parse_strict(text, len);
    if (!root) return -1;
    int rc = -1;
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(root, "ok");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(root, "to");
    if (to && (!cJSON_IsString(to) || strlen(to->valuestring) > LEASE_NAME_MAX)) {
        cJSON_Delete(root);
        return -1;
    }
    if (to) snprintf(out->to, sizeof out->to, "%s", to->valuestring);
    if (get_room(root, out->room) < 0) {
        cJSON_Delete(root);
        return -1;
    }
    if (cJSON_IsFalse(ok)) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
        if (cJSON_IsString(e)) {
            snprintf(out->error, sizeof out->error, "%s", e->valuestring);
            rc = 0;
        }
    } else if (cJSON_IsTrue(ok) && get_uint(root, "tag", 1, LEASE_TAG_MAX, &out->tag) == 0 &&
               parse_views(cJSON_GetObjectItemCaseSensitive(root, "views"), out->views, &out->n_views) == 0) {
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "hello");
        if (cJSON_IsObject(h) && (out->hello = cJSON_PrintUnformatted(h))) {
            out->ok = true;
            out->announce = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "announce"));
            rc = 0;
        }
    }
    cJSON_Delete(root);
    return rc;
}

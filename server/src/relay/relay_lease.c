#include "relay/relay_lease.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *mode_name(wire2_mode_t m) { return m == WIRE2_LOD ? "l" : "d"; }

static cJSON *view_json(wire2_mode_t mode, wire2_rect_t r)
{
    cJSON *v = cJSON_CreateObject();
    if (!v) return NULL;
    cJSON_AddStringToObject(v, "m", mode_name(mode));
    cJSON_AddNumberToObject(v, "l", r.level);
    cJSON_AddNumberToObject(v, "x0", r.x0);
    cJSON_AddNumberToObject(v, "y0", r.y0);
    cJSON_AddNumberToObject(v, "x1", r.x1);
    cJSON_AddNumberToObject(v, "y1", r.y1);
    return v;
}

char *relay_lease_request(const char *name, unsigned tag, uint32_t seq, const view_spec_t *views, size_t n,
                          size_t clients)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "relay", name);
    cJSON_AddNumberToObject(root, "tag", tag);
    cJSON_AddNumberToObject(root, "seq", seq);
    cJSON *list = cJSON_AddArrayToObject(root, "views");
    for (size_t i = 0; list && i < n; i++) cJSON_AddItemToArray(list, view_json(views[i].mode, views[i].rect));
    cJSON_AddNumberToObject(root, "clients", (double)clients);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* A whole number in [0, max] from obj[key]. */
static int whole(const cJSON *obj, const char *key, double max, uint32_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= max) || v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = (uint32_t)v->valuedouble;
    return 0;
}

static int grant_of(const cJSON *v, relay_grant_t *g)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "m");
    if (!cJSON_IsString(m) || (strcmp(m->valuestring, "d") && strcmp(m->valuestring, "l"))) return -1;
    g->mode = m->valuestring[0] == 'l' ? WIRE2_LOD : WIRE2_DETAIL;
    uint32_t l, x0, y0, x1, y1;
    if (whole(v, "l", WIRE2_MAX_LEVEL, &l) || whole(v, "x0", 65535, &x0) || whole(v, "y0", 65535, &y0) ||
        whole(v, "x1", 65535, &x1) || whole(v, "y1", 65535, &y1))
        return -1;
    g->rect = (wire2_rect_t){(uint8_t)l, (uint16_t)x0, (uint16_t)y0, (uint16_t)x1, (uint16_t)y1};
    return wire2_rect_valid(g->rect) ? 0 : -1;
}

int relay_lease_parse(const char *text, size_t len, relay_lease_answer_t *out)
{
    *out = (relay_lease_answer_t){0};
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) goto bad;
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(root, "ok");
    if (!cJSON_IsBool(ok)) goto bad;
    out->has_seq = whole(root, "seq", UINT32_MAX, &out->seq) == 0;
    if (cJSON_IsFalse(ok)) {
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
        out->tag_taken = cJSON_IsString(err) && strcmp(err->valuestring, "tag_taken") == 0;
        cJSON_Delete(root);
        return 0;
    }
    out->ok = true;
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "views");
    if (!cJSON_IsArray(views)) goto bad;
    size_t n = (size_t)cJSON_GetArraySize(views);
    if (n && !(out->grants = calloc(n, sizeof *out->grants))) goto bad;
    const cJSON *v;
    cJSON_ArrayForEach(v, views)
    {
        if (grant_of(v, &out->grants[out->n_grants])) goto bad;
        out->n_grants++;
    }
    const cJSON *hello = cJSON_GetObjectItemCaseSensitive(root, "hello");
    if (cJSON_IsObject(hello)) {
        if (!(out->hello = cJSON_PrintUnformatted(hello))) goto bad;
        const cJSON *world = cJSON_GetObjectItemCaseSensitive(hello, "world");
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(world, "width");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(world, "height");
        if (cJSON_IsNumber(w) && cJSON_IsNumber(h) && w->valuedouble > 0 && h->valuedouble > 0 &&
            w->valuedouble <= 1e6 && h->valuedouble <= 1e6) {
            out->world_width = w->valuedouble;
            out->world_height = h->valuedouble;
        }
        uint32_t max_agents;
        if (whole(cJSON_GetObjectItemCaseSensitive(hello, "limits"), "max_agents", 1e8, &max_agents) == 0)
            out->max_agents = max_agents;
    }
    cJSON_Delete(root);
    return 0;
bad:
    cJSON_Delete(root);
    relay_lease_answer_free(out);
    return -1;
}

void relay_lease_answer_free(relay_lease_answer_t *a)
{
    free(a->grants);
    free(a->hello);
    *a = (relay_lease_answer_t){0};
}

static void set(cJSON *root, const char *key, cJSON *value)
{
    if (!value) return;
    if (cJSON_HasObjectItem(root, key))
        cJSON_ReplaceItemInObjectCaseSensitive(root, key, value);
    else
        cJSON_AddItemToObject(root, key, value);
}

char *relay_hello_for(const char *sim_hello, uint32_t client_id, bool operator, bool control_token)
{
    cJSON *root = cJSON_Parse(sim_hello);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    set(root, "client_id", cJSON_CreateNumber(client_id));
    set(root, "role", cJSON_CreateString(operator ? "operator" : "visitor"));
    set(root, "control_token", cJSON_CreateBool(control_token));
    set(root, "protocol", cJSON_CreateNumber(2));
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

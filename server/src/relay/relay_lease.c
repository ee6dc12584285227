#include "relay/relay_lease.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>

/* A rect's edges in units of the finest level's tiles. */
static uint32_t at_finest(uint16_t v, uint8_t level) { return (uint32_t)v << (WIRE2_MAX_LEVEL - level); }

bool relay_grant_covers(lease_view_t asked, lease_view_t granted)
{
    if (asked.mode != granted.mode) return false;
    wire2_rect_t a = asked.rect, g = granted.rect;
    return at_finest(g.x0, g.level) <= at_finest(a.x0, a.level) && at_finest(g.y0, g.level) <= at_finest(a.y0, a.level) &&
           at_finest(g.x1, g.level) >= at_finest(a.x1, a.level) && at_finest(g.y1, g.level) >= at_finest(a.y1, a.level);
}

int relay_hello_world(const char *sim_hello, relay_world_t *out)
{
    *out = (relay_world_t){0};
    cJSON *root = cJSON_Parse(sim_hello);
    const cJSON *world = cJSON_GetObjectItemCaseSensitive(root, "world");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(world, "width");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(world, "height");
    int rc = -1;
    if (cJSON_IsNumber(w) && cJSON_IsNumber(h) && w->valuedouble > 0 && h->valuedouble > 0 && w->valuedouble <= 1e6 &&
        h->valuedouble <= 1e6) {
        out->width = w->valuedouble;
        out->height = h->valuedouble;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "limits"), "max_agents");
        if (cJSON_IsNumber(m) && m->valuedouble >= 1 && m->valuedouble <= 1e8 && m->valuedouble == floor(m->valuedouble))
            out->max_agents = (size_t)m->valuedouble;
        /* Absent or malformed counts as "has one": the safe side. */
        out->control_token = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "control_token"));
        rc = 0;
    }
    cJSON_Delete(root);
    return rc;
}

static void set(cJSON *root, const char *key, cJSON *value)
{
    if (!value) return;
    if (cJSON_HasObjectItem(root, key))
        cJSON_ReplaceItemInObjectCaseSensitive(root, key, value);
    else
        cJSON_AddItemToObject(root, key, value);
}

char *relay_hello_for(const char *sim_hello, uint32_t client_id, bool operator, bool control_token,
                      const char *public_url)
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
    cJSON_DeleteItemFromObjectCaseSensitive(root, "public_url");
    if (public_url) cJSON_AddStringToObject(root, "public_url", public_url);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

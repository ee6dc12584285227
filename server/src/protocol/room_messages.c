#include "protocol/room_messages.h"

#include <cJSON.h>
#include <stdio.h>

static char *print_and_free(cJSON *root)
{
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

static void add_id(cJSON *root, int64_t request_id)
{
    if (request_id >= 0)
        cJSON_AddNumberToObject(root, "id", (double)request_id);
    else
        cJSON_AddNullToObject(root, "id");
}

char *msg_room_created(int64_t request_id, const char *code, const char *name, const char *token)
{
    char path[64];
    snprintf(path, sizeof path, "/r/%s", code);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "room_created");
    add_id(root, request_id);
    cJSON_AddStringToObject(root, "code", code);
    cJSON_AddStringToObject(root, "name", name);
    cJSON_AddStringToObject(root, "token", token);
    cJSON_AddStringToObject(root, "path", path);
    return print_and_free(root);
}

char *msg_room_news(const char *code, const char *name)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "room");
    cJSON_AddStringToObject(root, "code", code);
    cJSON_AddStringToObject(root, "name", name);
    return print_and_free(root);
}

char *msg_room_ack(int64_t request_id, const char *cmd)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "ack");
    add_id(root, request_id);
    cJSON_AddStringToObject(root, "cmd", cmd);
    return print_and_free(root);
}

static cJSON *room_array(const room_info_t *rooms, size_t n)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "code", rooms[i].code);
        cJSON_AddStringToObject(o, "name", rooms[i].name);
        cJSON_AddNumberToObject(o, "people", (double)rooms[i].people);
        cJSON_AddNumberToObject(o, "agents", (double)rooms[i].agents);
        cJSON_AddNumberToObject(o, "tick", (double)rooms[i].tick);
        cJSON_AddNumberToObject(o, "ticks_per_s", rooms[i].ticks_per_s);
        cJSON_AddNumberToObject(o, "slowest_second", rooms[i].slowest_second);
        cJSON_AddBoolToObject(o, "paused", rooms[i].paused);
        cJSON_AddBoolToObject(o, "stepping", !rooms[i].resting);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

char *msg_rooms(int64_t request_id, const room_info_t *rooms, size_t n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "rooms");
    add_id(root, request_id);
    cJSON_AddItemToObject(root, "rooms", room_array(rooms, n));
    return print_and_free(root);
}

char *rooms_json_array(const room_info_t *rooms, size_t n) { return print_and_free(room_array(rooms, n)); }

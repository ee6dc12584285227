#include "protocol/messages.h"

#include "protocol/wire2.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#define SERVER_NAME "swarmcast " SWARMCAST_VERSION

static char *print_and_free(cJSON *root)
{
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* A parameter value in its wire form: number, boolean or enum name. */
static cJSON *param_value(const param_desc_t *d, double v)
{
    switch (d->type) {
    case PARAM_BOOL:
        return cJSON_CreateBool(v != 0);
    case PARAM_ENUM:
        return cJSON_CreateString(d->enum_names[(int)v]);
    default:
        return cJSON_CreateNumber(v);
    }
}

static cJSON *param_entry(const param_desc_t *d, double value)
{
    cJSON *e = cJSON_CreateObject();
    static const char *const type_names[] = {"float", "int", "bool", "enum"};
    cJSON_AddStringToObject(e, "name", d->name);
    cJSON_AddStringToObject(e, "type", type_names[d->type]);
    if (d->type == PARAM_ENUM) {
        cJSON *values = cJSON_AddArrayToObject(e, "values");
        for (int i = 0; i <= (int)d->max; i++) cJSON_AddItemToArray(values, cJSON_CreateString(d->enum_names[i]));
    }
    /* min/max of an enum are indices, which a client has no use for; the
     * protocol still gives every parameter both fields. */
    cJSON_AddNumberToObject(e, "min", d->min);
    cJSON_AddNumberToObject(e, "max", d->max);
    cJSON_AddItemToObject(e, "default", param_value(d, d->def));
    cJSON_AddItemToObject(e, "value", param_value(d, value));
    cJSON_AddStringToObject(e, "unit", d->unit);
    cJSON_AddStringToObject(e, "help", d->help);
    /* Whether set_param refuses it with a species (a client's per-species
     * editor sends it without). */
    cJSON_AddBoolToObject(e, "world_only", d->world_only);
    return e;
}

char *msg_hello(const hello_info_t *info, const world_info_t *w)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "hello");
    cJSON_AddNumberToObject(root, "protocol", info->protocol == 2 ? 2 : PROTOCOL_VERSION);
    if (info->protocol == 2) {
        /* The precision of v2 frames (PROTOCOL.md, "Quantization"). */
        cJSON *wire = cJSON_AddObjectToObject(root, "wire");
        cJSON_AddNumberToObject(wire, "position_quantum", 1.0 / WIRE2_QUANTA_PER_UNIT);
        cJSON_AddNumberToObject(wire, "heading_steps", WIRE2_HEADING_STEPS);
        cJSON_AddNumberToObject(wire, "lod_cells_per_tile", WIRE2_LOD_CELLS);
    }
    cJSON_AddStringToObject(root, "server", SERVER_NAME);
    cJSON_AddNumberToObject(root, "client_id", info->client_id);
    cJSON_AddStringToObject(root, "room", info->room ? info->room : "");
    cJSON_AddStringToObject(root, "room_name", info->room_name ? info->room_name : "");
    cJSON_AddStringToObject(root, "rooms", info->rooms ? info->rooms : "off");
    cJSON *world = cJSON_AddObjectToObject(root, "world");
    cJSON_AddNumberToObject(world, "width", w->width);
    cJSON_AddNumberToObject(world, "height", w->height);
    cJSON_AddNumberToObject(root, "tick_hz", info->tick_hz);
    cJSON_AddNumberToObject(root, "snapshot_hz", info->snapshot_hz);
    cJSON *limits = cJSON_AddObjectToObject(root, "limits");
    cJSON_AddNumberToObject(limits, "max_message_bytes", PROTOCOL_MAX_MESSAGE_BYTES);
    cJSON_AddNumberToObject(limits, "max_agents", (double)w->max_agents);
    cJSON_AddNumberToObject(limits, "max_obstacles", SIM_MAX_OBSTACLES);
    cJSON_AddNumberToObject(limits, "max_add_agents", SIM_MAX_ADD_AGENTS);
    cJSON_AddNumberToObject(limits, "visitor_obstacles", SIM_VISITOR_OBSTACLES);
    cJSON_AddStringToObject(root, "role", info->operator ? "operator" : "visitor");
    cJSON_AddBoolToObject(root, "control_token", info->control_token);
    if (info->public_url) cJSON_AddStringToObject(root, "public_url", info->public_url);
    cJSON *params = cJSON_AddArrayToObject(root, "params");
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        cJSON *entry = param_entry(d, params_get(&w->params, i));
        /* With several species, each one's value (they may differ). */
        if (w->params.species > 1) {
            cJSON *values = cJSON_AddArrayToObject(entry, "species_values");
            for (int s = 0; s < w->params.species; s++)
                cJSON_AddItemToArray(values, param_value(d, params_get(&w->species_params[s], i)));
        }
        cJSON_AddItemToArray(params, entry);
    }
    return print_and_free(root);
}

static void add_request(cJSON *root, int64_t request_id, const char *cmd)
{
    if (request_id >= 0)
        cJSON_AddNumberToObject(root, "id", (double)request_id);
    else
        cJSON_AddNullToObject(root, "id");
    if (cmd)
        cJSON_AddStringToObject(root, "cmd", cmd);
    else
        cJSON_AddNullToObject(root, "cmd");
}

char *msg_ack(const sim_cmd_t *cmd, const sim_result_t *res, uint64_t tick)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "ack");
    add_request(root, cmd->request_id, cmd_name(cmd->kind));
    cJSON_AddNumberToObject(root, "tick", (double)tick);
    switch (cmd->kind) {
    case CMD_ADD_OBSTACLE:
        cJSON_AddNumberToObject(root, "obstacle_id", res->obstacle_id);
        break;
    case CMD_MOVE_OBSTACLE:
        cJSON_AddNumberToObject(root, "obstacle_id", res->obstacle_id);
        break;
    case CMD_SET_MODEL:
        cJSON_AddStringToObject(root, "model", params_desc((size_t)params_find("model"))->enum_names[res->model]);
        break;
    case CMD_ADD_AGENTS:
        cJSON_AddNumberToObject(root, "first_agent_id", res->first_agent_id);
        cJSON_AddNumberToObject(root, "count", res->count);
        break;
    case CMD_RESET:
        cJSON_AddNumberToObject(root, "seed", res->seed);
        cJSON_AddNumberToObject(root, "count", res->count);
        break;
    case CMD_SET_PARAM: {
        const param_desc_t *d = params_desc((size_t)cmd->param);
        cJSON_AddStringToObject(root, "name", d->name);
        cJSON_AddItemToObject(root, "value", param_value(d, res->value));
        if (cmd->has_species) cJSON_AddNumberToObject(root, "species", cmd->species);
        break;
    }
    default:
        break;
    }
    return print_and_free(root);
}

char *msg_error(const char *code, const char *message, int64_t request_id, const char *cmd)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "error");
    add_request(root, request_id, cmd);
    cJSON_AddStringToObject(root, "code", code);
    cJSON_AddStringToObject(root, "message", message);
    return print_and_free(root);
}

char *msg_param(size_t index, double value, int species, uint32_t by, uint64_t tick, const double *species_values,
                int n_species)
{
    const param_desc_t *d = params_desc(index);
    if (!d) return NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "param");
    cJSON_AddStringToObject(root, "name", d->name);
    cJSON_AddItemToObject(root, "value", param_value(d, value));
    if (species >= 0) cJSON_AddNumberToObject(root, "species", species);
    if (species_values && n_species > 1) {
        cJSON *values = cJSON_AddArrayToObject(root, "species_values");
        for (int k = 0; k < n_species; k++) cJSON_AddItemToArray(values, param_value(d, species_values[k]));
    }
    cJSON_AddNumberToObject(root, "by", by);
    cJSON_AddNumberToObject(root, "tick", (double)tick);
    return print_and_free(root);
}

char *msg_auth_ack(int64_t request_id, bool operator, uint64_t tick)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "type", "ack");
    add_request(root, request_id, "auth");
    cJSON_AddNumberToObject(root, "tick", (double)tick);
    cJSON_AddStringToObject(root, "role", operator ? "operator" : "visitor");
    return print_and_free(root);
}

const char *msg_error_code(int sim_status)
{
    switch (sim_status) {
    case SIM_E_OUT_OF_RANGE: return "out_of_range";
    case SIM_E_UNKNOWN_PARAM: return "unknown_param";
    case SIM_E_BAD_TYPE: return "bad_type";
    case SIM_E_NOT_FOUND: return "not_found";
    case SIM_E_LIMIT: return "limit_reached";
    case SIM_E_FORBIDDEN: return "forbidden";
    case SIM_E_NOT_PAUSED: return "not_paused";
    default: return "internal";
    }
}

void msg_pong(int64_t request_id, char *out, size_t cap)
{
    if (request_id >= 0)
        snprintf(out, cap, "{\"type\":\"pong\",\"id\":%lld}", (long long)request_id);
    else
        snprintf(out, cap, "{\"type\":\"pong\"}");
}

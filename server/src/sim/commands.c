#include "sim/commands.h"

#include <stdio.h>
#include <string.h>

static const char *const names[CMD_COUNT] = {
    [CMD_SET_TARGET] = "set_target",
    [CMD_CLEAR_TARGET] = "clear_target",
    [CMD_ADD_OBSTACLE] = "add_obstacle",
    [CMD_REMOVE_OBSTACLE] = "remove_obstacle",
    [CMD_SET_PARAM] = "set_param",
    [CMD_ADD_AGENTS] = "add_agents",
    [CMD_RESET] = "reset",
    [CMD_PAUSE] = "pause",
    [CMD_RESUME] = "resume",
    [CMD_SET_MODEL] = "set_model",
    [CMD_MOVE_OBSTACLE] = "move_obstacle",
    [CMD_STEP] = "step",
    [CMD_LEAVE] = "leave",
};

const char *cmd_name(cmd_kind_t kind)
{
    return (unsigned)kind < CMD_COUNT ? names[kind] : "unknown";
}

bool cmd_is_internal(cmd_kind_t kind)
{
    return kind == CMD_LEAVE;
}

bool cmd_visitor_may(cmd_kind_t kind)
{
    switch (kind) {
    case CMD_SET_TARGET:
    case CMD_CLEAR_TARGET:
    case CMD_ADD_OBSTACLE:
    case CMD_MOVE_OBSTACLE:
    case CMD_REMOVE_OBSTACLE:
    case CMD_LEAVE:
        return true;
    default:
        return false;
    }
}

static void fail(sim_result_t *res, int status, const char *message)
{
    res->status = status;
    snprintf(res->message, sizeof res->message, "%s", message);
}

/* Whether the sender may move or remove the obstacle cmd names; when not,
 * res says why (it does not exist, or it is someone else's). */
static bool may_touch_obstacle(const world_t *w, const sim_cmd_t *cmd, sim_result_t *res)
{
    const obstacle_t *o = world_find_obstacle(w, cmd->obstacle_id);
    if (!o) {
        res->status = SIM_E_NOT_FOUND;
        snprintf(res->message, sizeof res->message, "no obstacle with id %u", (unsigned)cmd->obstacle_id);
        return false;
    }
    /* Owner 0 is nobody, not a client 0 (should ids ever wrap round). */
    if (cmd->visitor && (o->owner == 0 || o->owner != cmd->client_id)) {
        res->status = SIM_E_FORBIDDEN;
        snprintf(res->message, sizeof res->message,
                 "obstacle %u is not yours: a visitor may %s only the obstacles it added", (unsigned)o->id,
                 cmd->kind == CMD_MOVE_OBSTACLE ? "move" : "remove");
        return false;
    }
    return true;
}

static void add_obstacle(world_t *w, const sim_cmd_t *cmd, sim_result_t *res)
{
    if (cmd->visitor && world_count_owned_obstacles(w, cmd->client_id) >= SIM_VISITOR_OBSTACLES) {
        res->status = SIM_E_LIMIT;
        snprintf(res->message, sizeof res->message,
                 "a visitor may have at most %d obstacles at once; remove one of yours first", SIM_VISITOR_OBSTACLES);
        return;
    }
    uint32_t owner = cmd->visitor ? cmd->client_id : 0;
    if (world_add_owned_obstacle(w, cmd->x, cmd->y, cmd->radius, cmd->vx, cmd->vy, owner, &res->obstacle_id) !=
        SIM_OK) {
        res->status = SIM_E_LIMIT;
        snprintf(res->message, sizeof res->message, "there are already %d obstacles", SIM_MAX_OBSTACLES);
    }
}

void sim_apply(world_t *w, const sim_cmd_t *cmd, sim_result_t *res)
{
    memset(res, 0, sizeof *res);
    res->param = -1;
    res->species = -1;
    if (cmd->visitor && !cmd_visitor_may(cmd->kind)) {
        res->status = SIM_E_FORBIDDEN;
        snprintf(res->message, sizeof res->message, "a visitor may not send %s: that needs the operator role",
                 cmd_name(cmd->kind));
        return;
    }
    switch (cmd->kind) {
    case CMD_SET_TARGET:
        if (world_set_target(w, cmd->client_id, cmd->x, cmd->y) != SIM_OK)
            fail(res, SIM_E_LIMIT, "the target table is full");
        break;
    case CMD_CLEAR_TARGET:
        world_clear_target(w, cmd->client_id);
        break;
    case CMD_ADD_OBSTACLE:
        add_obstacle(w, cmd, res);
        break;
    case CMD_REMOVE_OBSTACLE:
        if (may_touch_obstacle(w, cmd, res)) world_remove_obstacle(w, cmd->obstacle_id);
        break;
    case CMD_SET_PARAM:
        res->param = cmd->param;
        res->species = cmd->has_species ? cmd->species : -1;
        if (cmd->has_species) {
            res->status =
                world_set_species_param(w, cmd->species, (size_t)cmd->param, cmd->value, res->message, sizeof res->message);
            res->value = params_get(&w->species_params[cmd->species], (size_t)cmd->param);
        } else {
            res->status = world_set_param(w, (size_t)cmd->param, cmd->value, res->message, sizeof res->message);
            res->value = params_get(&w->params, (size_t)cmd->param);
        }
        break;
    case CMD_ADD_AGENTS:
        res->first_agent_id = (uint32_t)w->n;
        if (world_add_agents(w, cmd->count, cmd->has_point, cmd->x, cmd->y) != SIM_OK) {
            res->status = SIM_E_LIMIT;
            snprintf(res->message, sizeof res->message, "adding %u agents to %zu would pass the limit of %zu",
                     (unsigned)cmd->count, w->n, w->max_agents);
        } else {
            res->count = cmd->count;
        }
        break;
    case CMD_RESET: {
        uint32_t seed = cmd->has_seed ? cmd->seed : w->seed;
        size_t n = cmd->has_agents ? cmd->agents : w->n;
        if (world_reset(w, seed, n) != SIM_OK)
            fail(res, SIM_E_LIMIT, "not enough memory for that many agents");
        res->seed = w->seed;
        res->count = (uint32_t)w->n;
        break;
    }
    case CMD_MOVE_OBSTACLE:
        res->obstacle_id = cmd->obstacle_id;
        if (may_touch_obstacle(w, cmd, res)) world_move_obstacle(w, cmd->obstacle_id, cmd->x, cmd->y);
        break;
    case CMD_LEAVE:
        /* A visitor's obstacles are its own doing: they go with it, so that
         * people who come and go do not fill the table for good. */
        world_clear_target(w, cmd->client_id);
        res->count = (uint32_t)world_remove_owned_obstacles(w, cmd->client_id);
        break;
    case CMD_SET_MODEL:
        /* The model is a parameter like any other; this is its own command
         * because switching models is what people do most. */
        res->status = world_set_param(w, (size_t)params_find("model"), cmd->model, res->message, sizeof res->message);
        res->model = w->params.model;
        res->param = params_find("model");
        res->value = w->params.model;
        break;
    case CMD_PAUSE:
        w->paused = true;
        break;
    case CMD_RESUME:
        w->paused = false;
        break;
    case CMD_STEP:
        /* One tick, as the clock would run it: a running world steps by
         * itself, so a step there would be a second one in a tick. */
        if (!w->paused)
            fail(res, SIM_E_NOT_PAUSED, "step advances a paused world by one tick; pause first");
        else
            world_step(w);
        break;
    default:
        fail(res, SIM_E_BAD_TYPE, "unknown command");
        break;
    }
}

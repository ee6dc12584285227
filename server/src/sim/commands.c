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
};

const char *cmd_name(cmd_kind_t kind)
{
    return (unsigned)kind < CMD_COUNT ? names[kind] : "unknown";
}

static void fail(sim_result_t *res, int status, const char *message)
{
    res->status = status;
    snprintf(res->message, sizeof res->message, "%s", message);
}

void sim_apply(world_t *w, const sim_cmd_t *cmd, sim_result_t *res)
{
    memset(res, 0, sizeof *res);
    res->param = -1;
    res->species = -1;
    switch (cmd->kind) {
    case CMD_SET_TARGET:
        if (world_set_target(w, cmd->client_id, cmd->x, cmd->y) != SIM_OK)
            fail(res, SIM_E_LIMIT, "the target table is full");
        break;
    case CMD_CLEAR_TARGET:
        world_clear_target(w, cmd->client_id);
        break;
    case CMD_ADD_OBSTACLE:
        if (world_add_moving_obstacle(w, cmd->x, cmd->y, cmd->radius, cmd->vx, cmd->vy, &res->obstacle_id) != SIM_OK) {
            res->status = SIM_E_LIMIT;
            snprintf(res->message, sizeof res->message, "there are already %d obstacles", SIM_MAX_OBSTACLES);
        }
        break;
    case CMD_REMOVE_OBSTACLE:
        if (world_remove_obstacle(w, cmd->obstacle_id) != SIM_OK) {
            res->status = SIM_E_NOT_FOUND;
            snprintf(res->message, sizeof res->message, "no obstacle with id %u", (unsigned)cmd->obstacle_id);
        }
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
        if (world_move_obstacle(w, cmd->obstacle_id, cmd->x, cmd->y) != SIM_OK) {
            res->status = SIM_E_NOT_FOUND;
            snprintf(res->message, sizeof res->message, "no obstacle with id %u", (unsigned)cmd->obstacle_id);
        }
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
    default:
        fail(res, SIM_E_BAD_TYPE, "unknown command");
        break;
    }
}

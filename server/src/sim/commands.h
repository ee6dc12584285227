/* commands: the only way the world changes besides stepping. A command is a
 * plain validated struct (decoded from JSON elsewhere); the server queues
 * commands and applies them at the start of a tick, so a seed plus the log of
 * (tick, command) reproduces a run exactly. */
#ifndef SWARMCAST_COMMANDS_H
#define SWARMCAST_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/world.h"

typedef enum {
    CMD_SET_TARGET,
    CMD_CLEAR_TARGET,
    CMD_ADD_OBSTACLE,
    CMD_REMOVE_OBSTACLE,
    CMD_SET_PARAM,
    CMD_ADD_AGENTS,
    CMD_RESET,
    CMD_PAUSE,
    CMD_RESUME,
    CMD_SET_MODEL,
    CMD_MOVE_OBSTACLE,
    CMD_STEP,  /* operator, while paused: exactly one tick */
    CMD_LEAVE, /* internal: a client left (its target and its obstacles go); never from the network */
    CMD_COUNT
} cmd_kind_t;

/* Obstacles one visitor may own at once. */
#define SIM_VISITOR_OBSTACLES 3

typedef struct sim_cmd {
    cmd_kind_t kind;
    uint32_t client_id;  /* who sent it: owner of the target, and of a visitor's obstacles */
    bool visitor;        /* the sender's role when it sent it: a visitor, not an operator */
    int64_t request_id;  /* echoed in the reply; -1 when the client gave none */
    float x, y, radius;  /* set_target, add_obstacle, move_obstacle, add_agents (when has_point) */
    float vx, vy;        /* add_obstacle: velocity of a moving obstacle */
    bool has_point;
    uint32_t obstacle_id;
    int param;           /* index into the parameter registry */
    bool has_species;    /* set_param: only one species' value … */
    int species;         /* … this one's; otherwise every species' */
    int model;           /* set_model: a model_t */
    double value;        /* numeric form (enum: index, bool: 0/1) */
    uint32_t count;      /* add_agents */
    bool has_seed, has_agents;
    uint32_t seed, agents; /* reset */
} sim_cmd_t;

typedef struct sim_result {
    int status;          /* SIM_OK or a SIM_E_* code */
    char message[160];   /* why, when status is not SIM_OK */
    uint32_t obstacle_id;
    uint32_t first_agent_id, count; /* add_agents, reset; leave: the obstacles removed */
    uint32_t seed;
    int param;           /* the parameter the command changed (set_param, set_model), or −1 */
    double value;        /* … its value as stored */
    int species;         /* set_param: the species set, or −1 for every species */
    int model;           /* set_model: the model now in use */
} sim_result_t;

/* The wire name of a command kind ("set_target", …). */
const char *cmd_name(cmd_kind_t kind);

/* Whether the server issues this kind itself (leave): the network must not
 * accept it from a client, the command log records it. */
bool cmd_is_internal(cmd_kind_t kind);

/* Whether a visitor may send this kind at all: set_target, clear_target
 * and the obstacle commands (within the rules sim_apply enforces), and the
 * internal leave. Operators may send every kind. */
bool cmd_visitor_may(cmd_kind_t kind);

/* Applies one command; on failure the world is unchanged and res says why.
 *
 * Roles (cmd->visitor): a visitor's kind must be one cmd_visitor_may
 * allows, else SIM_E_FORBIDDEN. A visitor's add_obstacle is owned by its
 * client_id and refused with SIM_E_LIMIT when it already owns
 * SIM_VISITOR_OBSTACLES; its move_obstacle and remove_obstacle of an
 * obstacle it does not own are refused with SIM_E_FORBIDDEN. An operator's
 * obstacles are nobody's (owner 0), and operators move or remove any.
 * leave clears the client's target and removes the obstacles it owns,
 * whatever its role now. */
void sim_apply(world_t *w, const sim_cmd_t *cmd, sim_result_t *res);

#endif

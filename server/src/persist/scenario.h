/* scenario: a JSON file that sets up a headless run (see "Scenario files" in
 * protocol/PROTOCOL.md):
 *
 *   {"seed": 7, "agents": 500, "world": {"width": 1600, "height": 900},
 *    "model": "…", "params": {"border": "bounce", "fov": 270},
 *    "obstacles": [{"x": 800, "y": 450, "radius": 60}],
 *    "targets": [{"x": 1400, "y": 450, "client_id": 1}],
 *    "agent_list": [{"x": 10, "y": 20, "vx": 50, "vy": 0}],
 *    "steps": 600}
 *
 * Every field is optional; "spawn" (a rectangle the drawn agents start
 * in: {"x", "y", "width", "height" [, "speed_min", "speed_max"]}) instead
 * of agent_list. Loading is in two stages because the world's size
 * (which bounds obstacles, targets and agents) may come from the command
 * line: scenario_load reads the file and the plain fields, scenario_build
 * turns the rest into validated commands — the same sim_cmd_t values, made by
 * the same decoder, as the network's. */
#ifndef SWARMCAST_SCENARIO_H
#define SWARMCAST_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"
#include "sim/commands.h"

typedef struct scenario_agent {
    float x, y, vx, vy;
} scenario_agent_t;

/* Where the agents drawn from the seed start instead of the whole world:
 * a rectangle, and optionally a range of speeds (a published set-up's
 * initial spread, which the world's own size cannot give without changing
 * the world). */
typedef struct scenario_spawn {
    float x, y, width, height;
    bool has_speed;
    float speed_min, speed_max;
} scenario_spawn_t;

typedef struct scenario {
    bool has_seed, has_agents, has_world, has_steps, has_agent_list, has_spawn;
    uint32_t seed;
    size_t agents;
    float width, height;
    uint64_t steps;

    /* Filled by scenario_build. */
    sim_cmd_t *params;    /* set_param: "model" first, then "params" in file order */
    size_t n_params;
    sim_cmd_t *obstacles; /* add_obstacle */
    size_t n_obstacles;
    sim_cmd_t *targets;   /* set_target */
    size_t n_targets;
    scenario_agent_t *agent_list;
    size_t n_agent_list;
    scenario_spawn_t spawn; /* when has_spawn */

    void *json; /* the parsed file, until scenario_free */
} scenario_t;

enum { SCENARIO_OK = 0, SCENARIO_E_IO = -1, SCENARIO_E_INVALID = -2 };

/* Reads and parses the file; fills the plain fields (seed, agents, world,
 * steps). SCENARIO_E_IO when the file cannot be read, SCENARIO_E_INVALID for
 * bad content; msg names the field. */
int scenario_load(const char *path, scenario_t *s, char *msg, size_t msg_len);
/* The same from text[0, len) (no NUL needed): SCENARIO_OK or
 * SCENARIO_E_INVALID. */
int scenario_load_text(const char *text, size_t len, scenario_t *s, char *msg, size_t msg_len);
/* Validates model, params, obstacles, targets, agent_list and spawn against the
 * world's limits and turns them into commands. 0 or SCENARIO_E_INVALID. */
int scenario_build(scenario_t *s, const cmd_limits_t *limits, char *msg, size_t msg_len);
void scenario_free(scenario_t *s);

#endif

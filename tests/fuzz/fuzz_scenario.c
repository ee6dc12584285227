/* Fuzz target: the scenario reader (server/src/persist/scenario.c), on any
 * bytes as a file's content, then the building of its commands for a
 * 1600 x 900 world. Besides memory safety, undefined behaviour and leaks it
 * checks that what is accepted lies within the ranges of PROTOCOL.md
 * ("Scenario files"), and that a refusal says why. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "persist/scenario.h"
#include "sim/params.h"
#include "sim/world.h"

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 100000};

static bool in_world(float x, float y)
{
    return isfinite(x) && isfinite(y) && x >= 0 && x <= LIMITS.width && y >= 0 && y <= LIMITS.height;
}

static void check_plain_fields(const scenario_t *s)
{
    REQUIRE(!s->has_world || (s->width >= 10 && s->width <= 1e6 && s->height >= 10 && s->height <= 1e6),
            "world %g x %g", s->width, s->height);
    REQUIRE(!s->has_agents || s->agents <= 100000000u, "agents %zu", s->agents);
    REQUIRE(!s->has_steps || s->steps <= 1000000000000u, "steps %llu", (unsigned long long)s->steps);
    REQUIRE(!(s->has_agents && s->has_agent_list) || s->agents == s->n_agent_list, "agents %zu, agent_list %zu",
            s->agents, s->n_agent_list);
}

static void check_built(const scenario_t *s)
{
    REQUIRE(s->n_obstacles <= SIM_MAX_OBSTACLES, "%zu obstacles", s->n_obstacles);
    for (size_t i = 0; i < s->n_params; i++) {
        const sim_cmd_t *c = &s->params[i];
        REQUIRE(c->kind == CMD_SET_PARAM && c->param >= 0 && (size_t)c->param < params_count(), "params[%zu]", i);
        sim_params_t scratch;
        params_defaults(&scratch);
        char why[200];
        REQUIRE(params_set(&scratch, (size_t)c->param, c->value, why, sizeof why) == SIM_OK, "params[%zu]: %s", i, why);
    }
    for (size_t i = 0; i < s->n_obstacles; i++) {
        const sim_cmd_t *c = &s->obstacles[i];
        REQUIRE(c->kind == CMD_ADD_OBSTACLE && in_world(c->x, c->y) && c->radius >= SIM_OBSTACLE_MIN_RADIUS &&
                    c->radius <= SIM_OBSTACLE_MAX_RADIUS && fabsf(c->vx) <= SIM_OBSTACLE_MAX_SPEED &&
                    fabsf(c->vy) <= SIM_OBSTACLE_MAX_SPEED,
                "obstacles[%zu]", i);
    }
    for (size_t i = 0; i < s->n_targets; i++)
        REQUIRE(s->targets[i].kind == CMD_SET_TARGET && in_world(s->targets[i].x, s->targets[i].y), "targets[%zu]", i);
    for (size_t i = 0; i < s->n_agent_list; i++) {
        const scenario_agent_t *a = &s->agent_list[i];
        /* scenario.c bounds velocities to ±1e6 (PROTOCOL.md: finite) */
        REQUIRE(in_world(a->x, a->y) && fabsf(a->vx) <= 1e6f && fabsf(a->vy) <= 1e6f, "agent_list[%zu]", i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    scenario_t s;
    char msg[512];
    msg[0] = '\0';
    int rc = scenario_load_text((const char *)data, size, &s, msg, sizeof msg);
    if (rc == SCENARIO_OK) {
        check_plain_fields(&s);
        msg[0] = '\0';
        rc = scenario_build(&s, &LIMITS, msg, sizeof msg);
        if (rc == SCENARIO_OK) check_built(&s);
    }
    REQUIRE(rc == SCENARIO_OK || rc == SCENARIO_E_INVALID, "rc %d", rc);
    if (rc != SCENARIO_OK) REQUIRE(msg[0] != '\0' && memchr(msg, '\0', sizeof msg), "a refusal without a reason");
    scenario_free(&s);
    return 0;
}

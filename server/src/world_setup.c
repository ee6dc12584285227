#include "world_setup.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>

#include "persist/scenario.h"
#include "protocol/utf8.h"
#include "sim/commands.h"

/* Applies one set-up command; on refusal says which part of the input it came from. */
static int apply_setup(world_t *w, const sim_cmd_t *cmd, const char *what, size_t index, char *msg, size_t msg_len)
{
    sim_result_t res;
    sim_apply(w, cmd, &res);
    if (res.status == SIM_OK) return SETUP_OK;
    if (index != (size_t)-1) return text_fail_code(SETUP_E_INPUT, msg, msg_len, "%s[%zu]: %s", what, index, res.message);
    return text_fail_code(SETUP_E_INPUT, msg, msg_len, "%s: %s", what, res.message);
}

/* The world's size, population and length: command-line flags win over the
 * file, the file over defaults and the environment. */
static int sizes(const config_t *cfg, const scenario_t *sc, size_t *agents, float *width, float *height,
                 uint64_t *steps, char *msg, size_t msg_len)
{
    *agents = cfg->agents;
    if (!cfg->agents_given && sc->has_agent_list) *agents = sc->n_agent_list;
    else if (!cfg->agents_given && sc->has_agents) *agents = sc->agents;
    *width = cfg->world_given || !sc->has_world ? cfg->world_width : sc->width;
    *height = cfg->world_given || !sc->has_world ? cfg->world_height : sc->height;
    if (steps) *steps = cfg->steps_given || !sc->has_steps ? cfg->steps : sc->steps;
    if (steps && !cfg->steps_given && !sc->has_steps)
        return text_fail_code(SETUP_E_INPUT, msg, msg_len, "--headless needs --steps N (the scenario %s has no \"steps\")",
                          cfg->scenario ? cfg->scenario : "-");
    if (sc->has_agent_list && *agents != sc->n_agent_list)
        return text_fail_code(SETUP_E_INPUT, msg, msg_len,
                          "--agents %zu does not match the scenario's agent_list of %zu agents", *agents, sc->n_agent_list);
    if (*agents > cfg->max_agents)
        return text_fail_code(SETUP_E_INPUT, msg, msg_len, "%zu agents is above --max-agents %zu", *agents, cfg->max_agents);
    return SETUP_OK;
}

/* The agents as drawn from the seed (uniform over the world, speeds
 * max_speed·U(0.5, 1), uniform headings), moved into the scenario's spawn
 * rectangle: each position scaled from the world into it, so they are
 * uniform over it and the draws, hence the seed, decide them as before;
 * with a speed range, each speed mapped from [max_speed/2, max_speed] onto
 * it, heading kept. */
static void spawn_into(world_t *w, const scenario_spawn_t *sp)
{
    const float sx = sp->width / w->width, sy = sp->height / w->height, top = w->params.max_speed;
    for (size_t i = 0; i < w->n; i++) {
        w->cur.x[i] = sp->x + w->cur.x[i] * sx;
        w->cur.y[i] = sp->y + w->cur.y[i] * sy;
        if (!sp->has_speed) continue;
        const float speed = sqrtf(w->cur.vx[i] * w->cur.vx[i] + w->cur.vy[i] * w->cur.vy[i]);
        if (!(speed > 0.0f)) continue;
        const float u = fminf(fmaxf(2.0f * speed / top - 1.0f, 0.0f), 1.0f);
        const float scale = (sp->speed_min + u * (sp->speed_max - sp->speed_min)) / speed;
        w->cur.vx[i] *= scale;
        w->cur.vy[i] *= scale;
    }
}

static int populate(const config_t *cfg, const scenario_t *sc, world_t *w, size_t agents, char *msg, size_t msg_len)
{
    int rc = SETUP_OK;
    /* Parameters first (the scenario's, then --set/--model), so that the
     * initial speeds are drawn with the final max_speed. */
    for (size_t i = 0; i < sc->n_params && !rc; i++)
        rc = apply_setup(w, &sc->params[i], "scenario params", (size_t)-1, msg, msg_len);
    for (size_t i = 0; i < cfg->n_sets && !rc; i++) {
        sim_cmd_t set = {.kind = CMD_SET_PARAM, .request_id = -1, .param = cfg->sets[i].param,
                         .value = cfg->sets[i].value};
        rc = apply_setup(w, &set, "--set", (size_t)-1, msg, msg_len);
    }
    if (rc) return rc;
    uint32_t seed = cfg->seed_given || !sc->has_seed ? cfg->seed : sc->seed;
    sim_cmd_t reset = {.kind = CMD_RESET, .request_id = -1, .has_seed = true, .seed = seed, .has_agents = true,
                       .agents = (uint32_t)agents};
    if ((rc = apply_setup(w, &reset, "agents", (size_t)-1, msg, msg_len))) return rc;
    /* Right after a reset the arrays are in id order: entry i is agent i. */
    for (size_t i = 0; i < sc->n_agent_list; i++) {
        w->cur.x[i] = sc->agent_list[i].x;
        w->cur.y[i] = sc->agent_list[i].y;
        w->cur.vx[i] = sc->agent_list[i].vx;
        w->cur.vy[i] = sc->agent_list[i].vy;
    }
    if (sc->has_spawn) spawn_into(w, &sc->spawn);
    /* State derived from the agents when they were drawn (the delayed-feedback
     * history) must follow agents placed by hand. */
    if ((sc->n_agent_list || sc->has_spawn) && world_agents_placed(w) != SIM_OK)
        return text_fail_code(SETUP_E_IO, msg, msg_len, "out of memory placing the scenario's agents");
    for (size_t i = 0; i < sc->n_obstacles && !rc; i++) rc = apply_setup(w, &sc->obstacles[i], "obstacles", i, msg, msg_len);
    for (size_t i = 0; i < sc->n_targets && !rc; i++) rc = apply_setup(w, &sc->targets[i], "targets", i, msg, msg_len);
    return rc;
}

int world_setup(const config_t *cfg, world_t *world, uint64_t *steps, char *msg, size_t msg_len)
{
    scenario_t sc = {0};
    char why[300];
    int rc = SETUP_OK;
    if (cfg->scenario) {
        int st = scenario_load(cfg->scenario, &sc, why, sizeof why);
        if (st != SCENARIO_OK) {
            scenario_free(&sc);
            return text_fail_code(SETUP_E_INPUT, msg, msg_len, "scenario %s: %s", cfg->scenario, why);
        }
    }
    size_t agents;
    float width, height;
    if ((rc = sizes(cfg, &sc, &agents, &width, &height, steps, msg, msg_len))) goto done;
    cmd_limits_t limits = {width, height, cfg->max_agents};
    if (cfg->scenario && scenario_build(&sc, &limits, why, sizeof why) != SCENARIO_OK) {
        rc = text_fail_code(SETUP_E_INPUT, msg, msg_len, "scenario %s: %s", cfg->scenario, why);
        goto done;
    }
    uint32_t seed = cfg->seed_given || !sc.has_seed ? cfg->seed : sc.seed;
    /* A target per viewer; a live server's relays' viewers have them too. */
    size_t viewers = cfg->max_clients + (cfg->nats_url ? cfg->max_remote_clients : 0);
    world_config_t wc = {
        .width = width,
        .height = height,
        .dt = (float)(1.0 / cfg->tick_hz),
        .seed = seed,
        .agents = 0, /* drawn below, once the parameters are in place */
        .max_agents = cfg->max_agents,
        .max_targets = viewers > sc.n_targets ? viewers : sc.n_targets,
        .threads = cfg->threads,
    };
    if (world_init(world, &wc)) {
        rc = text_fail_code(SETUP_E_IO, msg, msg_len, "cannot create a %gx%g world", (double)width, (double)height);
        goto done;
    }
    if ((rc = populate(cfg, &sc, world, agents, msg, msg_len))) world_free(world);
done:
    scenario_free(&sc);
    return rc;
}

int world_setup_resolve(const config_t *cfg, config_t *resolved, char *msg, size_t msg_len)
{
    *resolved = *cfg;
    if (!cfg->scenario) return SETUP_OK;
    /* The whole set-up once, on one thread: everything the file says is
     * checked before anything is served, by the code that will build it. */
    config_t trial = *cfg;
    trial.threads = 1;
    world_t w;
    int rc = world_setup(&trial, &w, NULL, msg, msg_len);
    if (rc) return rc;
    uint32_t largest_target_id = w.n_targets ? w.targets[w.n_targets - 1].client_id : 0; /* sorted by id */
    resolved->world_width = w.width;
    resolved->world_height = w.height;
    resolved->agents = w.n;
    resolved->seed = w.seed;
    resolved->world_given = resolved->agents_given = resolved->seed_given = true;
    world_free(&w);
    if (largest_target_id > SETUP_MAX_LIVE_TARGET_ID)
        return text_fail_code(SETUP_E_INPUT, msg, msg_len,
                              "scenario %s: a target's client_id %lu is above %lu: a live server gives its viewers "
                              "the ids above the scenario's targets'",
                              cfg->scenario, (unsigned long)largest_target_id, (unsigned long)SETUP_MAX_LIVE_TARGET_ID);
    return SETUP_OK;
}

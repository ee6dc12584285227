#include <stdio.h>
#include <string.h>

#include "sim/commands.h"
#include "sim_fixtures.h"

static sim_result_t apply(world_t *w, sim_cmd_t cmd)
{
    sim_result_t res;
    sim_apply(w, &cmd, &res);
    return res;
}

static void set_target_should_add_then_move_the_clients_target(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 5, .x = 10, .y = 20}).status, SIM_OK);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 2, .x = 30, .y = 40}).status, SIM_OK);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 5, .x = 50, .y = 60}).status, SIM_OK);
    assert_int_equal(w.n_targets, 2);
    /* kept in client order, one per client */
    assert_int_equal(w.targets[0].client_id, 2);
    assert_int_equal(w.targets[1].client_id, 5);
    assert_float_equal(w.targets[1].x, 50, 0);
    assert_float_equal(w.targets[1].y, 60, 0);
    apply(&w, (sim_cmd_t){.kind = CMD_CLEAR_TARGET, .client_id = 2});
    assert_int_equal(w.n_targets, 1);
    assert_int_equal(w.targets[0].client_id, 5);
    world_free(&w);
}

static void the_target_table_should_refuse_more_clients_than_it_holds(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1); /* max_targets 8 */
    for (uint32_t c = 1; c <= 8; c++)
        assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = c}).status, SIM_OK);
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 9});
    assert_int_equal(r.status, SIM_E_LIMIT);
    assert_int_equal(w.n_targets, 8);
    world_free(&w);
}

static void obstacles_should_get_fresh_ids_and_be_removable(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    sim_result_t a = apply(&w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .x = 10, .y = 10, .radius = 5});
    sim_result_t b = apply(&w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .x = 20, .y = 20, .radius = 5});
    assert_int_equal(a.status, SIM_OK);
    assert_int_not_equal(a.obstacle_id, b.obstacle_id);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_REMOVE_OBSTACLE, .obstacle_id = a.obstacle_id}).status, SIM_OK);
    assert_int_equal(w.n_obstacles, 1);
    assert_int_equal(w.obstacles[0].id, b.obstacle_id);
    sim_result_t again = apply(&w, (sim_cmd_t){.kind = CMD_REMOVE_OBSTACLE, .obstacle_id = a.obstacle_id});
    assert_int_equal(again.status, SIM_E_NOT_FOUND);
    assert_non_null(strstr(again.message, "no obstacle"));
    /* ids are not reused after a removal */
    sim_result_t c = apply(&w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .x = 30, .y = 30, .radius = 5});
    assert_true(c.obstacle_id > b.obstacle_id);
    world_free(&w);
}

static void the_obstacle_table_should_refuse_the_sixty_fifth(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    for (int k = 0; k < SIM_MAX_OBSTACLES; k++)
        assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .x = 50, .y = 50, .radius = 1}).status, SIM_OK);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .x = 50, .y = 50, .radius = 1}).status, SIM_E_LIMIT);
    assert_int_equal(w.n_obstacles, SIM_MAX_OBSTACLES);
    world_free(&w);
}

static void set_param_should_store_and_report_the_value(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    int i = params_find("w_coh");
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_SET_PARAM, .param = i, .value = 2.5});
    assert_int_equal(r.status, SIM_OK);
    assert_float_equal(r.value, 2.5, 0);
    assert_float_equal(w.params.w_coh, 2.5f, 0);
    sim_params_t before = w.params;
    r = apply(&w, (sim_cmd_t){.kind = CMD_SET_PARAM, .param = i, .value = 99});
    assert_int_equal(r.status, SIM_E_OUT_OF_RANGE);
    assert_memory_equal(&w.params, &before, sizeof before);
    world_free(&w);
}

/* A valid value of parameter i other than the one stored in p. */
static double another_value(const sim_params_t *p, size_t i)
{
    const param_desc_t *d = params_desc(i);
    return params_get(p, i) == d->max ? d->min : d->max;
}

/* A world with four species whose values differ (species 2's w_coh), so
 * that a change to any species' copy would show. */
static void make_world_of_species(world_t *w)
{
    char msg[160];
    make_world(w, 400, 400, 40, 3);
    assert_int_equal(world_set_param(w, (size_t)params_find("species"), 4, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_set_species_param(w, 2, (size_t)params_find("w_coh"), 3, msg, sizeof msg), SIM_OK);
}

static void set_param_with_species_should_refuse_a_world_only_parameter_and_change_nothing(void **state)
{
    (void)state;
    /* The ones the step reads only from the world's values (params.c). */
    const char *const world_only[] = {"species", "steer_every", "max_candidates", "border", "predators", "delay_ticks"};
    for (size_t k = 0; k < sizeof world_only / sizeof *world_only; k++)
        assert_true(params_world_only((size_t)params_find(world_only[k])));
    assert_false(params_world_only((size_t)params_find("w_sep")));
    assert_false(params_world_only((size_t)params_find("max_speed")));

    world_t w;
    make_world_of_species(&w);
    size_t refused = 0;
    for (size_t i = 0; i < params_count(); i++) {
        if (!params_world_only(i)) continue;
        for (int s = 0; s < SIM_MAX_SPECIES; s++) {
            const sim_params_t before = w.params;
            sim_params_t before_species[SIM_MAX_SPECIES];
            memcpy(before_species, w.species_params, sizeof before_species);
            sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_SET_PARAM, .param = (int)i,
                                                   .value = another_value(&w.params, i), .has_species = true,
                                                   .species = s});
            if (r.status != SIM_E_OUT_OF_RANGE)
                fail_msg("%s for species %d: status %d, not refused", params_desc(i)->name, s, r.status);
            assert_non_null(strstr(r.message, params_desc(i)->name));
            assert_non_null(strstr(r.message, "without species"));
            assert_memory_equal(&w.params, &before, sizeof before);
            assert_memory_equal(w.species_params, before_species, sizeof before_species);
            refused++;
        }
        /* Without a species it is the world's to set. */
        const double v = another_value(&w.params, i);
        sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_SET_PARAM, .param = (int)i, .value = v});
        if (r.status != SIM_OK) fail_msg("%s = %g for the world: %s", params_desc(i)->name, v, r.message);
        for (int s = 0; s < SIM_MAX_SPECIES; s++) assert_true(params_get(&w.species_params[s], i) == v);
    }
    assert_true(refused >= 6 * SIM_MAX_SPECIES);
    world_free(&w);
}

static void set_param_with_species_should_still_set_that_species_own_value(void **state)
{
    (void)state;
    world_t w;
    make_world_of_species(&w);
    for (size_t i = 0; i < params_count(); i++) {
        if (params_world_only(i)) continue;
        const sim_params_t before = w.params;
        sim_params_t before_species[SIM_MAX_SPECIES];
        memcpy(before_species, w.species_params, sizeof before_species);
        const double v = another_value(&w.species_params[1], i);
        sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_SET_PARAM, .param = (int)i, .value = v,
                                               .has_species = true, .species = 1});
        if (r.status != SIM_OK) fail_msg("%s = %g for species 1: %s", params_desc(i)->name, v, r.message);
        assert_true(params_get(&w.species_params[1], i) == v);
        assert_true(r.value == v);
        /* The world and the other species keep theirs. */
        assert_memory_equal(&w.params, &before, sizeof before);
        assert_memory_equal(&w.species_params[0], &before_species[0], sizeof before_species[0]);
        assert_memory_equal(&w.species_params[2], &before_species[2], sizeof before_species[2]);
        assert_memory_equal(&w.species_params[3], &before_species[3], sizeof before_species[3]);
        /* Back, so that the next parameter starts from a world that runs. */
        char msg[160];
        assert_int_equal(world_set_species_param(&w, 1, i, params_get(&before_species[1], i), msg, sizeof msg), SIM_OK);
    }
    world_free(&w);
}

static void add_agents_should_report_the_new_ids(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 20, 1);
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_ADD_AGENTS, .count = 5});
    assert_int_equal(r.status, SIM_OK);
    assert_int_equal(r.first_agent_id, 20);
    assert_int_equal(r.count, 5);
    assert_int_equal(w.n, 25);
    world_free(&w);
}

static void reset_should_keep_seed_and_count_unless_given(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 20, 3);
    for (int t = 0; t < 10; t++) world_step(&w);
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_RESET});
    assert_int_equal(r.seed, 3);
    assert_int_equal(w.n, 20);
    assert_int_equal(w.tick, 0);
    r = apply(&w, (sim_cmd_t){.kind = CMD_RESET, .has_seed = true, .seed = 8, .has_agents = true, .agents = 7});
    assert_int_equal(r.seed, 8);
    assert_int_equal(r.count, 7);
    assert_int_equal(w.n, 7);
    world_free(&w);
}

static void pause_should_stop_the_clock_until_resume(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 5, 3);
    apply(&w, (sim_cmd_t){.kind = CMD_PAUSE});
    assert_true(w.paused);
    apply(&w, (sim_cmd_t){.kind = CMD_RESUME});
    assert_false(w.paused);
    world_free(&w);
}

static void step_should_advance_a_paused_world_by_exactly_one_tick(void **state)
{
    (void)state;
    world_t w, twin;
    make_world(&w, 300, 300, 50, 3);
    make_world(&twin, 300, 300, 50, 3);
    apply(&w, (sim_cmd_t){.kind = CMD_PAUSE});
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_STEP});
    assert_int_equal(r.status, SIM_OK);
    assert_int_equal(w.tick, 1);
    assert_true(w.paused); /* still paused */
    world_step(&twin); /* the same tick the clock would have run */
    assert_memory_equal(w.cur.x, twin.cur.x, w.n * sizeof(float));
    assert_memory_equal(w.cur.vy, twin.cur.vy, w.n * sizeof(float));
    world_free(&w);
    world_free(&twin);
}

static void step_should_be_refused_while_the_world_runs_and_for_visitors(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 300, 5, 3);
    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_STEP});
    assert_int_equal(r.status, SIM_E_NOT_PAUSED);
    assert_int_equal(w.tick, 0);
    apply(&w, (sim_cmd_t){.kind = CMD_PAUSE});
    r = apply(&w, (sim_cmd_t){.kind = CMD_STEP, .visitor = true});
    assert_int_equal(r.status, SIM_E_FORBIDDEN);
    assert_int_equal(w.tick, 0);
    world_free(&w);
}

static void every_command_kind_should_have_a_wire_name(void **state)
{
    (void)state;
    for (int k = 0; k < CMD_COUNT; k++) {
        assert_non_null(cmd_name((cmd_kind_t)k));
        assert_string_not_equal(cmd_name((cmd_kind_t)k), "unknown");
    }
    assert_string_equal(cmd_name(CMD_SET_TARGET), "set_target");
    assert_string_equal(cmd_name(CMD_COUNT), "unknown");
}

/* ---- roles: visitors and operators ------------------------------------- */

#define VISITOR true
#define OPERATOR false

static sim_result_t add_as(world_t *w, uint32_t client, bool visitor, float x)
{
    return apply(w, (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .client_id = client, .visitor = visitor, .x = x, .y = 50,
                                .radius = 5});
}

static sim_result_t move_as(world_t *w, uint32_t client, bool visitor, uint32_t obstacle, float x)
{
    return apply(w, (sim_cmd_t){.kind = CMD_MOVE_OBSTACLE, .client_id = client, .visitor = visitor,
                                .obstacle_id = obstacle, .x = x, .y = 70});
}

static sim_result_t remove_as(world_t *w, uint32_t client, bool visitor, uint32_t obstacle)
{
    return apply(w, (sim_cmd_t){.kind = CMD_REMOVE_OBSTACLE, .client_id = client, .visitor = visitor,
                                .obstacle_id = obstacle});
}

static const obstacle_t *obstacle(const world_t *w, uint32_t id)
{
    const obstacle_t *o = world_find_obstacle(w, id);
    if (!o) fail_msg("obstacle %u is gone", (unsigned)id);
    return o;
}

static void a_visitors_obstacle_should_be_its_own_and_an_operators_nobodys(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    sim_result_t v = add_as(&w, 5, VISITOR, 10);
    sim_result_t o = add_as(&w, 7, OPERATOR, 20);
    assert_int_equal(v.status, SIM_OK);
    assert_int_equal(o.status, SIM_OK);
    assert_int_equal(obstacle(&w, v.obstacle_id)->owner, 5);
    assert_int_equal(obstacle(&w, o.obstacle_id)->owner, 0);
    world_free(&w);
}

static void a_visitor_should_be_refused_an_obstacle_past_its_quota(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    sim_result_t first = {0};
    for (int k = 0; k < SIM_VISITOR_OBSTACLES; k++) {
        sim_result_t r = add_as(&w, 5, VISITOR, 10);
        assert_int_equal(r.status, SIM_OK);
        if (k == 0) first = r;
    }
    uint32_t next_id = w.next_obstacle_id;
    sim_result_t over = add_as(&w, 5, VISITOR, 10);
    assert_int_equal(over.status, SIM_E_LIMIT);
    char limit[16];
    snprintf(limit, sizeof limit, "%d", SIM_VISITOR_OBSTACLES);
    if (!strstr(over.message, limit) || !strstr(over.message, "visitor"))
        fail_msg("the refusal names the visitors' limit: %s", over.message);
    assert_int_equal(w.n_obstacles, SIM_VISITOR_OBSTACLES);
    assert_int_equal(w.next_obstacle_id, next_id); /* no id spent on a refusal */
    /* The quota is each visitor's own, and the operator has none. */
    assert_int_equal(add_as(&w, 6, VISITOR, 10).status, SIM_OK);
    for (int k = 0; k < SIM_VISITOR_OBSTACLES + 2; k++) assert_int_equal(add_as(&w, 7, OPERATOR, 10).status, SIM_OK);
    /* Removing one of its own makes room again. */
    assert_int_equal(remove_as(&w, 5, VISITOR, first.obstacle_id).status, SIM_OK);
    assert_int_equal(add_as(&w, 5, VISITOR, 10).status, SIM_OK);
    assert_int_equal(add_as(&w, 5, VISITOR, 10).status, SIM_E_LIMIT);
    world_free(&w);
}

static void a_visitor_should_be_forbidden_to_move_or_remove_someone_elses_obstacle(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    uint32_t operators = add_as(&w, 7, OPERATOR, 10).obstacle_id;
    uint32_t others = add_as(&w, 6, VISITOR, 20).obstacle_id;
    const uint32_t foreign[] = {operators, others};
    for (size_t k = 0; k < 2; k++) {
        sim_result_t moved = move_as(&w, 5, VISITOR, foreign[k], 90);
        assert_int_equal(moved.status, SIM_E_FORBIDDEN);
        assert_non_null(strstr(moved.message, "not yours"));
        sim_result_t removed = remove_as(&w, 5, VISITOR, foreign[k]);
        assert_int_equal(removed.status, SIM_E_FORBIDDEN);
        assert_non_null(strstr(removed.message, "not yours"));
    }
    assert_int_equal(w.n_obstacles, 2);
    assert_float_equal(obstacle(&w, operators)->x, 10, 0);
    assert_float_equal(obstacle(&w, others)->x, 20, 0);
    assert_float_equal(obstacle(&w, others)->y, 50, 0);
    /* Nobody's obstacles are not a client 0's either. */
    assert_int_equal(move_as(&w, 0, VISITOR, operators, 90).status, SIM_E_FORBIDDEN);
    assert_int_equal(remove_as(&w, 0, VISITOR, operators).status, SIM_E_FORBIDDEN);
    /* An obstacle that does not exist is not found, whoever asks. */
    assert_int_equal(move_as(&w, 5, VISITOR, 999, 90).status, SIM_E_NOT_FOUND);
    assert_int_equal(remove_as(&w, 5, VISITOR, 999).status, SIM_E_NOT_FOUND);
    world_free(&w);
}

static void a_visitor_should_move_and_remove_its_own_obstacles(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    uint32_t mine = add_as(&w, 5, VISITOR, 10).obstacle_id;
    uint32_t other = add_as(&w, 5, VISITOR, 20).obstacle_id;
    sim_result_t moved = move_as(&w, 5, VISITOR, mine, 90);
    assert_int_equal(moved.status, SIM_OK);
    assert_int_equal(moved.obstacle_id, mine);
    assert_float_equal(obstacle(&w, mine)->x, 90, 0);
    assert_float_equal(obstacle(&w, mine)->y, 70, 0);
    assert_int_equal(obstacle(&w, mine)->owner, 5); /* still its own after the move */
    assert_int_equal(remove_as(&w, 5, VISITOR, other).status, SIM_OK);
    assert_null(world_find_obstacle(&w, other));
    assert_int_equal(w.n_obstacles, 1);
    world_free(&w);
}

static void an_operator_should_move_and_remove_a_visitors_obstacle(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    uint32_t a = add_as(&w, 5, VISITOR, 10).obstacle_id;
    uint32_t b = add_as(&w, 5, VISITOR, 20).obstacle_id;
    assert_int_equal(move_as(&w, 7, OPERATOR, a, 90).status, SIM_OK);
    assert_float_equal(obstacle(&w, a)->x, 90, 0);
    assert_int_equal(obstacle(&w, a)->owner, 5); /* moving it does not take it over */
    assert_int_equal(remove_as(&w, 7, OPERATOR, b).status, SIM_OK);
    assert_null(world_find_obstacle(&w, b));
    /* The visitor's quota counts what it still owns. */
    assert_int_equal(world_count_owned_obstacles(&w, 5), 1);
    world_free(&w);
}

static void a_visitor_should_be_forbidden_every_command_but_target_and_obstacle_ones(void **state)
{
    (void)state;
    int sep = params_find("sep_radius");
    assert_true(sep >= 0);
    for (int k = 0; k < CMD_COUNT; k++) {
        world_t w;
        make_world(&w, 100, 100, 10, 1);
        for (int t = 0; t < 3; t++) world_step(&w);
        sim_params_t params = w.params;
        sim_cmd_t cmd = {.kind = (cmd_kind_t)k, .client_id = 5, .visitor = true, .x = 40, .y = 40, .radius = 5,
                         .param = sep, .value = 30, .model = MODEL_UNICYCLE, .count = 5, .has_seed = true,
                         .seed = 9};
        sim_result_t r = apply(&w, cmd);
        if (cmd_visitor_may(cmd.kind)) {
            assert_int_not_equal(r.status, SIM_E_FORBIDDEN);
        } else {
            if (r.status != SIM_E_FORBIDDEN) fail_msg("a visitor's %s was not forbidden", cmd_name(cmd.kind));
            assert_non_null(strstr(r.message, cmd_name(cmd.kind)));
            /* and nothing changed */
            assert_memory_equal(&w.params, &params, sizeof params);
            assert_int_equal(w.n, 10);
            assert_int_equal(w.tick, 3);
            assert_false(w.paused);
        }
        /* The same command from an operator is never forbidden. */
        cmd.visitor = false;
        assert_int_not_equal(apply(&w, cmd).status, SIM_E_FORBIDDEN);
        world_free(&w);
    }
    static const cmd_kind_t allowed[] = {CMD_SET_TARGET, CMD_CLEAR_TARGET, CMD_ADD_OBSTACLE, CMD_MOVE_OBSTACLE,
                                         CMD_REMOVE_OBSTACLE, CMD_LEAVE};
    int n_allowed = 0;
    for (int k = 0; k < CMD_COUNT; k++) n_allowed += cmd_visitor_may((cmd_kind_t)k);
    assert_int_equal(n_allowed, sizeof allowed / sizeof allowed[0]);
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) assert_true(cmd_visitor_may(allowed[i]));
}

static void leave_should_take_exactly_the_leavers_target_and_obstacles(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 0, 1);
    for (uint32_t c = 5; c <= 7; c++)
        assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = c, .x = (float)c, .y = 1}).status,
                         SIM_OK);
    /* Interleaved, so that what stays must keep its order. */
    uint32_t ids[6];
    ids[0] = add_as(&w, 5, VISITOR, 10).obstacle_id;
    ids[1] = add_as(&w, 6, VISITOR, 20).obstacle_id;
    ids[2] = add_as(&w, 7, OPERATOR, 30).obstacle_id;
    ids[3] = add_as(&w, 5, VISITOR, 40).obstacle_id;
    ids[4] = add_as(&w, 6, VISITOR, 50).obstacle_id;
    ids[5] = add_as(&w, 5, VISITOR, 60).obstacle_id;

    sim_result_t r = apply(&w, (sim_cmd_t){.kind = CMD_LEAVE, .client_id = 5, .visitor = true, .request_id = -1});
    assert_int_equal(r.status, SIM_OK);
    assert_int_equal(r.count, 3);
    assert_int_equal(w.n_obstacles, 3);
    assert_int_equal(w.obstacles[0].id, ids[1]);
    assert_int_equal(w.obstacles[1].id, ids[2]);
    assert_int_equal(w.obstacles[2].id, ids[4]);
    assert_int_equal(w.n_targets, 2);
    assert_int_equal(w.targets[0].client_id, 6);
    assert_int_equal(w.targets[1].client_id, 7);

    /* An operator who leaves takes its target; its obstacles are nobody's and stay. */
    r = apply(&w, (sim_cmd_t){.kind = CMD_LEAVE, .client_id = 7, .request_id = -1});
    assert_int_equal(r.status, SIM_OK);
    assert_int_equal(r.count, 0);
    assert_int_equal(w.n_obstacles, 3);
    assert_int_equal(w.n_targets, 1);
    assert_int_equal(w.targets[0].client_id, 6);

    /* A visitor who became an operator still takes what it made as a visitor. */
    r = apply(&w, (sim_cmd_t){.kind = CMD_LEAVE, .client_id = 6, .visitor = false, .request_id = -1});
    assert_int_equal(r.count, 2);
    assert_int_equal(w.n_obstacles, 1);
    assert_int_equal(w.obstacles[0].id, ids[2]);
    assert_int_equal(w.n_targets, 0);

    /* Leaving twice, or without anything, is harmless. */
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_LEAVE, .client_id = 6}).status, SIM_OK);
    assert_int_equal(w.n_obstacles, 1);
    world_free(&w);
}

static void reset_should_remove_every_obstacle_and_give_visitors_their_quota_back(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 100, 100, 5, 1);
    for (int k = 0; k < SIM_VISITOR_OBSTACLES; k++) assert_int_equal(add_as(&w, 5, VISITOR, 10).status, SIM_OK);
    assert_int_equal(add_as(&w, 7, OPERATOR, 10).status, SIM_OK);
    assert_int_equal(apply(&w, (sim_cmd_t){.kind = CMD_RESET, .client_id = 7}).status, SIM_OK);
    assert_int_equal(w.n_obstacles, 0);
    assert_int_equal(add_as(&w, 5, VISITOR, 10).status, SIM_OK);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_target_should_add_then_move_the_clients_target),
        cmocka_unit_test(the_target_table_should_refuse_more_clients_than_it_holds),
        cmocka_unit_test(obstacles_should_get_fresh_ids_and_be_removable),
        cmocka_unit_test(the_obstacle_table_should_refuse_the_sixty_fifth),
        cmocka_unit_test(set_param_should_store_and_report_the_value),
        cmocka_unit_test(set_param_with_species_should_refuse_a_world_only_parameter_and_change_nothing),
        cmocka_unit_test(set_param_with_species_should_still_set_that_species_own_value),
        cmocka_unit_test(add_agents_should_report_the_new_ids),
        cmocka_unit_test(reset_should_keep_seed_and_count_unless_given),
        cmocka_unit_test(pause_should_stop_the_clock_until_resume),
        cmocka_unit_test(every_command_kind_should_have_a_wire_name),
        cmocka_unit_test(a_visitors_obstacle_should_be_its_own_and_an_operators_nobodys),
        cmocka_unit_test(a_visitor_should_be_refused_an_obstacle_past_its_quota),
        cmocka_unit_test(a_visitor_should_be_forbidden_to_move_or_remove_someone_elses_obstacle),
        cmocka_unit_test(a_visitor_should_move_and_remove_its_own_obstacles),
        cmocka_unit_test(an_operator_should_move_and_remove_a_visitors_obstacle),
        cmocka_unit_test(a_visitor_should_be_forbidden_every_command_but_target_and_obstacle_ones),
        cmocka_unit_test(leave_should_take_exactly_the_leavers_target_and_obstacles),
        cmocka_unit_test(reset_should_remove_every_obstacle_and_give_visitors_their_quota_back),
        cmocka_unit_test(step_should_advance_a_paused_world_by_exactly_one_tick),
        cmocka_unit_test(step_should_be_refused_while_the_world_runs_and_for_visitors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

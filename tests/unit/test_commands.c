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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_target_should_add_then_move_the_clients_target),
        cmocka_unit_test(the_target_table_should_refuse_more_clients_than_it_holds),
        cmocka_unit_test(obstacles_should_get_fresh_ids_and_be_removable),
        cmocka_unit_test(the_obstacle_table_should_refuse_the_sixty_fifth),
        cmocka_unit_test(set_param_should_store_and_report_the_value),
        cmocka_unit_test(add_agents_should_report_the_new_ids),
        cmocka_unit_test(reset_should_keep_seed_and_count_unless_given),
        cmocka_unit_test(pause_should_stop_the_clock_until_resume),
        cmocka_unit_test(every_command_kind_should_have_a_wire_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

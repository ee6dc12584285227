#include <stdlib.h>
#include <string.h>

#include "sim_fixtures.h"

static void same_seed_and_same_commands_should_give_a_bit_identical_world(void **state)
{
    (void)state;
    world_t a, b;
    make_world(&a, 800, 600, 500, 77);
    make_world(&b, 800, 600, 500, 77);
    uint32_t id;
    for (int t = 0; t < 400; t++) {
        if (t == 50) {
            world_add_obstacle(&a, 300, 300, 40, &id);
            world_add_obstacle(&b, 300, 300, 40, &id);
            world_set_target(&a, 1, 700, 100);
            world_set_target(&b, 1, 700, 100);
        }
        if (t == 120) {
            world_add_agents(&a, 100, true, 100, 500);
            world_add_agents(&b, 100, true, 100, 500);
        }
        world_step(&a);
        world_step(&b);
    }
    assert_same_state(&a, &b);
    world_free(&a);
    world_free(&b);
}

static void the_world_should_be_bit_identical_with_one_and_with_several_threads(void **state)
{
    (void)state;
    world_t w[3];
    const int threads[3] = {1, 2, 3};
    for (int k = 0; k < 3; k++) {
        /* Enough agents for the step to be split between threads at all. */
        world_config_t cfg = {.width = 3600, .height = 3600, .dt = 1.0f / 60, .seed = 21, .agents = 20000,
                              .max_agents = 20000, .max_targets = 4, .threads = threads[k]};
        assert_int_equal(world_init(&w[k], &cfg), 0);
        uint32_t id;
        world_add_obstacle(&w[k], 700, 700, 60, &id);
        world_set_target(&w[k], 1, 200, 1300);
        for (int t = 0; t < 60; t++) world_step(&w[k]);
    }
    assert_true(w[0].mean_neighbours > 1.0); /* the flock interacts: the test means something */
    assert_same_state(&w[0], &w[1]);
    assert_same_state(&w[0], &w[2]);
    for (int k = 0; k < 3; k++) world_free(&w[k]);
}

static void different_seeds_should_give_different_worlds(void **state)
{
    (void)state;
    world_t a, b;
    make_world(&a, 800, 600, 100, 1);
    make_world(&b, 800, 600, 100, 2);
    assert_memory_not_equal(a.cur.x, b.cur.x, a.n * sizeof(float));
    world_free(&a);
    world_free(&b);
}

static void reset_with_the_seed_should_reproduce_the_initial_world(void **state)
{
    (void)state;
    world_t a, b;
    make_world(&a, 800, 600, 300, 9);
    make_world(&b, 800, 600, 300, 9);
    for (int t = 0; t < 100; t++) world_step(&a);
    uint32_t id;
    world_add_obstacle(&a, 100, 100, 20, &id);
    assert_int_equal(world_reset(&a, 9, 300), SIM_OK);
    assert_same_state(&a, &b);
    assert_int_equal(a.n_obstacles, 0);
    world_free(&a);
    world_free(&b);
}

static void wrap_should_keep_every_agent_in_the_world_and_the_count_unchanged(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 200, 500, 4);
    set_param(&w, "max_speed", 400); /* fast: many crossings */
    for (int t = 0; t < 1200; t++) {
        world_step(&w);
        assert_int_equal(w.n, 500);
        for (size_t i = 0; i < w.n; i++) {
            assert_true(w.cur.x[i] >= 0.0f && w.cur.x[i] < 300.0f);
            assert_true(w.cur.y[i] >= 0.0f && w.cur.y[i] < 200.0f);
        }
    }
    /* ids stay a permutation of 0..n-1 */
    uint8_t *seen = calloc(w.n, 1);
    for (size_t i = 0; i < w.n; i++) {
        assert_true(w.cur.id[i] < w.n);
        assert_false(seen[w.cur.id[i]]);
        seen[w.cur.id[i]] = 1;
    }
    free(seen);
    world_free(&w);
}

static void an_agent_should_reappear_on_the_opposite_side_when_wrapping(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 200, 1, 4);
    place(&w, 0, 299, 100, 120, 0);
    world_step(&w);
    assert_true(w.cur.x[0] < 5.0f);
    world_free(&w);
}

static void bounce_should_reflect_agents_at_the_walls(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 200, 1, 4);
    set_param(&w, "border", BORDER_BOUNCE);
    place(&w, 0, 299, 100, 120, 0);
    world_step(&w);
    assert_true(w.cur.x[0] <= 300.0f && w.cur.x[0] > 290.0f);
    assert_true(w.cur.vx[0] < 0.0f);
    world_free(&w);
}

static void bounce_should_keep_a_fast_crowd_inside(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 200, 400, 8);
    set_param(&w, "border", BORDER_BOUNCE);
    set_param(&w, "max_speed", 600);
    for (int t = 0; t < 600; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) {
            assert_true(w.cur.x[i] >= 0.0f && w.cur.x[i] <= 300.0f);
            assert_true(w.cur.y[i] >= 0.0f && w.cur.y[i] <= 200.0f);
        }
    }
    world_free(&w);
}

static void added_agents_should_get_the_next_ids_near_the_point(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 10, 4);
    assert_int_equal(world_add_agents(&w, 50, true, 700, 300), SIM_OK);
    assert_int_equal(w.n, 60);
    for (uint32_t id = 10; id < 60; id++) {
        size_t i = index_of(&w, id);
        assert_true(hypotf(w.cur.x[i] - 700, w.cur.y[i] - 300) <= SIM_SPAWN_RADIUS + 1e-3f);
    }
    world_free(&w);
}

static void adding_past_the_limit_should_be_refused_and_change_nothing(void **state)
{
    (void)state;
    world_config_t cfg = {.width = 100, .height = 100, .dt = 1.0f / 60, .seed = 1, .agents = 90, .max_agents = 100, .max_targets = 2};
    world_t w;
    assert_int_equal(world_init(&w, &cfg), 0);
    assert_int_equal(world_add_agents(&w, 11, false, 0, 0), SIM_E_LIMIT);
    assert_int_equal(w.n, 90);
    assert_int_equal(world_add_agents(&w, 10, false, 0, 0), SIM_OK);
    assert_int_equal(w.n, 100);
    world_free(&w);
}

static void changing_a_radius_should_resize_the_grid_and_keep_finding_neighbours(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    set_param(&w, "coh_radius", 150);
    set_param(&w, "fov_sep", 360);
    set_param(&w, "fov_ali", 360);
    set_param(&w, "fov_coh", 360);
    assert_true(w.grid.nx <= 1000 / 150);
    /* 120 u apart: only cohesion (now 150) sees across; they close in. */
    place(&w, 0, 400, 500, 0, 50);
    place(&w, 1, 520, 500, 0, 50);
    for (int t = 0; t < 30; t++) world_step(&w);
    assert_true(distance_between(&w, 0, 1) < 120.0f);
    world_free(&w);
}

static void removing_a_clients_obstacles_should_keep_everyone_elses_in_order(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 0, 1);
    const uint32_t owners[] = {5, 0, 6, 5, 0, 5, 6};
    for (size_t k = 0; k < sizeof owners / sizeof owners[0]; k++)
        assert_int_equal(world_add_owned_obstacle(&w, 10.0f * (float)k, 20, 5, 1, 2, owners[k], NULL), SIM_OK);
    assert_int_equal(world_count_owned_obstacles(&w, 5), 3);
    assert_int_equal(world_count_owned_obstacles(&w, 6), 2);
    assert_int_equal(world_count_owned_obstacles(&w, 0), 2);
    assert_int_equal(world_count_owned_obstacles(&w, 9), 0);
    const obstacle_t *third = world_find_obstacle(&w, 2);
    assert_non_null(third);
    assert_int_equal(third->owner, 6);
    assert_float_equal(third->x, 20, 0);
    assert_null(world_find_obstacle(&w, 7));

    assert_int_equal(world_remove_owned_obstacles(&w, 5), 3);
    const uint32_t left_ids[] = {1, 2, 4, 6};
    assert_int_equal(w.n_obstacles, 4);
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(w.obstacles[k].id, left_ids[k]);
        assert_int_not_equal(w.obstacles[k].owner, 5);
        assert_float_equal(w.obstacles[k].x, 10.0f * (float)left_ids[k], 0); /* each kept whole */
    }
    assert_int_equal(world_remove_owned_obstacles(&w, 5), 0);
    /* Nobody's obstacles are not anyone's to take away. */
    assert_int_equal(world_remove_owned_obstacles(&w, 0), 0);
    assert_int_equal(w.n_obstacles, 4);
    /* The plain forms make nobody's obstacles. */
    uint32_t id;
    assert_int_equal(world_add_moving_obstacle(&w, 1, 1, 5, 0, 0, &id), SIM_OK);
    assert_int_equal(world_find_obstacle(&w, id)->owner, 0);
    assert_int_equal(world_add_obstacle(&w, 1, 1, 5, &id), SIM_OK);
    assert_int_equal(world_find_obstacle(&w, id)->owner, 0);
    world_free(&w);
}

/* With delayed positions in a wrapped world, a neighbour may have crossed
 * the edge since it was where the agents see it: B, at x = 996, sees A
 * (now at x = 2, in the first column of cells) where A was, at x = 998,
 * 2 u away the short way round. The step wraps such pairs (and only
 * leaves them unwrapped where no displacement can be longer than half the
 * world). A sees B where B is (it did not move), 6 u away across the edge:
 * one neighbour each. */
static void a_delayed_neighbour_should_be_seen_across_a_wrapped_edge_it_crossed(void **state)
{
    (void)state;
    for (int side = 0; side < 2; side++) {
        world_t w;
        make_world(&w, 1000.0f, 1000.0f, 2, 5);
        const float a_now = side ? 998.0f : 2.0f, a_then = side ? 2.0f : 998.0f, b = side ? 4.0f : 996.0f;
        place(&w, 0, a_now, 500.0f, 0.0f, 0.0f);
        place(&w, 1, b, 500.0f, 0.0f, 0.0f);
        assert_int_equal(world_agents_placed(&w), 0);
        char msg[160];
        assert_int_equal(world_set_param(&w, (size_t)params_find("delay_ticks"), 2, msg, sizeof msg), SIM_OK);
        assert_int_equal(world_set_param(&w, (size_t)params_find("delay_mode"), DELAY_POSITIONS, msg, sizeof msg),
                         SIM_OK);
        const size_t stride = w.cap + SENSE_LANES;
        for (size_t f = 0; f < w.history_frames; f++) w.history[f * 4 * stride + 0] = a_then; /* A's x, by id */
        world_step(&w);
        assert_true(w.mean_neighbours == 1.0);
        world_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_and_same_commands_should_give_a_bit_identical_world),
        cmocka_unit_test(the_world_should_be_bit_identical_with_one_and_with_several_threads),
        cmocka_unit_test(different_seeds_should_give_different_worlds),
        cmocka_unit_test(reset_with_the_seed_should_reproduce_the_initial_world),
        cmocka_unit_test(wrap_should_keep_every_agent_in_the_world_and_the_count_unchanged),
        cmocka_unit_test(an_agent_should_reappear_on_the_opposite_side_when_wrapping),
        cmocka_unit_test(bounce_should_reflect_agents_at_the_walls),
        cmocka_unit_test(bounce_should_keep_a_fast_crowd_inside),
        cmocka_unit_test(added_agents_should_get_the_next_ids_near_the_point),
        cmocka_unit_test(adding_past_the_limit_should_be_refused_and_change_nothing),
        cmocka_unit_test(changing_a_radius_should_resize_the_grid_and_keep_finding_neighbours),
        cmocka_unit_test(removing_a_clients_obstacles_should_keep_everyone_elses_in_order),
        cmocka_unit_test(a_delayed_neighbour_should_be_seen_across_a_wrapped_edge_it_crossed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

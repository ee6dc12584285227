/* capacity: the default population limit. The arithmetic is checked on
 * made-up costs (no timing is asserted: the machine may be busy); the
 * calibration only for sane figures. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sim/capacity.h"
#include "sim/world.h"

/* A crowd that costs 1000 ns per agent-step, seeing 500 neighbours each,
 * whatever its sample. */
static const capacity_costs_t costs = {.worst_ns = 1000.0, .worst_case = "a test crowd", .worst_neighbours = 500.0,
                                       .floor_ns = 1000.0, .floor_case = "a test crowd", .floor_neighbours = 500.0,
                                       .reynolds_ns = 400.0, .normal_ns = 50.0, .candidates = 1024};

static void the_area_bound_should_be_one_agent_per_sixteen_square_units(void **state)
{
    (void)state;
    capacity_t small, large;
    capacity_of(&costs, 1600, 900, 60, 2, &small);
    capacity_of(&costs, 3200, 900, 60, 2, &large);
    assert_int_equal(small.area_agents, 1600 * 900 / 16);
    assert_int_equal(large.area_agents, 2 * small.area_agents); /* proportional to the area */
    capacity_of(&costs, 2, 2, 60, 2, &small);
    assert_int_equal(small.area_agents, 1); /* never none */
}

static void the_time_bound_should_fit_the_dearest_crowd_in_a_period(void **state)
{
    (void)state;
    capacity_t c;
    capacity_of(&costs, 1e5f, 1e5f, 60, 1, &c);
    /* 16.67 ms at 1000 ns per agent. */
    assert_int_equal(c.time_agents, 16666);
    assert_int_equal(c.max_agents, 16666); /* the world is vast: time decides */
    capacity_of(&costs, 1e5f, 1e5f, 60, 2, &c);
    assert_in_range(c.time_agents, 29999, 30000); /* 1.8 × 16.67 ms at 1000 ns, give or take rounding */
    capacity_of(&costs, 1e5f, 1e5f, 30, 1, &c);
    assert_int_equal(c.time_agents, 33333);
}

static void a_normal_flock_should_fit_half_a_period(void **state)
{
    (void)state;
    capacity_costs_t cheap_crowd = costs;
    cheap_crowd.worst_ns = cheap_crowd.floor_ns = 10.0;
    cheap_crowd.normal_ns = 100.0; /* dearer than the crowd: it decides */
    capacity_t c;
    capacity_of(&cheap_crowd, 1e5f, 1e5f, 60, 1, &c);
    assert_int_equal(c.time_agents, 83333);
}

static void past_the_candidate_budget_the_crowd_should_cost_its_floor_figure(void **state)
{
    (void)state;
    /* 2,000 ns at 1024 candidates, 200 ns at the floor of 128. */
    capacity_costs_t crowd = costs;
    crowd.worst_ns = 2000.0, crowd.floor_ns = 200.0;
    capacity_t c;
    capacity_of(&crowd, 1e5f, 1e5f, 60, 2, &c);
    /* 1.8 × 16.67 ms at 200 ns: 150,000, where every agent senses 128. */
    assert_int_equal(c.time_agents, 150000);
    assert_int_equal(world_candidate_cap_of(c.time_agents, 1024), SIM_CANDIDATE_FLOOR);
    /* A dearer floor: the bound falls below 40,960 agents, where each
     * senses more; the cost is read off the line between the two figures
     * at the population's own sample, and the next agent would not fit. */
    crowd.floor_ns = 1000.0;
    capacity_of(&crowd, 1e5f, 1e5f, 60, 2, &c);
    const double n = (double)c.time_agents, period = 1e9 / 60 * 1.8;
    const double per = 1000.0 + (1000.0 / 896.0) * ((double)world_candidate_cap_of(c.time_agents, 1024) - 128.0);
    const double next = 1000.0 + (1000.0 / 896.0) * ((double)world_candidate_cap_of(c.time_agents + 1, 1024) - 128.0);
    assert_true(n * per <= period);
    assert_true((n + 1) * next > period);
    assert_true(c.time_agents < 30000 && c.time_agents > 15000);
}

static void a_population_too_small_to_go_parallel_should_be_bounded_by_one_thread(void **state)
{
    (void)state;
    /* Few neighbours: the world steps fewer than 16,384 agents on one
     * thread, and one thread fits only 8,333 of them (at 2,000 ns). */
    capacity_costs_t sparse = costs;
    sparse.worst_neighbours = sparse.floor_neighbours = 1.0;
    sparse.worst_ns = sparse.floor_ns = 2000.0;
    assert_true(world_parallel_from(sparse.worst_neighbours) > 8334);
    capacity_t one, two;
    capacity_of(&sparse, 1e5f, 1e5f, 60, 1, &one);
    capacity_of(&sparse, 1e5f, 1e5f, 60, 2, &two);
    assert_int_equal(two.time_agents, one.time_agents);
}

static void more_threads_a_lower_tick_rate_or_a_larger_world_should_never_give_fewer_agents(void **state)
{
    (void)state;
    const double neighbours[] = {0.0, 1.0, 12.0, 30.0, 500.0};
    const double ns[] = {10.0, 300.0, 1000.0, 50000.0};
    for (size_t k = 0; k < sizeof neighbours / sizeof neighbours[0]; k++)
        for (size_t m = 0; m < sizeof ns / sizeof ns[0]; m++) {
            capacity_costs_t cc = costs;
            cc.worst_neighbours = cc.floor_neighbours = neighbours[k];
            cc.worst_ns = cc.floor_ns = ns[m];
            size_t before = 0;
            for (int threads = 1; threads <= 16; threads++) {
                capacity_t c;
                capacity_of(&cc, 1600, 900, 60, threads, &c);
                assert_true(c.max_agents >= before);
                assert_true(c.max_agents >= 1);
                assert_true(c.max_agents <= c.area_agents && c.max_agents <= c.time_agents);
                before = c.max_agents;
            }
            before = (size_t)-1;
            for (double hz = 1; hz <= 1000; hz *= 2) {
                capacity_t c;
                capacity_of(&cc, 1e6f, 1e6f, hz, 2, &c);
                assert_true(c.max_agents <= before);
                before = c.max_agents;
            }
            before = 0;
            for (float side = 10; side <= 1e5f; side *= 3) {
                capacity_t c;
                capacity_of(&cc, side, side, 60, 2, &c);
                assert_true(c.max_agents >= before);
                before = c.max_agents;
            }
        }
}

static void a_crowd_should_go_parallel_with_fewer_agents_than_a_sparse_flock(void **state)
{
    (void)state;
    assert_int_equal(world_parallel_from(0.0), 16384);
    assert_int_equal(world_parallel_from(12.0), 16384); /* a normal flock, as before crowds counted */
    assert_true(world_parallel_from(1000.0) < 1000);
    size_t before = world_parallel_from(0.0);
    for (double n = 1; n <= 2048; n *= 2) {
        assert_true(world_parallel_from(n) <= before);
        before = world_parallel_from(n);
    }
}

static void the_calibration_should_give_sane_figures_and_a_limit(void **state)
{
    (void)state;
    capacity_t c;
    assert_int_equal(capacity_estimate(1600, 900, 60, 2, 64, &c), 0);
    assert_true(c.costs.worst_ns > 0 && isfinite(c.costs.worst_ns));
    assert_true(c.costs.worst_ns >= c.costs.reynolds_ns); /* the worst of the cases, Reynolds' among them */
    assert_true(c.costs.normal_ns > 0 && isfinite(c.costs.normal_ns));
    assert_true(c.costs.worst_neighbours > 0); /* the crowd did crowd */
    assert_int_equal(c.costs.candidates, 1024);
    assert_non_null(c.costs.worst_case);
    assert_int_equal(c.area_agents, 90000);
    assert_true(c.max_agents >= 1 && c.max_agents <= c.area_agents);
    char line[600];
    int n = capacity_describe(&c, line, sizeof line);
    assert_true(n > 0 && (size_t)n < sizeof line);
    assert_non_null(strstr(line, "max agents "));
    assert_non_null(strstr(line, c.costs.worst_case));
}

static void the_description_should_group_thousands(void **state)
{
    (void)state;
    capacity_t c;
    capacity_of(&costs, 1e5f, 1e5f, 60, 1, &c);
    char line[600];
    capacity_describe(&c, line, sizeof line);
    assert_non_null(strstr(line, "max agents 16,666 (time bound"));
    assert_non_null(strstr(line, "1,000 ns per agent-step at 1024 candidates (a test crowd)"));
}

/* The calibration's crowds as the check sets them up at a population of
 * its own: every case has a name, the agents and predators are in the
 * square, every client's target is set, and where a case has obstacles
 * all 64 lie over the crowd, every agent inside every one's buffer (the
 * dearest place for them), and a step pushes every agent out of them. */
static void a_dressed_crowd_should_hold_the_dearest_setup(void **state)
{
    (void)state;
    assert_null(capacity_case_name(CAPACITY_CASES));
    assert_null(capacity_case_name(-1));
    for (int k = 0; k < CAPACITY_CASES; k++) {
        assert_non_null(capacity_case_name(k));
        world_config_t cfg = {.width = 1600, .height = 900, .dt = 1.0f / 60.0f, .seed = 3, .agents = 2000,
                              .max_agents = 2000, .max_targets = 40, .threads = 1};
        world_t w;
        assert_int_equal(world_init(&w, &cfg), 0);
        const float cx = 700.0f, cy = 400.0f, side = 26.0f;
        assert_int_equal(capacity_dress_crowd(&w, k, cx, cy, side, 40), 0);
        capacity_pack_crowd(&w, cx, cy, side);
        assert_int_equal(w.n_targets, 40);
        for (size_t i = 0; i < w.n; i++) {
            assert_true(fabsf(w.cur.x[i] - cx) <= 0.5f * side && fabsf(w.cur.y[i] - cy) <= 0.5f * side);
            for (size_t o = 0; o < w.n_obstacles; o++) {
                const float dx = w.cur.x[i] - w.obstacles[o].x, dy = w.cur.y[i] - w.obstacles[o].y;
                const float buffer = w.obstacles[o].r + w.params.obstacle_buffer;
                assert_true(dx * dx + dy * dy < buffer * buffer);
            }
        }
        for (size_t p = 0; p < w.n_predators; p++)
            assert_true(fabsf(w.predators[p].x - cx) <= 0.5f * side && fabsf(w.predators[p].y - cy) <= 0.5f * side);
        if (k == 0) {
            assert_int_equal(w.n_obstacles, 0); /* Reynolds with its defaults */
        } else {
            assert_int_equal(w.n_obstacles, SIM_MAX_OBSTACLES);
            assert_true(w.n_predators > 0);
            world_step(&w);
            for (size_t i = 0; i < w.n; i++)
                for (size_t o = 0; o < w.n_obstacles; o++) {
                    const float dx = w.cur.x[i] - w.obstacles[o].x, dy = w.cur.y[i] - w.obstacles[o].y;
                    assert_true(dx * dx + dy * dy >= w.obstacles[o].r * w.obstacles[o].r);
                }
        }
        world_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_area_bound_should_be_one_agent_per_sixteen_square_units),
        cmocka_unit_test(the_time_bound_should_fit_the_dearest_crowd_in_a_period),
        cmocka_unit_test(a_normal_flock_should_fit_half_a_period),
        cmocka_unit_test(past_the_candidate_budget_the_crowd_should_cost_its_floor_figure),
        cmocka_unit_test(a_population_too_small_to_go_parallel_should_be_bounded_by_one_thread),
        cmocka_unit_test(more_threads_a_lower_tick_rate_or_a_larger_world_should_never_give_fewer_agents),
        cmocka_unit_test(a_crowd_should_go_parallel_with_fewer_agents_than_a_sparse_flock),
        cmocka_unit_test(the_calibration_should_give_sane_figures_and_a_limit),
        cmocka_unit_test(the_description_should_group_thousands),
        cmocka_unit_test(a_dressed_crowd_should_hold_the_dearest_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

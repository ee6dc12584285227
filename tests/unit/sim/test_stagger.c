/* Staggered steering (steer_every, issue 25 goal 3): each tick only the
 * rows of grid cells that are due sense and steer; the others coast. What
 * must hold: 1 and several threads give the same bits, a coasting agent
 * keeps its velocity and moves by v·dt, a steer stands for the ticks it
 * covers (the flock still aligns, neighbours too close still part), no
 * agent enters an obstacle, and the parameter refuses bad values. */
#include <stdlib.h>
#include <string.h>

#include "sim_fixtures.h"

static void staggered_worlds_should_be_bit_identical_with_one_and_with_several_threads(void **state)
{
    (void)state;
    const int models[] = {MODEL_REYNOLDS, MODEL_OLFATI3, MODEL_UNICYCLE, MODEL_COUZIN};
    for (int every = 2; every <= 3; every++) {
        for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
            world_t w[2];
            for (int k = 0; k < 2; k++) {
                /* Enough agents for every step to be split between the
                 * threads whatever the density: staggered, only a share of
                 * the agents sense, and with 12,000 the two-thread world
                 * of three of these models ran each step as one task. */
                world_config_t cfg = {.width = 3000, .height = 3000, .dt = 1.0f / 60, .seed = 21, .agents = 20000,
                                      .max_agents = 20000, .max_targets = 4, .threads = k + 1};
                assert_int_equal(world_init(&w[k], &cfg), 0);
                set_param(&w[k], "steer_every", every);
                set_param(&w[k], "model", models[m]);
                uint32_t id;
                world_add_obstacle(&w[k], 700, 700, 60, &id);
                world_set_target(&w[k], 1, 200, 1300);
                for (int t = 0; t < 25; t++) {
                    assert_true(w[k].n >= world_parallel_from(w[k].mean_neighbours)); /* this step is split */
                    world_step(&w[k]);
                }
            }
            assert_true(w[0].mean_neighbours > 0.5); /* the flock interacts: the test means something */
            assert_same_state(&w[0], &w[1]);
            for (int k = 0; k < 2; k++) world_free(&w[k]);
        }
    }
}

/* Before a step agent i is binned by where it is: its row of cells. */
static uint32_t row_of(const world_t *w, size_t i) { return (uint32_t)grid_cell_y(&w->grid, w->cur.y[i]); }

static void a_coasting_agent_should_keep_its_velocity_and_move_by_v_dt(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 3, 4);
    set_param(&w, "steer_every", 3);
    /* Agent 0 flies across its two neighbours' path, near enough that
     * separation, alignment and cohesion all pull at it on every steer. */
    place(&w, 0, 500, 500, 60, 10);
    place(&w, 1, 510, 505, -40, 50);
    place(&w, 2, 495, 512, 0, -70);
    int coasted = 0, steered = 0;
    for (int t = 0; t < 12; t++) {
        const size_t i = index_of(&w, 0);
        const float x = w.cur.x[i], y = w.cur.y[i], vx = w.cur.vx[i], vy = w.cur.vy[i];
        const bool due = world_row_steers(&w, row_of(&w, i));
        world_step(&w);
        const size_t j = index_of(&w, 0);
        if (due) {
            steered++;
            assert_true(w.cur.vx[j] != vx || w.cur.vy[j] != vy); /* its neighbours turned it */
            assert_true(w.cur.x[j] != x + vx * w.dt || w.cur.y[j] != y + vy * w.dt);
        } else {
            coasted++;
            assert_true(w.cur.vx[j] == vx && w.cur.vy[j] == vy);
            assert_true(w.cur.x[j] == x + vx * w.dt && w.cur.y[j] == y + vy * w.dt);
        }
    }
    /* Once in three ticks, whichever row it is in. */
    assert_int_equal(steered, 4);
    assert_int_equal(coasted, 8);
    world_free(&w);
}

/* The mean polarization of four worlds of the model after 20 s of flight. */
static double polarization_after(int model, int every)
{
    double mean = 0.0;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        world_t w;
        make_world(&w, 500, 500, 300, seed);
        set_param(&w, "steer_every", every);
        set_param(&w, "model", model);
        for (int t = 0; t < 20 * 60; t++) world_step(&w);
        mean += polarization(&w) / 4.0;
        world_free(&w);
    }
    return mean;
}

/* Reynolds' and Olfati-Saber's flocks order themselves (0.94-0.99 over
 * these worlds at either steer_every); staggered, they still do, within
 * a margin of what steering every tick gives. */
static void a_staggered_flock_should_align_as_well_as_one_steered_every_tick(void **state)
{
    (void)state;
    const int models[] = {MODEL_REYNOLDS, MODEL_OLFATI1};
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        const double every_tick = polarization_after(models[m], 1), every_third = polarization_after(models[m], 3);
        print_message("model %d: polarization after 20 s, mean of 4 worlds: steer_every 1 %.3f, 3 %.3f\n", models[m],
                      every_tick, every_third);
        assert_true(every_tick > 0.9);
        assert_true(every_third > 0.9);
        assert_true(fabs(every_tick - every_third) < 0.08);
    }
}

/* Two agents 6 u apart, inside separation's and contact's zones, flying
 * alike: after the ticks in which each has steered twice they are farther
 * apart. The steer stands for the ticks it covers, so three ticks of
 * staggered steering part them about as far as three of steering every
 * tick (not a third as far). */
static float parted_after(int every, int ticks)
{
    world_t w;
    make_world(&w, 1000, 1000, 2, 3);
    set_param(&w, "steer_every", every);
    place(&w, 0, 500, 500, 100, 0);
    place(&w, 1, 500, 506, 100, 0);
    for (int t = 0; t < ticks; t++) world_step(&w);
    const float d = distance_between(&w, 0, 1);
    world_free(&w);
    return d;
}

static void agents_too_close_should_still_move_apart_when_steering_is_staggered(void **state)
{
    (void)state;
    const float every_tick = parted_after(1, 6), every_third = parted_after(3, 6);
    print_message("distance after 6 ticks from 6 u: steer_every 1 %.2f u, 3 %.2f u\n", every_tick, every_third);
    assert_true(every_tick > 6.5f);
    assert_true(every_third > 6.5f);
    /* Not a third of the way: the steer is max_force·3·dt. */
    assert_true(every_third - 6.0f > 0.5f * (every_tick - 6.0f));
}

static void staggered_agents_should_never_enter_an_obstacle(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 800, 600, 8);
    set_param(&w, "steer_every", 3);
    set_param(&w, "w_avoid", 0); /* nothing steers them round: only the push-out keeps them out */
    uint32_t id;
    world_add_obstacle(&w, 400, 400, 120, &id);
    world_add_obstacle(&w, 680, 680, 50, &id);
    /* Half of them fly straight at the big obstacle. */
    for (size_t i = 0; i < 300; i++) place(&w, i, 100.0f + (float)(i % 20) * 4.0f, 300.0f + (float)(i / 20) * 12.0f, 120, 10);
    size_t at_the_edge = 0;
    for (int t = 0; t < 600; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) {
            for (size_t o = 0; o < w.n_obstacles; o++) {
                const obstacle_t *ob = &w.obstacles[o];
                const float d = hypotf(w.cur.x[i] - ob->x, w.cur.y[i] - ob->y);
                assert_true(d >= ob->r);
                if (d < ob->r + 2.0f) at_the_edge++;
            }
        }
    }
    assert_true(at_the_edge > 0); /* agents did meet the edges: the test means something */
    world_free(&w);
}

/* The per-agent state a steer updates (wandering's angle, the density
 * radii) is left alone while an agent coasts: a coasting agent's entries
 * are the same bits after the step, and most steering agents' move. */
static void a_coasting_agent_should_keep_its_wander_angle_and_radii(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1600, 900, 3000, 12);
    set_param(&w, "steer_every", 3);
    set_param(&w, "w_wander", 1);
    set_param(&w, "density_radii", 1);
    world_step(&w);
    const size_t n = w.n;
    float *wander = malloc(n * sizeof *wander), *radius = malloc(n * sizeof *radius);
    bool *due = malloc(n * sizeof *due);
    assert_true(wander && radius && due);
    for (int t = 0; t < 3; t++) {
        memcpy(wander, w.wander, n * sizeof *wander);
        memcpy(radius, w.radius_ali, n * sizeof *radius);
        for (size_t i = 0; i < n; i++) due[w.cur.id[i]] = world_row_steers(&w, row_of(&w, i));
        world_step(&w);
        size_t steering = 0, moved = 0;
        for (size_t id = 0; id < n; id++) {
            if (!due[id]) {
                assert_memory_equal(&w.wander[id], &wander[id], sizeof *wander);
                assert_memory_equal(&w.radius_ali[id], &radius[id], sizeof *radius);
                continue;
            }
            steering++;
            moved += w.wander[id] != wander[id];
        }
        assert_true(steering > n / 6 && steering < n / 2); /* about a third steered */
        assert_true(moved > steering * 9 / 10);
    }
    free(wander), free(radius), free(due);
    world_free(&w);
}

/* What a lone agent flying at (0, vy), vy a number of cell rows per tick,
 * does over `ticks` ticks: how often its row was due to steer, and its
 * longest run of ticks without a steer. */
typedef struct schedule {
    int steers, longest_coast;
} schedule_t;

static schedule_t schedule_of(int every, float radius, float rows_per_tick, float height, int ticks)
{
    world_t w;
    make_world(&w, 1000, height, 2, 5);
    set_param(&w, "sep_radius", radius);
    set_param(&w, "ali_radius", radius);
    set_param(&w, "coh_radius", radius);
    set_param(&w, "max_speed", 1000);
    set_param(&w, "steer_every", every);
    place(&w, 1, 100, 50, 0, 0); /* far from agent 0: nothing turns it */
    world_step(&w);              /* the grid is sized to the radii */
    const float vy = rows_per_tick / w.grid.inv_cell_h / w.dt;
    size_t i = index_of(&w, 0);
    w.cur.x[i] = 500, w.cur.y[i] = height / 2 + 0.3f, w.cur.vx[i] = 0, w.cur.vy[i] = vy;
    schedule_t s = {0, 0};
    int coast = 0;
    for (int t = 0; t < ticks; t++) {
        i = index_of(&w, 0);
        if (world_row_steers(&w, row_of(&w, i)))
            s.steers++, coast = 0;
        else if (++coast > s.longest_coast)
            s.longest_coast = coast;
        world_step(&w);
    }
    world_free(&w);
    return s;
}

/* An agent steers about once every k ticks however it flies across the
 * rows. With turns (row + tick) mod k, an agent crossing m rows a tick
 * with m + 1 a multiple of k kept its row's turn out of step for ever
 * (0 steers in 600 ticks at k = 2, one row a tick), and one flying toward
 * lower rows steered more often than one flying the other way. */
static void an_agent_crossing_rows_should_still_steer_about_every_k_ticks(void **state)
{
    (void)state;
    const struct {
        int every;
        float rows_per_tick;
    } cases[] = {{2, 1.0f}, {2, -1.0f}, {3, -1.0f}, {4, 3.0f}, {8, -1.0f}, {8, 7.0f}};
    const int ticks = 600;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int k = cases[c].every;
        const schedule_t s = schedule_of(k, 5, cases[c].rows_per_tick, 1000, ticks);
        print_message("k %d, %+.0f rows a tick: %d steers in %d ticks, longest coast %d\n", k,
                      cases[c].rows_per_tick, s.steers, ticks, s.longest_coast);
        assert_true(s.steers > ticks / k / 2 && s.steers < 3 * ticks / k / 2);
        assert_true(s.longest_coast <= 8 * k);
    }
    /* Up and down alike: 0.3 rows a tick in a world too tall to wrap in
     * the time (the old turns gave 0.7 and 1.3 times the steers). */
    for (int k = 3; k <= 8; k += 5) {
        const int ticks_updown = 480;
        const schedule_t up = schedule_of(k, 50, -0.3f, 20000, ticks_updown),
                         down = schedule_of(k, 50, 0.3f, 20000, ticks_updown);
        print_message("k %d, 0.3 rows a tick: %d steers flying up, %d down, in %d ticks\n", k, up.steers,
                      down.steers, ticks_updown);
        assert_true(abs(up.steers - down.steers) <= ticks_updown / k / 5);
    }
}

/* The spread of the wander angles' drift over 2 s, root mean square over
 * 2,000 agents (the angle's change, unwrapped to [-pi, pi]). */
static double wander_spread(int every)
{
    world_t w;
    make_world(&w, 3000, 3000, 2000, 9);
    set_param(&w, "w_wander", 1);
    set_param(&w, "wander_jitter", 3);
    set_param(&w, "steer_every", every);
    world_step(&w);
    float *start = malloc(w.n * sizeof *start);
    assert_non_null(start);
    memcpy(start, w.wander, w.n * sizeof *start);
    for (int t = 0; t < 120; t++) world_step(&w);
    double sum = 0.0;
    for (size_t id = 0; id < w.n; id++) {
        double d = (double)w.wander[id] - (double)start[id];
        d -= 2.0 * M_PI * floor(d / (2.0 * M_PI) + 0.5);
        sum += d * d;
    }
    free(start);
    const double spread = sqrt(sum / (double)w.n);
    world_free(&w);
    return spread;
}

/* Wandering's drift is a sum of independent draws: one draw standing for
 * k ticks is scaled by sqrt(k), so the angles spread as fast per second as
 * when every agent draws every tick (scaled by k they spread sqrt(k) times
 * as fast: 2x at k = 4). */
static void a_staggered_wander_should_drift_as_fast_as_one_drawn_every_tick(void **state)
{
    (void)state;
    const double every_tick = wander_spread(1);
    for (int k = 4; k <= 8; k += 4) {
        const double staggered = wander_spread(k);
        print_message("wander drift over 2 s (rms): steer_every 1 %.3f rad, %d %.3f rad\n", every_tick, k, staggered);
        assert_true(every_tick > 0.1 && every_tick < 1.0); /* a drift, not wrapped round */
        assert_true(staggered > 0.85 * every_tick && staggered < 1.15 * every_tick);
    }
}

static void steer_every_should_refuse_bad_values_and_change_nothing(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 400, 400, 10, 1);
    const int index = params_find("steer_every");
    assert_true(index >= 0);
    const param_desc_t *d = params_desc((size_t)index);
    assert_int_equal(d->type, PARAM_INT);
    assert_int_equal(w.params.steer_every, 1); /* the default keeps every bit */
    set_param(&w, "steer_every", 2);
    const double bad[] = {0, -1, SIM_MAX_STEER_EVERY + 1, 2.5, NAN};
    const int codes[] = {SIM_E_OUT_OF_RANGE, SIM_E_OUT_OF_RANGE, SIM_E_OUT_OF_RANGE, SIM_E_BAD_TYPE, SIM_E_BAD_TYPE};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char msg[160] = "";
        assert_int_equal(world_set_param(&w, (size_t)index, bad[k], msg, sizeof msg), codes[k]);
        assert_non_null(strstr(msg, "steer_every"));
        assert_int_equal(w.params.steer_every, 2);
        for (int s = 0; s < SIM_MAX_SPECIES; s++) assert_int_equal(w.species_params[s].steer_every, 2);
    }
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(staggered_worlds_should_be_bit_identical_with_one_and_with_several_threads),
        cmocka_unit_test(a_coasting_agent_should_keep_its_velocity_and_move_by_v_dt),
        cmocka_unit_test(a_staggered_flock_should_align_as_well_as_one_steered_every_tick),
        cmocka_unit_test(agents_too_close_should_still_move_apart_when_steering_is_staggered),
        cmocka_unit_test(staggered_agents_should_never_enter_an_obstacle),
        cmocka_unit_test(a_coasting_agent_should_keep_its_wander_angle_and_radii),
        cmocka_unit_test(an_agent_crossing_rows_should_still_steer_about_every_k_ticks),
        cmocka_unit_test(a_staggered_wander_should_drift_as_fast_as_one_drawn_every_tick),
        cmocka_unit_test(steer_every_should_refuse_bad_values_and_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

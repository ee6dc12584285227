/* max_candidates: the bound on what one agent senses in a step. A crowd
 * denser than the cap is sensed through an even sample, so a step's
 * neighbour work stays under N·max_candidates; below the cap nothing
 * changes, bit for bit. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_fixtures.h"

/* Puts agents 0 … w->n − 1 on a jittered lattice filling the side × side
 * square at (x0, y0), all at distinct places, with velocity (vx, vy); the
 * world must not have stepped yet (index == id). */
static void crowd(world_t *w, float x0, float y0, float side, float vx, float vy)
{
    const size_t per_row = (size_t)ceil(sqrt((double)w->n));
    const float pitch = side / (float)per_row;
    prng_t rng;
    prng_seed(&rng, 99, 3);
    for (size_t i = 0; i < w->n; i++) {
        float x = x0 + pitch * ((float)(i % per_row) + prng_range(&rng, 0.1f, 0.9f));
        float y = y0 + pitch * ((float)(i / per_row) + prng_range(&rng, 0.1f, 0.9f));
        place(w, i, fmodf(x + w->width, w->width), fmodf(y + w->height, w->height), vx, vy);
    }
    assert_int_equal(world_agents_placed(w), SIM_OK);
}

static double pairs_seen(const world_t *w) { return w->mean_neighbours * (double)w->n; }

static void a_dense_crowd_should_sense_at_most_max_candidates_each_and_fewer_with_a_lower_cap(void **state)
{
    (void)state;
    const int caps[] = {1024, 256, 64, 16};
    double before = INFINITY;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        world_t w;
        make_world(&w, 1600, 900, 5000, 1);
        set_param(&w, "max_candidates", caps[c]);
        crowd(&w, 790, 440, 20, 0, 0); /* 5,000 agents in 20 x 20 u */
        for (int s = 0; s < 3; s++) {
            world_step(&w);
            assert_true(pairs_seen(&w) <= (double)w.n * caps[c]);
        }
        /* They do see many: most of a full sample (the field of view hides
         * some behind; the crowd has spread a little). */
        assert_true(pairs_seen(&w) > 0.5 * (double)w.n * caps[c]);
        assert_true(pairs_seen(&w) < before);
        before = pairs_seen(&w);
        world_free(&w);
    }
}

static void a_large_population_should_share_the_candidate_budget(void **state)
{
    (void)state;
    /* The arithmetic: max_candidates up to the population's share of the
     * budget, never below the floor (nor above max_candidates). */
    assert_int_equal(world_candidate_cap_of(1000, 1024), 1024);
    assert_int_equal(world_candidate_cap_of(SIM_CANDIDATE_BUDGET / 256, 256), 256);
    assert_int_equal(world_candidate_cap_of(SIM_CANDIDATE_BUDGET / 256 + 1000, 256), 244); /* 5,242,880 / 21,480 */
    assert_int_equal(world_candidate_cap_of(40000, 1024), 131);
    assert_int_equal(world_candidate_cap_of(50000, 1024), SIM_CANDIDATE_FLOOR);
    assert_int_equal(world_candidate_cap_of(1000000, 1024), SIM_CANDIDATE_FLOOR);
    assert_int_equal(world_candidate_cap_of(1000000, 16), 16);
    assert_int_equal(world_candidate_cap_of(0, 300), 300);
    /* In a world: 60,000 agents crowded together sense the floor each, at
     * most, whatever max_candidates says; a tenth as many sense more. */
    const size_t populations[] = {60000, 6000};
    for (int k = 0; k < 2; k++) {
        world_t w;
        make_world(&w, 1600, 900, populations[k], 1);
        set_param(&w, "max_candidates", 1024);
        const uint32_t cap = world_candidate_cap(&w);
        assert_int_equal(cap, k == 0 ? SIM_CANDIDATE_FLOOR : 873);
        crowd(&w, 790, 440, 20, 0, 0);
        world_step(&w);
        assert_true(pairs_seen(&w) <= (double)w.n * cap);
        assert_true(pairs_seen(&w) > 0.5 * (double)w.n * cap); /* the crowd does fill its sample */
        world_free(&w);
    }
}

static void olfati_saber_agents_should_sense_at_most_their_own_bound_whatever_the_cap(void **state)
{
    (void)state;
    const int caps[] = {1024, SIM_OLFATI_MAX_CANDIDATES, 64};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        world_t w;
        make_world(&w, 1600, 900, 3000, 6);
        set_param(&w, "model", MODEL_OLFATI1);
        set_param(&w, "max_candidates", caps[c]);
        crowd(&w, 790, 440, 20, 0, 0); /* everyone within the 30 u range of everyone */
        world_step(&w);
        const int bound = caps[c] < SIM_OLFATI_MAX_CANDIDATES ? caps[c] : SIM_OLFATI_MAX_CANDIDATES;
        /* Each senses a full sample, all in range, itself left out if in it. */
        assert_true(pairs_seen(&w) <= (double)w.n * bound);
        assert_true(pairs_seen(&w) >= (double)w.n * (bound - 1));
        world_free(&w);
    }
}

/* Mean distance from each agent to its nearest other. */
static double mean_nearest_distance(const world_t *w)
{
    double sum = 0;
    for (size_t i = 0; i < w->n; i++) {
        float best = INFINITY;
        for (size_t j = 0; j < w->n; j++) {
            float dx = w->cur.x[j] - w->cur.x[i], dy = w->cur.y[j] - w->cur.y[i], d2 = dx * dx + dy * dy;
            if (j != i && d2 < best) best = d2;
        }
        sum += sqrt((double)best);
    }
    return sum / (double)w->n;
}

/* Root-mean-square distance from the crowd's centre. */
static double spread_of(const world_t *w)
{
    double cx = 0, cy = 0, sum = 0;
    for (size_t i = 0; i < w->n; i++) cx += w->cur.x[i], cy += w->cur.y[i];
    cx /= (double)w->n, cy /= (double)w->n;
    for (size_t i = 0; i < w->n; i++) sum += (w->cur.x[i] - cx) * (w->cur.x[i] - cx) + (w->cur.y[i] - cy) * (w->cur.y[i] - cy);
    return sqrt(sum / (double)w->n);
}

typedef struct crowd_shape {
    double nearest, spread;
} crowd_shape_t;

/* 3,000 agents at rest in a 20 x 20 u square, far closer than the
 * separation radius (25 u): only steering moves them. Their shape at the
 * start and after 100 steps. */
static void crowd_shapes(int max_candidates, double w_sep, crowd_shape_t *start, crowd_shape_t *end)
{
    world_t w;
    make_world(&w, 1600, 900, 3000, 2);
    set_param(&w, "max_candidates", max_candidates);
    set_param(&w, "w_sep", w_sep);
    crowd(&w, 790, 440, 20, 0, 0);
    *start = (crowd_shape_t){mean_nearest_distance(&w), spread_of(&w)};
    for (int s = 0; s < 100; s++) world_step(&w);
    *end = (crowd_shape_t){mean_nearest_distance(&w), spread_of(&w)};
    world_free(&w);
}

/* With separation the crowd spreads and its members draw apart; without
 * it (the control) cohesion packs them ever closer. */
static void a_capped_crowd_should_still_push_apart_agents_inside_the_separation_radius(void **state)
{
    (void)state;
    const int caps[] = {256, 16};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        crowd_shape_t start, apart, control_start, packed;
        crowd_shapes(caps[c], 1.5, &start, &apart);
        crowd_shapes(caps[c], 0.0, &control_start, &packed);
        assert_true(start.nearest < 0.5); /* about 0.36 u apart */
        assert_true(apart.nearest > start.nearest);
        assert_true(apart.spread > 1.8 * start.spread);
        assert_true(packed.nearest < 0.5 * control_start.nearest);
        assert_true(packed.spread < control_start.spread);
    }
}

/* The largest number of candidates any cell's 3x3 block holds in the
 * world's present state (what the next step will see). */
static uint32_t largest_block(const world_t *w)
{
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, w->width, w->height, w->grid_cell), 0);
    assert_int_equal(grid_reserve(&g, w->n), 0);
    grid_build(&g, w->n, w->cur.x, w->cur.y);
    /* grid_runs reads cell_start, which grid_build filled. */
    uint32_t largest = 0;
    for (int cy = 0; cy < g.ny; cy++)
        for (int cx = 0; cx < g.nx; cx++) {
            grid_run_t runs[GRID_MAX_RUNS];
            bool pair_wrap;
            int n = grid_runs(&g, cx, cy, w->params.border == BORDER_WRAP, runs, &pair_wrap);
            uint32_t total = 0;
            for (int r = 0; r < n; r++) total += runs[r].end - runs[r].begin;
            if (total > largest) largest = total;
        }
    grid_free(&g);
    return largest;
}

static bool same_state(const world_t *a, const world_t *b)
{
    size_t f = a->n * sizeof(float);
    return a->n == b->n && !memcmp(a->cur.x, b->cur.x, f) && !memcmp(a->cur.y, b->cur.y, f) &&
           !memcmp(a->cur.vx, b->cur.vx, f) && !memcmp(a->cur.vy, b->cur.vy, f) &&
           !memcmp(a->cur.id, b->cur.id, a->n * sizeof(uint32_t)) && !memcmp(a->cur.flags, b->cur.flags, a->n);
}

/* Two worlds in lockstep: one with the cap exactly at the largest block of
 * each step (every block fits, the fullest just), one with the largest
 * cap. They must stay identical bit for bit. */
static void below_the_cap_results_should_be_identical_to_the_largest_cap(void **state)
{
    (void)state;
    static const char *const configs[][2] = {
        {"model", "0"}, {"model", "1"}, {"model", "3"}, {"model", "4"}, {"species", "2"},
        {"delay_ticks", "3"}, {"density_radii", "1"}, {"fov_ali", "120"},
    };
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        world_t at_cap, widest;
        make_world(&at_cap, 800, 800, 2500, 3);
        make_world(&widest, 800, 800, 2500, 3);
        set_param(&at_cap, configs[c][0], atof(configs[c][1]));
        set_param(&widest, configs[c][0], atof(configs[c][1]));
        if (!strcmp(configs[c][0], "delay_ticks")) { /* positions: the agent's own place in the span matters */
            set_param(&at_cap, "delay_mode", DELAY_POSITIONS);
            set_param(&widest, "delay_mode", DELAY_POSITIONS);
        }
        if (!strcmp(configs[c][0], "model") && strcmp(configs[c][1], "0") && strcmp(configs[c][1], "4")) {
            /* Olfati-Saber's cells follow its range r: at 50 u its blocks
             * are as full as the other models' 50 u zones make theirs. */
            set_param(&at_cap, "os_r", 50);
            set_param(&widest, "os_r", 50);
        }
        set_param(&widest, "max_candidates", 1024);
        uint32_t most = 0;
        for (int s = 0; s < 15; s++) {
            uint32_t largest = largest_block(&at_cap);
            /* Every block fits even Olfati-Saber's own bound, so that the cap decides. */
            assert_true(largest >= 16 && largest <= SIM_OLFATI_MAX_CANDIDATES);
            set_param(&at_cap, "max_candidates", largest);
            world_step(&at_cap);
            world_step(&widest);
            assert_true(same_state(&at_cap, &widest));
            if (largest > most) most = largest;
        }
        assert_true(most > 64); /* the fullest blocks were well above the cap's minimum */
        world_free(&at_cap);
        world_free(&widest);
    }
}

static void every_model_should_step_a_capped_crowd_with_bounded_work(void **state)
{
    (void)state;
    /* Settings "name=value …"; CORNER: the crowd straddles the wrapped
     * corner; TINY: a 90 x 90 u world (2 x 2 cells: pairs wrap one by one);
     * OBS: an obstacle on the crowd's edge. */
    static const char *const configs[] = {
        "model=0", "model=1", "model=2", "model=3 OBS", "model=4",
        "species=3", "species=2 model=1", "species=2 model=4",
        "delay_ticks=4", "delay_ticks=4 delay_mode=1", "delay_ticks=4 delay_mode=1 model=1",
        "delay_ticks=2 delay_mode=2 model=4", "density_radii=1", "ali_mode=1", "fov_sep=200 fov_coh=120",
        "leader_rule=1 predators=2", "w_wander=1", "border=1", "border=2",
        "CORNER", "CORNER model=1", "CORNER delay_ticks=3 delay_mode=1", "TINY", "TINY model=1",
        "TINY delay_ticks=3 delay_mode=1 species=2",
    };
    const int cap = 48;
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        const bool tiny = strstr(configs[c], "TINY") != NULL;
        world_t w;
        make_world(&w, tiny ? 90 : 1600, tiny ? 90 : 900, 3000, 4);
        set_param(&w, "max_candidates", cap);
        char words[200];
        snprintf(words, sizeof words, "%s", configs[c]);
        for (char *save = NULL, *t = strtok_r(words, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            if (!strcmp(t, "OBS")) {
                assert_int_equal(world_add_obstacle(&w, 820, 450, 15, NULL), SIM_OK);
            } else if (strcmp(t, "CORNER") && strcmp(t, "TINY")) {
                char *eq = strchr(t, '=');
                assert_non_null(eq);
                *eq = '\0';
                set_param(&w, t, atof(eq + 1));
            }
        }
        if (strstr(configs[c], "CORNER"))
            crowd(&w, -10, -10, 20, 30, -20);
        else
            crowd(&w, tiny ? 35 : 790, tiny ? 35 : 440, 20, 30, -20);
        for (int s = 0; s < 6; s++) {
            world_step(&w);
            assert_true(pairs_seen(&w) <= (double)w.n * cap);
            assert_true(pairs_seen(&w) > 0);
        }
        for (size_t i = 0; i < w.n; i++) {
            assert_true(isfinite(w.cur.x[i]) && isfinite(w.cur.y[i]));
            assert_true(isfinite(w.cur.vx[i]) && isfinite(w.cur.vy[i]));
            assert_true(w.cur.x[i] >= 0 && w.cur.x[i] <= w.width && w.cur.y[i] >= 0 && w.cur.y[i] <= w.height);
        }
        world_free(&w);
    }
}

/* The whole crowd in one cell, everyone within every zone of everyone,
 * seeing all around: an agent senses every candidate of the sample but
 * itself, so the pairs are exactly cap·(n − 1) (cap agents are in the
 * sample and leave themselves out; the others see all cap). With delayed
 * positions an agent's own entry is left out by its place, not by
 * distance: an agent the sample left out must not lose some other
 * candidate as "itself" (Olfati-Saber included). */
static void an_agent_left_out_of_the_sample_should_sense_all_of_it(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) { /* Reynolds, Olfati-Saber */
        world_t w;
        make_world(&w, 1000, 1000, 3000, 5);
        const int cap = 100;
        set_param(&w, "max_candidates", cap);
        set_param(&w, "fov_sep", 360);
        set_param(&w, "fov_ali", 360);
        set_param(&w, "fov_coh", 360);
        if (m == 1) {
            set_param(&w, "model", MODEL_OLFATI1);
            set_param(&w, "os_r", 50); /* its cells follow its range: as wide as the 50 u zones */
        }
        set_param(&w, "delay_ticks", 1);
        set_param(&w, "delay_mode", DELAY_POSITIONS);
        /* Cells of the 50 u zones plus the 2.5 u a neighbour may have flown
         * in the tick of delay; the crowd is inside cell (1, 1), at most
         * 28.3 u apart. */
        crowd(&w, 60, 60, 20, 0, 0);
        assert_float_equal(w.grid_cell, 52.5f, 1e-3f);
        world_step(&w); /* the history is the present: each agent's own entry is where it is */
        assert_true(pairs_seen(&w) == (double)cap * (double)(w.n - 1));
        world_free(&w);
    }
}

/* A crowd fills a few cells; the threads share its agents, cutting inside
 * cells. The results must not depend on where the cuts fall. */
static void a_capped_crowd_should_step_identically_on_one_two_and_three_threads(void **state)
{
    (void)state;
    static const char *const configs[][2] = {{"model", "0"}, {"delay_ticks", "3"}, {"model", "1"}, {"model", "4"}};
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        world_t w[3];
        for (int k = 0; k < 3; k++) {
            world_config_t cfg = {.width = 1600, .height = 900, .dt = 1.0f / 60, .seed = 8, .agents = 3000,
                                  .max_agents = 3000, .max_targets = 2, .threads = k + 1};
            assert_int_equal(world_init(&w[k], &cfg), 0);
            set_param(&w[k], configs[c][0], atof(configs[c][1]));
            set_param(&w[k], "delay_mode", DELAY_POSITIONS);
            set_param(&w[k], "max_candidates", 100);
            crowd(&w[k], 790, 440, 20, 30, -20);
            for (int s = 0; s < 8; s++) world_step(&w[k]);
        }
        /* The crowd was dense enough to be split: the last task saw pairs too. */
        assert_true(w[2].task_pairs[3 * 4 - 1] > 0);
        assert_true(same_state(&w[0], &w[1]));
        assert_true(same_state(&w[0], &w[2]));
        for (int k = 0; k < 3; k++) world_free(&w[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dense_crowd_should_sense_at_most_max_candidates_each_and_fewer_with_a_lower_cap),
        cmocka_unit_test(a_large_population_should_share_the_candidate_budget),
        cmocka_unit_test(olfati_saber_agents_should_sense_at_most_their_own_bound_whatever_the_cap),
        cmocka_unit_test(a_capped_crowd_should_still_push_apart_agents_inside_the_separation_radius),
        cmocka_unit_test(below_the_cap_results_should_be_identical_to_the_largest_cap),
        cmocka_unit_test(every_model_should_step_a_capped_crowd_with_bounded_work),
        cmocka_unit_test(an_agent_left_out_of_the_sample_should_sense_all_of_it),
        cmocka_unit_test(a_capped_crowd_should_step_identically_on_one_two_and_three_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

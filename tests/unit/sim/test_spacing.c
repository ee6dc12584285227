/* Spacing (issue 19): a target gathers the flock without crushing it, and
 * seed 001's potential function holds agents at its equilibrium distance.
 * Physics over whole runs, sized to take seconds. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/metrics.h"
#include "sim/prng.h"
#include "sim_fixtures.h"

/* The defaults' potential: U(d) = −A/d^m + B/d^n with A = 20000, B = 120000,
 * m = 1, n = 2, so (nB/mA)^(1/(n−m)) = 12 u. */
#define EQUILIBRIUM 12.0

static double equilibrium_of(const world_t *w)
{
    const sim_params_t *p = &w->params;
    return pow((double)p->pot_n * p->pot_b / ((double)p->pot_m * p->pot_a), 1.0 / (double)(p->pot_n - p->pot_m));
}

static void the_default_potential_should_have_its_equilibrium_at_12_u(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    assert_true(fabs(equilibrium_of(&w) - EQUILIBRIUM) < 1e-9);
    world_free(&w);
}

static void two_agents_alone_should_settle_at_the_potentials_equilibrium(void **state)
{
    (void)state;
    const float starts[] = {6.0f, 20.0f}; /* pushed apart, pulled together (the cut-off is 25 u) */
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
        world_t w;
        make_world(&w, 1000, 1000, 2, 3);
        set_param(&w, "separation", SEPARATION_POTENTIAL);
        /* Side by side, flying the same way: nothing but the pair's force
         * (and alignment, which they already satisfy) acts along the line
         * between them. */
        place(&w, 0, 500, 500, 100, 0);
        place(&w, 1, 500, 500 + starts[s], 100, 0);
        for (int t = 0; t < 60 * 60; t++) world_step(&w);
        const float d = distance_between(&w, 0, 1);
        print_message("from %.0f u apart: %.3f u after 60 s (equilibrium %.3f u)\n", starts[s], d, EQUILIBRIUM);
        assert_true(fabs(d - EQUILIBRIUM) < 0.01 * EQUILIBRIUM);
        world_free(&w);
    }
}

/* Mean nearest-neighbour distance and the closest pair, by brute force. */
static void spacing_of(const world_t *w, double *mean_nn, double *closest)
{
    double sum = 0.0, min_all = INFINITY;
    for (size_t i = 0; i < w->n; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < w->n; j++) {
            if (i == j) continue;
            double dx = w->cur.x[i] - w->cur.x[j], dy = w->cur.y[i] - w->cur.y[j];
            if (dx > 0.5 * w->width) dx -= w->width;
            if (dx < -0.5 * w->width) dx += w->width;
            if (dy > 0.5 * w->height) dy -= w->height;
            if (dy < -0.5 * w->height) dy += w->height;
            best = fmin(best, hypot(dx, dy));
        }
        sum += best;
        min_all = fmin(min_all, best);
    }
    *mean_nn = sum / (double)w->n;
    *closest = min_all;
}

static void a_group_under_the_potential_should_keep_near_its_equilibrium_and_no_pair_much_closer(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 64, 5);
    set_param(&w, "separation", SEPARATION_POTENTIAL);
    /* Packed 7 u apart on a jittered square, all flying east: the
     * potential must open the group out to about its equilibrium. */
    prng_t rng;
    prng_seed(&rng, 5, 1);
    for (uint32_t id = 0; id < 64; id++)
        place(&w, id, 1000.0f + 7.0f * (float)(id % 8) + prng_range(&rng, -1.0f, 1.0f),
              1000.0f + 7.0f * (float)(id / 8) + prng_range(&rng, -1.0f, 1.0f), 120.0f, 0.0f);
    double mean_nn = 0.0, closest = INFINITY;
    for (int t = 0; t < 60 * 40; t++) {
        world_step(&w);
        if (t >= 60 * 20 && t % 30 == 0) { /* once it has formed: every half second */
            double nn, c;
            spacing_of(&w, &nn, &c);
            closest = fmin(closest, c);
            mean_nn = nn;
        }
    }
    print_message("64 agents: mean nearest neighbour %.2f u, closest pair from 20 s on %.2f u (equilibrium %.1f u)\n",
                  mean_nn, closest, EQUILIBRIUM);
    /* Each agent feels every neighbour within the cut-off (25 u), not one:
     * the seed's m = 1 makes the attraction long-ranged (1/d²), and the sum
     * of the second ring's pulls holds a packed group at about two thirds
     * of a pair's distance (7.7 u here); never closer than half of it. */
    assert_true(mean_nn > 0.55 * EQUILIBRIUM && mean_nn < 1.1 * EQUILIBRIUM);
    assert_true(closest > 0.5 * EQUILIBRIUM);
    world_free(&w);
}

/* Runs a flock of n for seconds with the given targets (x, y pairs) and
 * returns its metrics at the end. */
static metrics_t run_flock(size_t n, int species, const float *targets, int n_targets, double seconds)
{
    world_t w;
    make_world(&w, 1000, 700, n, 9);
    if (species > 1) set_param(&w, "species", species);
    for (int k = 0; k < n_targets; k++)
        assert_int_equal(world_set_target(&w, (uint32_t)k + 1, targets[2 * k], targets[2 * k + 1]), SIM_OK);
    for (int t = 0; t < (int)(seconds * 60.0); t++) world_step(&w);
    metrics_state_t ms;
    metrics_init(&ms);
    metrics_config_t mc = metrics_default_config(&w);
    metrics_t m;
    assert_int_equal(metrics_compute(&ms, &w, &mc, &m), 0);
    metrics_free(&ms);
    world_free(&w);
    return m;
}

static void a_target_should_gather_the_flock_without_crushing_it(void **state)
{
    (void)state;
    const size_t n = 600;
    const float one[] = {500, 350}, two[] = {250, 350, 750, 350};
    const struct {
        const float *targets;
        int n_targets, species;
    } cases[] = {{one, 1, 1}, {two, 2, 1}, {two, 2, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const metrics_t free_flock = run_flock(n, cases[c].species, NULL, 0, 20.0);
        const metrics_t gathered = run_flock(n, cases[c].species, cases[c].targets, cases[c].n_targets, 20.0);
        const double ratio = gathered.mean_nn_distance / free_flock.mean_nn_distance;
        print_message("%d target(s), %d species: nearest neighbour %.2f u (free %.2f u, ratio %.2f), collisions %u, "
                      "milling %.2f\n",
                      cases[c].n_targets, cases[c].species, gathered.mean_nn_distance, free_flock.mean_nn_distance,
                      ratio, gathered.collisions, gathered.milling);
        assert_true(ratio >= 0.75);
        assert_true(gathered.collisions < 0.03 * (double)n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_default_potential_should_have_its_equilibrium_at_12_u),
        cmocka_unit_test(two_agents_alone_should_settle_at_the_potentials_equilibrium),
        cmocka_unit_test(a_group_under_the_potential_should_keep_near_its_equilibrium_and_no_pair_much_closer),
        cmocka_unit_test(a_target_should_gather_the_flock_without_crushing_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

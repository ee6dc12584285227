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

/* The spacing a at which a large hexagonal lattice under the potential is
 * at rest: each agent feels every neighbour within the cut-off r_c, so the
 * pressure vanishes when Σ_j F(d_j)·d_j = 0 over them (the virial), that is
 * Σ_j (nB/d_j^n − mA/d_j^m) = 0 with d_j = a·k_j:
 *   a^(n−m) = (nB/mA) · Σ k_j^−n / Σ k_j^−m.
 * Which shells k_j are within r_c depends on a, so it is found as a fixed
 * point (from the pair's distance inward). With the defaults the cut-off
 * (25 u) holds five shells, k = 1, √3, 2, √7, 3 (36 neighbours), and
 * a = 12 u · 0.625 = 7.50 u. */
static double lattice_spacing(const sim_params_t *p)
{
    const double m = p->pot_m, n = p->pot_n, cut = p->sep_radius;
    double a = pow(n * p->pot_b / (m * p->pot_a), 1.0 / (n - m));
    for (int round = 0; round < 50; round++) {
        double sum_n = 0.0, sum_m = 0.0;
        for (int i = -12; i <= 12; i++)
            for (int j = -12; j <= 12; j++) {
                const double k = hypot(i + 0.5 * j, 0.5 * sqrt(3.0) * j);
                if (k == 0.0 || a * k >= cut) continue;
                sum_n += pow(k, -n), sum_m += pow(k, -m);
            }
        a = pow(n * p->pot_b / (m * p->pot_a) * sum_n / sum_m, 1.0 / (n - m));
    }
    return a;
}

static void a_lattice_under_the_default_potential_should_rest_at_7_5_u(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    set_param(&w, "separation", SEPARATION_POTENTIAL);
    const double a = lattice_spacing(&w.params);
    print_message("hexagonal lattice at rest: %.3f u (the pair's %.1f u)\n", a, EQUILIBRIUM);
    assert_true(fabs(a - 7.504) < 0.01);
    world_free(&w);
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
    const double lattice = lattice_spacing(&w.params);
    print_message("64 agents: mean nearest neighbour %.2f u, closest pair from 20 s on %.2f u (lattice at rest %.2f u, "
                  "pair %.1f u)\n",
                  mean_nn, closest, lattice, EQUILIBRIUM);
    /* Each agent feels every neighbour within the cut-off (25 u), not one:
     * the seed's m = 1 makes the attraction long-ranged (1/d²), so the
     * outer shells' pulls hold a group at the lattice's spacing (7.50 u),
     * not the pair's (12 u). 64 agents have an edge, whose agents are
     * pulled by fewer, so they sit a little wider (7.7 u). */
    assert_true(fabs(mean_nn - lattice) < 0.06 * lattice);
    assert_true(closest > 0.85 * lattice);
    world_free(&w);
}

/* Two agents at rest 5 u apart, inside personal_space: after one step each
 * moves away from the other faster than max_force allows in a tick (the
 * contact's own budget), and with personal_space 0 no faster. */
static void a_pair_inside_personal_space_should_be_pushed_apart_past_max_force(void **state)
{
    (void)state;
    const float spaces[] = {14.0f, 0.0f};
    for (size_t s = 0; s < 2; s++) {
        world_t w;
        make_world(&w, 1000, 1000, 2, 3);
        set_param(&w, "personal_space", spaces[s]);
        place(&w, 0, 500, 500, 0, 0);
        place(&w, 1, 505, 500, 0, 0);
        world_step(&w);
        const float max_dv = w.params.max_force * w.dt;
        const size_t i = index_of(&w, 0), j = index_of(&w, 1);
        print_message("personal_space %.0f: velocities %.1f and %.1f u/s after one tick (max_force·dt %.1f u/s)\n",
                      (double)spaces[s], (double)w.cur.vx[i], (double)w.cur.vx[j], (double)max_dv);
        assert_true(w.cur.vx[i] < 0.0f && w.cur.vx[j] > 0.0f); /* apart */
        if (spaces[s] > 0.0f)
            assert_true(-w.cur.vx[i] > 2.0f * max_dv && w.cur.vx[j] > 2.0f * max_dv);
        else
            assert_true(-w.cur.vx[i] <= max_dv * 1.0001f && w.cur.vx[j] <= max_dv * 1.0001f);
        world_free(&w);
    }
}

/* A crowd as dense as 3,000 agents in the default 1600 × 900 world (one
 * per 480 u²), started at random: the contacts keep it apart without
 * shaking its order (inelastic: a pushed agent matches its neighbours'
 * velocity), so it flies as one flock, with no pair closer than 2 u. */
static void a_dense_free_flock_should_order_and_keep_its_spacing(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 540, 540, 600, 11);
    for (int t = 0; t < 60 * 40; t++) world_step(&w);
    metrics_state_t ms;
    metrics_init(&ms);
    metrics_config_t mc = metrics_default_config(&w);
    metrics_t m;
    assert_int_equal(metrics_compute(&ms, &w, &mc, &m), 0);
    metrics_free(&ms);
    print_message("600 agents in 540 x 540 u after 40 s: polarization %.3f, nearest neighbour %.2f u, collisions %u, "
                  "oscillation %.2f rad/s\n",
                  m.polarization, m.mean_nn_distance, m.collisions, m.oscillation);
    assert_true(m.polarization > 0.9);
    assert_int_equal(m.collisions, 0);
    world_free(&w);
}

/* Runs a flock of n for seconds with the given targets (x, y pairs) and
 * returns its metrics at the end. */
static metrics_t run_flock(size_t n, int model, int species, const float *targets, int n_targets, double seconds)
{
    world_t w;
    make_world(&w, 1000, 700, n, 9);
    set_param(&w, "model", model);
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
    /* Issue 19 asks for 0.75 of the free spacing; the steering rules keep
     * 0.85 or more (0.93-0.97 here), the unicycle, which cannot brake, 0.75. */
    const struct {
        const float *targets;
        int n_targets, species, model;
        double least;
    } cases[] = {{one, 1, 1, MODEL_REYNOLDS, 0.85},
                 {two, 2, 1, MODEL_REYNOLDS, 0.85},
                 {two, 2, 3, MODEL_REYNOLDS, 0.85},
                 {one, 1, 1, MODEL_UNICYCLE, 0.75}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const metrics_t free_flock = run_flock(n, cases[c].model, cases[c].species, NULL, 0, 20.0);
        const metrics_t gathered =
            run_flock(n, cases[c].model, cases[c].species, cases[c].targets, cases[c].n_targets, 20.0);
        const double ratio = gathered.mean_nn_distance / free_flock.mean_nn_distance;
        print_message("%s, %d target(s), %d species: nearest neighbour %.2f u (free %.2f u, ratio %.2f), "
                      "collisions %u, milling %.2f\n",
                      cases[c].model == MODEL_UNICYCLE ? "unicycle" : "reynolds", cases[c].n_targets, cases[c].species,
                      gathered.mean_nn_distance, free_flock.mean_nn_distance, ratio, gathered.collisions,
                      gathered.milling);
        assert_true(ratio >= cases[c].least);
        assert_true(gathered.collisions < 0.03 * (double)n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_default_potential_should_have_its_equilibrium_at_12_u),
        cmocka_unit_test(two_agents_alone_should_settle_at_the_potentials_equilibrium),
        cmocka_unit_test(a_lattice_under_the_default_potential_should_rest_at_7_5_u),
        cmocka_unit_test(a_group_under_the_potential_should_keep_near_its_equilibrium_and_no_pair_much_closer),
        cmocka_unit_test(a_pair_inside_personal_space_should_be_pushed_apart_past_max_force),
        cmocka_unit_test(a_dense_free_flock_should_order_and_keep_its_spacing),
        cmocka_unit_test(a_target_should_gather_the_flock_without_crushing_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* target_index: the nearest target found through the index is the one a
 * scan of the whole table finds (the same displacement, bit for bit, and
 * the first in table order among the equally near), in bounded and wrapped
 * worlds, with ties, targets on edges and outside the world. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/motion.h"
#include "sim/prng.h"
#include "sim/target_index.h"
#include "sim/world.h"

#define MAX_TARGETS 600

/* The scan the index stands for, written out here. */
static long scan(const target_t *t, size_t n, float px, float py, float W, float H, bool wrap, float *dx_out,
                 float *dy_out)
{
    float best = INFINITY;
    long found = -1;
    for (size_t k = 0; k < n; k++) {
        float dx = t[k].x - px, dy = t[k].y - py;
        if (wrap) dx = motion_wrap_delta(dx, W), dy = motion_wrap_delta(dy, H);
        float d2 = dx * dx + dy * dy;
        if (d2 < best) best = d2, found = (long)k, *dx_out = dx, *dy_out = dy;
    }
    return found;
}

/* One question to a fresh index of t. */
static long ask(const target_t *t, size_t n, float W, float H, bool wrap, float px, float py, float *dx, float *dy)
{
    target_index_t index;
    assert_int_equal(target_index_init(&index, n), 0);
    target_index_build(&index, t, n, W, H, wrap);
    size_t budget = (size_t)-1;
    const long k = target_index_nearest(&index, t, px, py, dx, dy, &budget);
    target_index_free(&index);
    return k;
}

/* Asks both about many points (inside, on the edges) and compares. */
static void compare(const target_t *t, size_t n, float W, float H, bool wrap, uint64_t seed)
{
    target_index_t index;
    assert_int_equal(target_index_init(&index, MAX_TARGETS), 0);
    target_index_build(&index, t, n, W, H, wrap);
    assert_true(index.valid);
    prng_t rng;
    prng_seed(&rng, (uint32_t)seed, 7);
    for (int q = 0; q < 4000; q++) {
        float px = prng_range(&rng, 0.0f, W), py = prng_range(&rng, 0.0f, H);
        if (q % 10 == 1) px = 0.0f;                    /* on the edges */
        if (q % 10 == 2) py = nextafterf(H, 0.0f);
        if (q % 10 == 3) px = t[q % n].x, py = t[q % n].y; /* on a target */
        if (!target_index_covers(&index, px, py)) continue;
        float sx = 0, sy = 0, ix = 0, iy = 0;
        long want = scan(t, n, px, py, W, H, wrap, &sx, &sy);
        size_t budget = (size_t)-1;
        long got = target_index_nearest(&index, t, px, py, &ix, &iy, &budget);
        assert_int_equal(got, want);
        assert_memory_equal(&ix, &sx, sizeof ix);
        assert_memory_equal(&iy, &sy, sizeof iy);
    }
    target_index_free(&index);
}

static void targets_at_random(target_t *t, size_t n, float W, float H, uint32_t seed)
{
    prng_t rng;
    prng_seed(&rng, seed, 3);
    memset(t, 0, n * sizeof *t);
    for (size_t k = 0; k < n; k++) t[k].x = prng_range(&rng, 0.0f, W), t[k].y = prng_range(&rng, 0.0f, H);
}

static void the_index_should_find_what_a_scan_finds(void **state)
{
    (void)state;
    static target_t t[MAX_TARGETS];
    const size_t counts[] = {TARGET_INDEX_FROM, 64, 512};
    const float sizes[][2] = {{1600, 900}, {400, 4000}, {50, 50}};
    for (size_t c = 0; c < 3; c++)
        for (size_t s = 0; s < 3; s++)
            for (int wrap = 0; wrap < 2; wrap++) {
                targets_at_random(t, counts[c], sizes[s][0], sizes[s][1], (uint32_t)(c * 10 + s));
                compare(t, counts[c], sizes[s][0], sizes[s][1], wrap, c * 100 + s * 10 + (uint64_t)wrap);
            }
}

static void ties_should_go_to_the_first_in_the_table(void **state)
{
    (void)state;
    static target_t t[64];
    memset(t, 0, sizeof t);
    /* Pairs at the very same place, and rings of targets equally far
     * (exactly, in float) from the points asked about. */
    for (size_t k = 0; k < 64; k++) {
        const float x = (float)(100 * (k % 8) + 50), y = (float)(100 * ((k / 2) % 8) + 50);
        t[k].x = x, t[k].y = y;
    }
    compare(t, 64, 800, 800, false, 1);
    compare(t, 64, 800, 800, true, 2);
    float dx, dy, sx, sy;
    /* (100, 100) is as far from (50, 50), (150, 50), (50, 150), (150, 150). */
    const long k = ask(t, 64, 800, 800, false, 100.0f, 100.0f, &dx, &dy);
    assert_int_equal(k, scan(t, 64, 100.0f, 100.0f, 800, 800, false, &sx, &sy));
    assert_int_equal(k, 0);
}

static void wrapped_worlds_should_find_targets_across_the_edge(void **state)
{
    (void)state;
    static target_t t[32];
    targets_at_random(t, 32, 1000, 1000, 9);
    for (size_t k = 0; k < 32; k++) t[k].x = 400 + (float)k, t[k].y = 500; /* all in the middle */
    t[31].x = 995, t[31].y = 2;                                            /* but one in a corner */
    float dx, dy;
    assert_int_equal(ask(t, 32, 1000, 1000, true, 3.0f, 997.0f, &dx, &dy), 31); /* across the corner */
    assert_true(dx < 0.0f && dy > 0.0f && dx * dx + dy * dy < 100.0f);
    assert_int_equal(ask(t, 32, 1000, 1000, false, 3.0f, 997.0f, &dx, &dy), 0); /* bounded: the middle's first */
    compare(t, 32, 1000, 1000, true, 5);
}

static void targets_outside_the_world_should_still_be_found(void **state)
{
    (void)state;
    static target_t t[40];
    targets_at_random(t, 40, 1600, 900, 4);
    t[5].x = -30, t[5].y = 10;          /* off the left edge */
    t[17].x = 1600, t[17].y = 900;      /* on the far corner: outside [0, W) */
    t[23].x = NAN, t[23].y = 10;        /* never anyone's nearest */
    t[30].x = 5000, t[30].y = -4000;    /* far away */
    compare(t, 40, 1600, 900, false, 6);
    compare(t, 40, 1600, 900, true, 7);
    float dx, dy;
    assert_int_equal(ask(t, 40, 1600, 900, false, 1.0f, 10.0f, &dx, &dy), 5);
}

static void few_targets_should_leave_the_index_to_a_scan(void **state)
{
    (void)state;
    static target_t t[TARGET_INDEX_FROM];
    targets_at_random(t, TARGET_INDEX_FROM, 100, 100, 1);
    target_index_t index;
    assert_int_equal(target_index_init(&index, TARGET_INDEX_FROM), 0);
    target_index_build(&index, t, TARGET_INDEX_FROM - 1, 100, 100, false);
    assert_false(index.valid);
    assert_false(target_index_covers(&index, 50, 50));
    target_index_build(&index, t, TARGET_INDEX_FROM, 100, 100, false);
    assert_true(target_index_covers(&index, 50, 50));
    assert_false(target_index_covers(&index, 100, 50)); /* outside the world: callers scan */
    target_index_free(&index);
}

static void a_ring_of_equally_far_targets_should_exhaust_the_budget(void **state)
{
    (void)state;
    static target_t t[64];
    memset(t, 0, sizeof t);
    for (size_t k = 0; k < 64; k++) {
        const float a = 6.28318531f * (float)k / 64.0f;
        t[k].x = 500.0f + 200.0f * cosf(a), t[k].y = 500.0f + 200.0f * sinf(a);
    }
    target_index_t index;
    assert_int_equal(target_index_init(&index, 64), 0);
    target_index_build(&index, t, 64, 1000, 1000, false);
    float dx, dy;
    size_t budget = 20;
    assert_int_equal(target_index_nearest(&index, t, 500.0f, 500.0f, &dx, &dy, &budget), TARGET_INDEX_GAVE_UP);
    assert_int_equal(budget, 0);
    budget = 100000;
    assert_true(target_index_nearest(&index, t, 500.0f, 500.0f, &dx, &dy, &budget) >= 0);
    assert_true(budget < 100000 - 64); /* it looked at every target */
    budget = 100000;
    assert_true(target_index_nearest(&index, t, 700.0f, 500.0f, &dx, &dy, &budget) == 0); /* on one */
    assert_true(budget > 100000 - 64);                                                   /* far fewer */
    target_index_free(&index);
}

/* In a world: a step with many targets (the index in use) moves every
 * agent as a step whose look-ups scan (a world of one thread, the same
 * targets; the index is switched off by leaving it unbuilt). */
static void a_world_should_step_the_same_with_the_index(void **state)
{
    (void)state;
    world_config_t cfg = {.width = 800, .height = 600, .dt = 1.0f / 60.0f, .seed = 3, .agents = 2000,
                          .max_agents = 2000, .max_targets = 200, .threads = 1};
    for (int model = 0; model <= 5; model++) {
        world_t a, b;
        assert_int_equal(world_init(&a, &cfg), 0);
        cfg.max_targets = TARGET_INDEX_FROM - 1; /* b never builds an index */
        assert_int_equal(world_init(&b, &cfg), 0);
        cfg.max_targets = 200;
        free(b.targets);
        b.targets = calloc(200, sizeof *b.targets);
        b.max_targets = 200;
        char msg[160];
        world_set_param(&a, (size_t)params_find("model"), model, msg, sizeof msg);
        world_set_param(&b, (size_t)params_find("model"), model, msg, sizeof msg);
        for (uint32_t k = 0; k < 200; k++) {
            float x = 800.0f * prng_hash_unit(5, 0, k, 0), y = 600.0f * prng_hash_unit(5, 1, k, 0);
            if (k >= 100) /* half on a ring, where look-ups give up and scan */
                x = 400.0f + 250.0f * cosf(0.0628f * (float)k), y = 300.0f + 250.0f * sinf(0.0628f * (float)k);
            assert_int_equal(world_set_target(&a, k + 1, x, y), SIM_OK);
            assert_int_equal(world_set_target(&b, k + 1, x, y), SIM_OK);
        }
        for (int s = 0; s < 5; s++) world_step(&a), world_step(&b);
        assert_false(b.target_index.valid);
        assert_memory_equal(a.cur.x, b.cur.x, a.n * sizeof(float));
        assert_memory_equal(a.cur.vy, b.cur.vy, a.n * sizeof(float));
        assert_memory_equal(a.cur.flags, b.cur.flags, a.n);
        world_free(&a);
        world_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_index_should_find_what_a_scan_finds),
        cmocka_unit_test(ties_should_go_to_the_first_in_the_table),
        cmocka_unit_test(wrapped_worlds_should_find_targets_across_the_edge),
        cmocka_unit_test(targets_outside_the_world_should_still_be_found),
        cmocka_unit_test(few_targets_should_leave_the_index_to_a_scan),
        cmocka_unit_test(a_ring_of_equally_far_targets_should_exhaust_the_budget),
        cmocka_unit_test(a_world_should_step_the_same_with_the_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

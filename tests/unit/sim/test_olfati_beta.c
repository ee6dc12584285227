/* Olfati-Saber's β-agents (sim/olfati_beta.c): the lane code a step runs
 * gives the same bits as the one-by-one reference, over a lattice of
 * obstacles of many sizes (in reach and out of it, a vector's tail, the
 * world wrapping or not) and at the edge of the reach, where the early
 * rejection must not drop an obstacle the exact test keeps. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/motion.h"
#include "sim/olfati_beta.h"
#include "sim_fixtures.h"

#define SIDE 200.0f

/* Both ways for one agent; fails unless they are the same bits. Returns
 * whether the share is nonzero (some obstacle in reach). */
static bool same_both_ways(world_t *w, const olfati_consts_t *k, float px, float py, float vx, float vy)
{
    w->places.valid = false;
    const vec2 ref = olfati_beta_feedback_one_by_one(w, k, px, py, vx, vy);
    const vec2 alone = olfati_beta_feedback(w, k, px, py, vx, vy); /* outside a step: one by one too */
    motion_copy_places(w);
    const vec2 lanes = olfati_beta_feedback(w, k, px, py, vx, vy);
    w->places.valid = false;
    if (memcmp(&ref, &lanes, sizeof ref) || memcmp(&ref, &alone, sizeof ref))
        fail_msg("agent (%.9g, %.9g) v (%.9g, %.9g): one by one (%.9g, %.9g), lanes (%.9g, %.9g)", (double)px,
                 (double)py, (double)vx, (double)vy, (double)ref.x, (double)ref.y, (double)lanes.x, (double)lanes.y);
    return ref.x != 0.0f || ref.y != 0.0f;
}

/* 7 x 9 = 63 obstacles 25 u apart (the last vector not full), radii 3 to
 * 19 u, some over the world's edge; agents on a grid over the whole world
 * and on every centre, at speeds and headings that vary. */
static void the_lanes_should_give_the_bits_of_the_one_by_one_loop_over_a_lattice(void **state)
{
    (void)state;
    static const int borders[] = {BORDER_WRAP, BORDER_BOUNCE};
    for (size_t bi = 0; bi < sizeof borders / sizeof borders[0]; bi++) {
        world_t w;
        make_world(&w, SIDE, SIDE, 1, 1);
        w.params.border = borders[bi];
        for (int k = 0; k < 63; k++)
            assert_int_equal(world_add_obstacle(&w, 2.0f + 25.0f * (float)(k % 7) + 0.37f * (float)k,
                                                5.0f + 25.0f * (float)(k / 7), 3.0f + 4.0f * (float)(k % 5), NULL),
                             0);
        const olfati_consts_t k = olfati_consts(&w.params);
        int cases = 0, nonzero = 0;
        for (float y = -3.0f; y < SIDE + 3.0f; y += 1.37f)
            for (float x = -3.0f; x < SIDE + 3.0f; x += 1.61f, cases++) {
                const float heading = 0.7f * x + 1.3f * y, speed = 0.5f + fmodf(x * y, 40.0f);
                nonzero += same_both_ways(&w, &k, x, y, speed * cosf(heading), speed * sinf(heading));
            }
        for (size_t o = 0; o < w.n_obstacles; o++, cases++) /* at a centre: no direction, no β-agent */
            nonzero += same_both_ways(&w, &k, w.obstacles[o].x, w.obstacles[o].y, 3.0f, -2.0f);
        print_message("beta lanes (border %d): %d agents, %d with a share\n", borders[bi], cases, nonzero);
        /* Both kinds of place were seen: in reach of some obstacle, and of none. */
        assert_true(nonzero > cases / 2);
        assert_true(nonzero < cases);
        world_free(&w);
    }
}

/* One obstacle, agents at distances from its centre a few ulps either
 * side of R + r_β and R − r_β (where the surface leaves the reach): the
 * early rejection keeps every obstacle the exact test keeps. With d_β
 * beyond r_β, so that the bump is not yet 0 where the reach ends (with the
 * defaults, d_β < r_β, every share is 0 from d_β on). */
static void the_early_rejection_should_keep_every_obstacle_at_the_edge_of_the_reach(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, SIDE, SIDE, 1, 1);
    w.params.border = BORDER_BOUNCE;
    w.params.os_d_beta = 2.0f * w.params.os_r_beta;
    const float cx = 100.0f, cy = 100.0f, R = 40.0f;
    assert_int_equal(world_add_obstacle(&w, cx, cy, R, NULL), 0);
    const olfati_consts_t k = olfati_consts(&w.params);
    const float reach = w.params.os_r_beta;
    int inside = 0, outside = 0;
    for (int edge = 0; edge < 2; edge++) {
        const float d0 = edge ? R + reach : R - reach;
        for (int a = 0; a < 16; a++) {
            const float ux = cosf(0.39f * (float)a), uy = sinf(0.39f * (float)a);
            float d = d0;
            for (int s = 0; s < 64; s++) d = nextafterf(d, 0.0f); /* 64 ulps in */
            for (int s = 0; s < 128; s++, d = nextafterf(d, INFINITY)) {
                if (same_both_ways(&w, &k, cx + d * ux, cy + d * uy, 1.0f, 0.5f))
                    inside++;
                else
                    outside++;
            }
        }
    }
    print_message("beta edge: %d in reach, %d out\n", inside, outside);
    assert_true(inside > 0 && outside > 0);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_lanes_should_give_the_bits_of_the_one_by_one_loop_over_a_lattice),
        cmocka_unit_test(the_early_rejection_should_keep_every_obstacle_at_the_edge_of_the_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Olfati-Saber's β-agents (sim/olfati_beta.c): the lane code a step runs
 * gives the same bits as the one-by-one reference, over a lattice of
 * obstacles of many sizes (in reach and out of it, a vector's tail, the
 * world wrapping or not) and at the edge of the reach, where the early
 * rejection must not drop an obstacle the exact test keeps; and both stay
 * within OLFATI_BETA_ERROR of the paper's formulas in double precision. */
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
#define PI 3.14159265358979323846

/* The share in double with libm (the paper's formulas as olfati.c gives
 * them: the one-by-one loop before it was made cheaper), over the obstacles
 * the kernel takes in reach (the same float distance and test), and the sum
 * of the terms' sizes the bound is relative to. */
typedef struct beta_reference {
    double x, y, size;
} beta_reference_t;

static double exact_bump(double u, double h)
{
    if (u < h) return u >= 0.0 ? 1.0 : 0.0;
    if (u >= 1.0) return 0.0;
    return 0.5 * (1.0 + cos(PI * (u - h) / (1.0 - h)));
}

static beta_reference_t beta_reference(const world_t *w, float px, float py, float vx, float vy)
{
    const sim_params_t *p = &w->params;
    const double eps = p->os_eps, h = p->os_h_beta, c1 = p->os_c1_beta, c2 = p->os_c2_beta;
    const double d_sigma = (sqrt(1.0 + eps * p->os_d_beta * p->os_d_beta) - 1.0) / eps;
    const float r_beta2 = p->os_r_beta * p->os_r_beta;
    beta_reference_t ref = {0};
    for (size_t o = 0; o < w->n_obstacles; o++) {
        const obstacle_t *ob = &w->obstacles[o];
        float fx = px - ob->x, fy = py - ob->y;
        if (p->border == BORDER_WRAP) fx = motion_wrap_delta(fx, w->width), fy = motion_wrap_delta(fy, w->height);
        const float d2 = fx * fx + fy * fy, fgap = ob->r - sqrtf(d2);
        if (!(d2 > 0.0f) || !(fgap * fgap < r_beta2)) continue;
        const double qx = fx, qy = fy, dist = sqrt(qx * qx + qy * qy), R = ob->r;
        const double ax = qx / dist, ay = qy / dist, mu = R / dist;
        const double hx = (R - dist) * ax, hy = (R - dist) * ay, h2 = hx * hx + hy * hy;
        const double along = vx * ax + vy * ay, phx = mu * (vx - along * ax), phy = mu * (vy - along * ay);
        const double root = sqrt(1.0 + eps * h2), z = (root - 1.0) / eps, b = exact_bump(z / d_sigma, h);
        const double s = z - d_sigma, phi = b * (s / sqrt(1.0 + s * s) - 1.0);
        ref.x += c1 * phi * hx / root + c2 * b * (phx - vx);
        ref.y += c1 * phi * hy / root + c2 * b * (phy - vy);
        /* what an error of φβ (at most 2 in size) or b (at most 1) of its own order moves the term by */
        ref.size += 2.0 * c1 * sqrt(h2) / root + c2 * (fabs(phx - vx) + fabs(phy - vy));
    }
    return ref;
}

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

/* The lattice of the first test (both borders), at the default parameters
 * and at the ends of their ranges: the largest error, relative to the
 * terms' sizes, is at most OLFATI_BETA_ERROR. */
static void the_share_should_stay_within_its_bound_of_the_exact_one(void **state)
{
    (void)state;
    /* ε, d', r', h_β, c1β, c2β */
    static const float sets[][6] = {
        {0.1f, 15.0f, 18.0f, 0.9f, 100.0f, 20.0f},  /* the defaults */
        {0.001f, 15.0f, 18.0f, 0.0f, 1000.0f, 1000.0f},
        {1.0f, 30.0f, 12.0f, 0.99f, 1.0f, 0.0f},    /* d' beyond r': the bump alive at the reach's edge */
        {0.3f, 2.0f, 240.0f, 0.5f, 10.0f, 1000.0f}, /* every obstacle in reach */
        {0.01f, 200.0f, 40.0f, 0.2f, 100.0f, 20.0f},
    };
    double worst = 0.0;
    int terms = 0;
    for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++)
        for (int border = 0; border < 2; border++) {
            world_t w;
            make_world(&w, SIDE, SIDE, 1, 1);
            w.params.border = border ? BORDER_WRAP : BORDER_BOUNCE;
            w.params.os_eps = sets[si][0], w.params.os_d_beta = sets[si][1], w.params.os_r_beta = sets[si][2];
            w.params.os_h_beta = sets[si][3], w.params.os_c1_beta = sets[si][4], w.params.os_c2_beta = sets[si][5];
            for (int k = 0; k < 63; k++)
                assert_int_equal(world_add_obstacle(&w, 2.0f + 25.0f * (float)(k % 7) + 0.37f * (float)k,
                                                    5.0f + 25.0f * (float)(k / 7), 3.0f + 4.0f * (float)(k % 5), NULL),
                                 0);
            const olfati_consts_t k = olfati_consts(&w.params);
            motion_copy_places(&w);
            for (float y = -3.0f; y < SIDE + 3.0f; y += 2.37f)
                for (float x = -3.0f; x < SIDE + 3.0f; x += 2.61f) {
                    const float heading = 0.7f * x + 1.3f * y, speed = 0.5f + fmodf(x * y, 150.0f);
                    const float vx = speed * cosf(heading), vy = speed * sinf(heading);
                    const vec2 u = olfati_beta_feedback(&w, &k, x, y, vx, vy);
                    const beta_reference_t ref = beta_reference(&w, x, y, vx, vy);
                    if (ref.size == 0.0) {
                        assert_true(u.x == 0.0f && u.y == 0.0f);
                        continue;
                    }
                    terms++;
                    worst = fmax(worst, fmax(fabs(u.x - ref.x), fabs(u.y - ref.y)) / ref.size);
                }
            w.places.valid = false;
            world_free(&w);
        }
    print_message("beta share: %d agents with one, largest error %.3g, bound %.3g\n", terms, worst, OLFATI_BETA_ERROR);
    assert_true(terms > 1000);
    assert_true(worst <= OLFATI_BETA_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_share_should_stay_within_its_bound_of_the_exact_one),
        cmocka_unit_test(the_lanes_should_give_the_bits_of_the_one_by_one_loop_over_a_lattice),
        cmocka_unit_test(the_early_rejection_should_keep_every_obstacle_at_the_edge_of_the_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* inspect: the neighbours a viewer is shown for a selected agent are the
 * model's zones (radius and field of view), and the steering parts point
 * the way the rules push. The reference here is independent: double
 * precision, angles by atan2, no squared-cosine trick. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sim/inspect.h"
#include "sim_fixtures.h"

/* Whether (x, y) is among the first `listed` positions of zone z. */
static bool listed_at(const inspect_t *in, int z, double x, double y)
{
    for (size_t k = 0; k < in->listed[z]; k++)
        if (fabs(in->pos[z][k][0] - x) < 1e-3 && fabs(in->pos[z][k][1] - y) < 1e-3) return true;
    return false;
}

/* Angle between the agent's velocity and the displacement, in degrees. */
static double angle_deg(double vx, double vy, double dx, double dy)
{
    double a = fabs(atan2(vx * dy - vy * dx, vx * dx + vy * dy));
    return a * 180.0 / M_PI;
}

static void inspected_neighbours_should_be_exactly_the_agents_in_each_zone_radius_and_view(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 400, 400, 300, 11);
    set_param(&w, "border", 1); /* bounce: no wrapped displacements in the reference */
    set_param(&w, "sep_radius", 25);
    set_param(&w, "ali_radius", 45);
    set_param(&w, "coh_radius", 60);
    set_param(&w, "fov_sep", 300);
    set_param(&w, "fov_ali", 240);
    set_param(&w, "fov_coh", 160);
    const double radius[3] = {25, 45, 60}, fov[3] = {300, 240, 160};
    size_t checked_in[3] = {0}, checked_out = 0;
    for (size_t i = 0; i < 40; i++) {
        inspect_t in;
        inspect_agent(&w, i, &in);
        for (int z = 0; z < 3; z++) {
            size_t expected = 0;
            for (size_t j = 0; j < w.n; j++) {
                if (j == i) continue;
                double dx = (double)w.cur.x[j] - w.cur.x[i], dy = (double)w.cur.y[j] - w.cur.y[i];
                double d = hypot(dx, dy);
                bool inside = d > 0 && d < radius[z] && angle_deg(w.cur.vx[i], w.cur.vy[i], dx, dy) <= fov[z] / 2;
                assert_true(in.listed[z] == in.count[z]); /* few enough to list them all */
                if (inside) {
                    expected++;
                    checked_in[z]++;
                    if (!listed_at(&in, z, w.cur.x[j], w.cur.y[j]))
                        fail_msg("agent %zu: %zu (at %.1f u, %.0f deg) missing from zone %d", i, j, d,
                                 angle_deg(w.cur.vx[i], w.cur.vy[i], dx, dy), z);
                } else if (d < radius[z]) {
                    checked_out++; /* near but behind: must not be listed */
                    assert_false(listed_at(&in, z, w.cur.x[j], w.cur.y[j]));
                }
            }
            assert_int_equal(in.count[z], expected);
        }
    }
    /* The sample exercised every zone, and the blind angles. */
    for (int z = 0; z < 3; z++) assert_true(checked_in[z] > 10);
    assert_true(checked_out > 10);
    world_free(&w);
}

static void the_separation_steering_should_point_away_from_a_close_neighbour(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    place(&w, 0, 500, 500, 0, 100); /* flying up (+y) */
    place(&w, 1, 510, 505, 0, 100); /* close, to its right and a little ahead */
    inspect_t in;
    inspect_agent(&w, 0, &in);
    assert_int_equal(in.count[INSPECT_SEP], 1);
    assert_true(in.has_steering);
    const float *s = in.steer[INSPECT_SEP];
    /* Away: negative dot product with the displacement to the neighbour. */
    assert_true(s[0] * 10.0f + s[1] * 5.0f < 0.0f);
    assert_true(s[0] < 0.0f);
    /* Cohesion pulls the other way, toward it. */
    const float *c = in.steer[INSPECT_COH];
    assert_true(c[0] * 10.0f + c[1] * 5.0f > 0.0f);
    world_free(&w);
}

static void a_rule_switched_off_should_show_no_steering_of_its_own(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    place(&w, 0, 500, 500, 0, 100);
    place(&w, 1, 510, 505, 0, 100);
    set_param(&w, "rule_sep", 0);
    inspect_t in;
    inspect_agent(&w, 0, &in);
    assert_int_equal(in.count[INSPECT_SEP], 1); /* still in the zone … */
    assert_true(in.steer[INSPECT_SEP][0] == 0.0f && in.steer[INSPECT_SEP][1] == 0.0f); /* … but no push */
    world_free(&w);
}

static void a_point_should_pick_the_nearest_agent_within_the_pick_radius(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 3, 1);
    place(&w, 0, 100, 100, 1, 0);
    place(&w, 1, 110, 100, 1, 0);
    place(&w, 2, 500, 500, 1, 0);
    assert_int_equal(inspect_pick(&w, 107, 101, INSPECT_PICK_RADIUS), 1);
    assert_int_equal(inspect_pick(&w, 103, 100, INSPECT_PICK_RADIUS), 0);
    assert_int_equal(inspect_pick(&w, 300, 300, INSPECT_PICK_RADIUS), -1);
    assert_int_equal(inspect_find(&w, 2), 2);
    assert_int_equal(inspect_find(&w, 9), -1);
    world_free(&w);
}

/* With staggered steering the inspection says when the agent next steers:
 * steers_in 0 exactly on the steps where it senses and turns, and it
 * counts down between them (the agent stays in its row of cells here). */
static void steers_in_should_say_when_the_agent_next_turns(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 3, 4);
    /* Agent 0 flies along x across its two neighbours' path, near enough
     * that every steer turns it. */
    place(&w, 0, 500, 500, 60, 0);
    place(&w, 1, 510, 505, -40, 50);
    place(&w, 2, 495, 512, 0, -70);
    inspect_t in;
    inspect_agent(&w, index_of(&w, 0), &in);
    assert_int_equal(in.steer_every, 1);
    assert_int_equal(in.steers_in, 0);
    set_param(&w, "steer_every", 3);
    int steered = 0;
    uint32_t last = 0;
    for (int t = 0; t < 12; t++) {
        size_t i = index_of(&w, 0);
        inspect_agent(&w, i, &in);
        assert_int_equal(in.steer_every, 3);
        assert_true(in.steers_in < 3);
        if (t > 0 && last > 0) assert_int_equal(in.steers_in, last - 1);
        last = in.steers_in;
        const float vx = w.cur.vx[i], vy = w.cur.vy[i];
        world_step(&w);
        i = index_of(&w, 0);
        const bool turned = w.cur.vx[i] != vx || w.cur.vy[i] != vy;
        assert_int_equal(turned, in.steers_in == 0);
        steered += turned;
    }
    assert_int_equal(steered, 4);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inspected_neighbours_should_be_exactly_the_agents_in_each_zone_radius_and_view),
        cmocka_unit_test(the_separation_steering_should_point_away_from_a_close_neighbour),
        cmocka_unit_test(a_rule_switched_off_should_show_no_steering_of_its_own),
        cmocka_unit_test(a_point_should_pick_the_nearest_agent_within_the_pick_radius),
        cmocka_unit_test(steers_in_should_say_when_the_agent_next_turns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

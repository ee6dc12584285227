/* world_image: a world restored from an image steps on bit for bit as the
 * original, with every feature whose state lives between steps switched on
 * (delayed feedback, wander, density-dependent radii, species, moving
 * obstacles, targets), and whatever the world it is restored into held. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "sim/commands.h"
#include "sim/world_image.h"
#include "sim_fixtures.h"

static void set(world_t *w, const char *name, double value)
{
    char msg[160];
    int i = params_find(name);
    assert_true(i >= 0);
    assert_int_equal(world_set_param(w, (size_t)i, value, msg, sizeof msg), SIM_OK);
}

/* A world whose future depends on more than positions and velocities. */
static void make_rich_world(world_t *w, uint32_t seed)
{
    make_world(w, 800, 450, 600, seed);
    set(w, "delay_ticks", 3);
    set(w, "w_wander", 0.5);
    set(w, "density_radii", 1);
    set(w, "species", 2);
    set(w, "predators", 1);
    assert_int_equal(world_add_owned_obstacle(w, 300, 200, 30, 40, -25, 7, NULL), SIM_OK);
    assert_int_equal(world_set_target(w, 3, 500, 100), SIM_OK);
    for (int k = 0; k < 25; k++) world_step(w);
    assert_int_equal(world_set_target(w, 3, 520, 130), SIM_OK); /* a moving target has a velocity */
    assert_int_equal(world_add_agents(w, 40, true, 100, 100), SIM_OK);
    for (int k = 0; k < 5; k++) world_step(w);
}

static void assert_same_world(const world_t *a, const world_t *b)
{
    assert_same_state(a, b);
    assert_int_equal(a->n_obstacles, b->n_obstacles);
    assert_memory_equal(a->obstacles, b->obstacles, a->n_obstacles * sizeof *a->obstacles);
    assert_int_equal(a->n_targets, b->n_targets);
    assert_memory_equal(a->targets, b->targets, a->n_targets * sizeof *a->targets);
    assert_memory_equal(&a->rng, &b->rng, sizeof a->rng);
}

static void restored_world_steps_as_the_original(void **state)
{
    (void)state;
    world_t a, b;
    make_rich_world(&a, 11);
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, &a), 0);
    assert_true(img.history && img.wander && img.radius_ali);
    /* b starts as a plain world of another seed and population. */
    make_world(&b, 800, 450, 50, 99);
    assert_int_equal(world_image_restore(&img, &b), 0);
    assert_same_world(&a, &b);
    for (int k = 0; k < 40; k++) world_step(&a), world_step(&b);
    sim_cmd_t add = {.kind = CMD_ADD_OBSTACLE, .client_id = 2, .request_id = -1, .x = 600, .y = 300, .radius = 20};
    sim_result_t ra, rb;
    sim_apply(&a, &add, &ra);
    sim_apply(&b, &add, &rb);
    assert_int_equal(ra.obstacle_id, rb.obstacle_id); /* the ids go on from the same counter */
    for (int k = 0; k < 20; k++) world_step(&a), world_step(&b);
    assert_same_world(&a, &b);
    world_image_free(&img);
    world_free(&a);
    world_free(&b);
}

static void an_image_restores_twice_into_the_same_world(void **state)
{
    (void)state;
    world_t a, b;
    make_rich_world(&a, 5);
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, &a), 0);
    make_world(&b, 800, 450, 10, 1);
    assert_int_equal(world_image_restore(&img, &b), 0);
    for (int k = 0; k < 30; k++) world_step(&b);
    assert_int_equal(world_image_restore(&img, &b), 0); /* back: the world a scrubber rewinds */
    for (int k = 0; k < 30; k++) world_step(&a), world_step(&b);
    assert_same_world(&a, &b);
    assert_true(world_image_bytes(&img) >= img.n * 21);
    world_image_free(&img);
    world_free(&a);
    world_free(&b);
}

/* The timeline re-applies a reset rather than keeping an image after it: a
 * restored world that meets the reset (another seed and population, the
 * features' state drawn again) and a paused stretch with a step must go on
 * as the live world did. */
static void a_restored_world_goes_through_a_reset_as_the_original(void **state)
{
    (void)state;
    world_t a, b;
    make_rich_world(&a, 23);
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, &a), 0);
    make_world(&b, 800, 450, 700, 4); /* more agents than the image: the restore shrinks it */
    for (int k = 0; k < 3; k++) world_step(&b);
    assert_int_equal(world_image_restore(&img, &b), 0);
    const sim_cmd_t cmds[] = {
        {.kind = CMD_RESET, .request_id = -1, .has_seed = true, .seed = 77, .has_agents = true, .agents = 250},
        {.kind = CMD_PAUSE, .request_id = -1},
        {.kind = CMD_ADD_AGENTS, .client_id = 2, .request_id = -1, .x = 200, .y = 200, .count = 9},
        {.kind = CMD_STEP, .request_id = -1},
        {.kind = CMD_RESUME, .request_id = -1},
    };
    for (int k = 0; k < 7; k++) world_step(&a), world_step(&b);
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        sim_result_t ra, rb;
        sim_apply(&a, &cmds[c], &ra);
        sim_apply(&b, &cmds[c], &rb);
        assert_int_equal(ra.status, SIM_OK);
        assert_int_equal(rb.status, SIM_OK);
        assert_same_world(&a, &b);
    }
    assert_int_equal(a.tick, 1); /* the reset's tick 0, then the step command's */
    assert_int_equal(a.n, 259);
    for (int k = 0; k < 25; k++) world_step(&a), world_step(&b);
    assert_same_world(&a, &b);
    world_image_free(&img);
    world_free(&a);
    world_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restored_world_steps_as_the_original),
        cmocka_unit_test(an_image_restores_twice_into_the_same_world),
        cmocka_unit_test(a_restored_world_goes_through_a_reset_as_the_original),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

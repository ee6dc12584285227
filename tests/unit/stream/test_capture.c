/* A snapshot's copy of the world (capture.c): bit for bit the world's
 * state, whether its arrays are copied through the cache (small) or past
 * it (large, streamed in 64-byte blocks with a tail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/params.h"
#include "stream/capture.h"

static void make_world(world_t *w, size_t agents)
{
    world_config_t cfg = {.width = 4000, .height = 3000, .dt = 1.0f / 60.0f, .seed = 11, .agents = agents,
                          .max_agents = agents, .max_targets = 4, .threads = 1};
    assert_int_equal(world_init(w, &cfg), 0);
    char msg[128];
    assert_int_equal(world_set_param(w, (size_t)params_find("predators"), 2, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_add_moving_obstacle(w, 300, 300, 40, 90, -60, NULL), SIM_OK);
    assert_int_equal(world_set_target(w, 1, 600, 450), SIM_OK);
}

static void assert_is_world(const capture_t *c, const world_t *w)
{
    assert_int_equal(c->tick, (uint32_t)w->tick);
    assert_int_equal(c->n, w->n);
    assert_memory_equal(c->x, w->cur.x, w->n * sizeof *c->x);
    assert_memory_equal(c->y, w->cur.y, w->n * sizeof *c->y);
    assert_memory_equal(c->vx, w->cur.vx, w->n * sizeof *c->vx);
    assert_memory_equal(c->vy, w->cur.vy, w->n * sizeof *c->vy);
    assert_memory_equal(c->id, w->cur.id, w->n * sizeof *c->id);
    assert_memory_equal(c->flags, w->cur.flags, w->n);
    assert_int_equal(c->n_obstacles, w->n_obstacles);
    assert_memory_equal(c->obstacles, w->obstacles, w->n_obstacles * sizeof *c->obstacles);
    assert_int_equal(c->n_predators, w->n_predators);
    assert_memory_equal(c->predators, w->predators, w->n_predators * sizeof *c->predators);
    assert_int_equal(c->n_targets, w->n_targets);
    assert_memory_equal(c->targets, w->targets, w->n_targets * sizeof *c->targets);
}

/* Sizes on both sides of the streamed copy's threshold, none a multiple of
 * its 64-byte blocks: 300,007 agents stream even their flags (a byte each). */
static void a_copy_is_the_worlds_state_bit_for_bit_small_or_large(void **state)
{
    (void)state;
    const size_t sizes[] = {1003, 70001, 300007};
    capture_t c;
    memset(&c, 0, sizeof c);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        world_t w;
        make_world(&w, sizes[k]);
        world_step(&w);
        assert_int_equal(capture_world(&c, &w), 0);
        assert_is_world(&c, &w);
        world_free(&w);
    }
    /* The same capture again for a smaller world: only its n agents count. */
    world_t w;
    make_world(&w, 5);
    assert_int_equal(capture_world(&c, &w), 0);
    assert_is_world(&c, &w);
    world_free(&w);
    capture_free(&c);
}

static void a_world_without_agents_gives_an_empty_copy(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 0);
    capture_t c;
    memset(&c, 0, sizeof c);
    assert_int_equal(capture_world(&c, &w), 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.n_obstacles, 1);
    capture_free(&c);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_copy_is_the_worlds_state_bit_for_bit_small_or_large),
        cmocka_unit_test(a_world_without_agents_gives_an_empty_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

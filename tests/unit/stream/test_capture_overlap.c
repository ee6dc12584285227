/* A snapshot's agents copied on another thread while the next step's first
 * half (world_step_begin) runs, as the server does at a million agents
 * (encoder.h): the copy must be exactly the state of its tick, and the
 * world must go on exactly as one stepped whole. No timing: the copier
 * runs whenever the scheduler lets it, and the checks hold either way. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/params.h"
#include "stream/capture.h"

#define AGENTS 40003 /* above the step's parallel threshold, on 2 threads; not a multiple of the copy's 64-byte blocks */
#define TICKS 6

static void set(world_t *w, const char *name, double value)
{
    char msg[128];
    assert_int_equal(world_set_param(w, (size_t)params_find(name), value, msg, sizeof msg), SIM_OK);
}

/* Moving obstacles, predators and a target: the scene the step changes in
 * place; heading alignment: an array the re-sort writes. */
static void make_world(world_t *w, int threads)
{
    world_config_t cfg = {.width = 1200, .height = 900, .dt = 1.0f / 60.0f, .seed = 7, .agents = AGENTS,
                          .max_agents = AGENTS, .max_targets = 4, .threads = threads};
    assert_int_equal(world_init(w, &cfg), 0);
    set(w, "predators", 3);
    set(w, "ali_mode", ALIGN_HEADING);
    assert_int_equal(world_add_moving_obstacle(w, 300, 300, 40, 90, -60, NULL), SIM_OK);
    assert_int_equal(world_add_moving_obstacle(w, 900, 500, 25, -120, 45, NULL), SIM_OK);
    assert_int_equal(world_set_target(w, 1, 600, 450), SIM_OK);
}

static void assert_same_capture(const capture_t *a, const capture_t *b)
{
    assert_int_equal(a->tick, b->tick);
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->x, b->x, a->n * sizeof *a->x);
    assert_memory_equal(a->y, b->y, a->n * sizeof *a->y);
    assert_memory_equal(a->vx, b->vx, a->n * sizeof *a->vx);
    assert_memory_equal(a->vy, b->vy, a->n * sizeof *a->vy);
    assert_memory_equal(a->id, b->id, a->n * sizeof *a->id);
    assert_memory_equal(a->flags, b->flags, a->n);
    assert_int_equal(a->n_obstacles, b->n_obstacles);
    assert_memory_equal(a->obstacles, b->obstacles, a->n_obstacles * sizeof *a->obstacles);
    assert_int_equal(a->n_predators, b->n_predators);
    assert_memory_equal(a->predators, b->predators, a->n_predators * sizeof *a->predators);
    assert_int_equal(a->n_targets, b->n_targets);
    assert_memory_equal(a->targets, b->targets, a->n_targets * sizeof *a->targets);
}

static void a_copy_made_during_the_next_steps_resort_is_the_state_of_its_tick(void **state)
{
    (void)state;
    world_t w, alone;
    make_world(&w, 2);
    make_world(&alone, 1);
    capture_t overlapped, reference;
    memset(&overlapped, 0, sizeof overlapped);
    memset(&reference, 0, sizeof reference);
    for (int t = 0; t < TICKS; t++) {
        world_step(&alone);
        capture_world(&reference, &alone);
        if (t == 0) {
            world_step(&w);
        } else { /* the previous tick's capture is compared below */
            world_step_end(&w);
        }
        /* The server's order: the scene now, the agents on another thread
         * while the next step re-sorts. */
        assert_int_equal(capture_scene(&overlapped, &w), 0);
        capture_job_t job = {&overlapped, w.cur};
        pthread_t copier;
        assert_int_equal(pthread_create(&copier, NULL, capture_agents_job, &job), 0);
        world_step_begin(&w);
        pthread_join(copier, NULL);
        assert_same_capture(&overlapped, &reference);
    }
    /* Ended in halves, the world is the one stepped whole, bit for bit. */
    world_step_end(&w);
    world_step(&alone);
    assert_int_equal(w.tick, alone.tick);
    assert_int_equal(w.n, alone.n);
    assert_memory_equal(w.cur.x, alone.cur.x, w.n * sizeof *w.cur.x);
    assert_memory_equal(w.cur.vy, alone.cur.vy, w.n * sizeof *w.cur.vy);
    assert_memory_equal(w.cur.id, alone.cur.id, w.n * sizeof *w.cur.id);
    capture_free(&overlapped);
    capture_free(&reference);
    world_free(&w);
    world_free(&alone);
}

/* The contract the overlap rests on, without a thread: the first half of a
 * step leaves the arrays that held the state as they were. */
static void the_first_half_of_a_step_leaves_the_state_arrays_alone(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2);
    world_step(&w);
    capture_t before;
    memset(&before, 0, sizeof before);
    assert_int_equal(capture_world(&before, &w), 0);
    const agents_t held = w.cur;
    const size_t n = w.n;
    world_step_begin(&w);
    assert_memory_equal(held.x, before.x, n * sizeof *held.x);
    assert_memory_equal(held.y, before.y, n * sizeof *held.y);
    assert_memory_equal(held.vx, before.vx, n * sizeof *held.vx);
    assert_memory_equal(held.vy, before.vy, n * sizeof *held.vy);
    assert_memory_equal(held.id, before.id, n * sizeof *held.id);
    assert_memory_equal(held.flags, before.flags, n);
    /* The re-sort's result went elsewhere: the step did re-sort. */
    assert_ptr_not_equal(w.cur.x, held.x);
    world_step_end(&w);
    capture_free(&before);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_copy_made_during_the_next_steps_resort_is_the_state_of_its_tick),
        cmocka_unit_test(the_first_half_of_a_step_leaves_the_state_arrays_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

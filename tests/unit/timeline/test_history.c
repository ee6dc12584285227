/* history: the keyframe ring keeps the window and the budget (oldest
 * first, never the last one), and a plan rebuilds the world of any tick of
 * the window exactly as the live world was at that tick — from a keyframe,
 * or by advancing a world already on the way — with the commands re-applied
 * where the live world applied them. Bad ticks are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/commands.h"
#include "sim/world_image.h"
#include "timeline/history.h"
#include "../sim/sim_fixtures.h"

#define WORLD_W 800
#define WORLD_H 450

/* One tick as the simulation thread runs it: the commands, then the step. */
static void live_tick(history_t *h, world_t *w, const sim_cmd_t *cmds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t tick = w->tick;
        sim_result_t res;
        sim_apply(w, &cmds[i], &res);
        history_applied(h, tick, &cmds[i], w);
    }
    world_step(w);
    history_stepped(h, w);
}

static history_t *make_history(uint64_t every, uint64_t window, size_t max_bytes)
{
    history_limits_t lim = {.keyframe_ticks = every, .window_ticks = window, .max_bytes = max_bytes};
    history_t *h = history_create(&lim);
    assert_non_null(h);
    return h;
}

static void the_window_keeps_the_newest_keyframes(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, WORLD_W, WORLD_H, 50, 3);
    history_t *h = make_history(10, 100, 1u << 30);
    history_started(h, &w);
    for (int t = 0; t < 300; t++) live_tick(h, &w, NULL, 0);
    history_stats_t s;
    history_get_stats(h, &s);
    assert_int_equal(s.to, 300);
    /* The oldest kept is the newest keyframe at or before 300 − 100. */
    assert_int_equal(s.from, 200);
    assert_int_equal(s.keyframes, 11); /* 200, 210, …, 300 */
    assert_int_equal(s.keyframes_taken, 31);
    assert_int_equal(s.keyframes_evicted, 20);
    history_destroy(h);
    world_free(&w);
}

static void the_budget_evicts_the_oldest_but_keeps_one(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, WORLD_W, WORLD_H, 1000, 3);
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, &w), 0);
    size_t one = world_image_bytes(&img);
    world_image_free(&img);
    /* Room for about three keyframes (and the tables). */
    history_t *h = make_history(5, 100000, 3 * one + 4096);
    history_started(h, &w);
    for (int t = 0; t < 100; t++) live_tick(h, &w, NULL, 0);
    history_stats_t s;
    history_get_stats(h, &s);
    assert_true(s.keyframes >= 1 && s.keyframes <= 3);
    assert_true(s.bytes <= 3 * one + 4096);
    assert_int_equal(s.to, 100);
    assert_true(s.from >= 90); /* the newest ones are kept */
    history_destroy(h);
    /* A budget smaller than one keyframe still keeps the newest. */
    h = make_history(5, 100000, 1);
    history_started(h, &w);
    for (int t = 0; t < 20; t++) live_tick(h, &w, NULL, 0);
    history_get_stats(h, &s);
    assert_int_equal(s.keyframes, 1);
    assert_int_equal(s.from, 120);
    history_destroy(h);
    world_free(&w);
}

static void rooms_share_the_servers_budget(void **state)
{
    (void)state;
    world_t a, b;
    make_world(&a, WORLD_W, WORLD_H, 1000, 3);
    make_world(&b, WORLD_W, WORLD_H, 1000, 4);
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, &a), 0);
    size_t one = world_image_bytes(&img);
    world_image_free(&img);
    atomic_size_t total;
    atomic_init(&total, 0);
    /* Each room may keep 100 keyframes; all rooms together about 6. */
    history_limits_t lim = {.keyframe_ticks = 5, .window_ticks = 100000, .max_bytes = 100 * one + 65536,
                            .shared_bytes = &total, .shared_max = 6 * one + 2 * 4096};
    history_t *ha = history_create(&lim), *hb = history_create(&lim);
    history_started(ha, &a);
    history_started(hb, &b);
    for (int t = 0; t < 100; t++) live_tick(ha, &a, NULL, 0), live_tick(hb, &b, NULL, 0);
    history_stats_t sa, sb;
    history_get_stats(ha, &sa);
    history_get_stats(hb, &sb);
    assert_int_equal(atomic_load(&total), sa.bytes + sb.bytes); /* the counter is the sum */
    assert_true(sa.bytes + sb.bytes <= lim.shared_max);
    assert_true(sa.keyframes >= 1 && sb.keyframes >= 1);
    assert_true(sa.keyframes_evicted > 0 && sb.keyframes_evicted > 0); /* both gave up their oldest */
    history_destroy(ha);
    assert_int_equal(atomic_load(&total), sb.bytes);
    history_destroy(hb);
    assert_int_equal(atomic_load(&total), 0);
    world_free(&a);
    world_free(&b);
}

/* A live run with steering; images of the live world at every tick, to compare. */
typedef struct run {
    world_t live;
    history_t *h;
    world_image_t seen[200];
} run_t;

static void record_run(run_t *r)
{
    make_world(&r->live, WORLD_W, WORLD_H, 300, 21);
    r->h = make_history(16, 1000, 1u << 30);
    history_started(r->h, &r->live);
    memset(r->seen, 0, sizeof r->seen);
    for (int t = 0; t < 200; t++) {
        assert_int_equal(world_image_capture(&r->seen[t], &r->live), 0); /* what tick t's snapshot showed */
        sim_cmd_t cmds[2];
        size_t n = 0;
        if (t % 7 == 3) cmds[n++] = (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 2, .request_id = -1,
                                                .x = 100.0f + 3.0f * (float)t, .y = 200};
        if (t == 40) cmds[n++] = (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .client_id = 2, .request_id = -1, .x = 400, .y = 200, .radius = 35};
        if (t == 90) cmds[n++] = (sim_cmd_t){.kind = CMD_SET_PARAM, .request_id = -1, .param = params_find("w_wander"), .value = 0.7};
        if (t == 130) cmds[n++] = (sim_cmd_t){.kind = CMD_LEAVE, .client_id = 2, .request_id = -1};
        live_tick(r->h, &r->live, cmds, n);
    }
}

static void free_run(run_t *r)
{
    for (int t = 0; t < 200; t++) world_image_free(&r->seen[t]);
    history_destroy(r->h);
    world_free(&r->live);
}

static void assert_is_seen(const run_t *r, const world_t *w, uint64_t tick)
{
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, w), 0);
    const world_image_t *want = &r->seen[tick];
    assert_int_equal(img.tick, tick);
    assert_int_equal(img.n, want->n);
    assert_memory_equal(img.cur.x, want->cur.x, img.n * sizeof(float));
    assert_memory_equal(img.cur.vy, want->cur.vy, img.n * sizeof(float));
    assert_memory_equal(img.cur.id, want->cur.id, img.n * sizeof(uint32_t));
    assert_int_equal(img.n_obstacles, want->n_obstacles);
    assert_int_equal(img.n_targets, want->n_targets);
    assert_memory_equal(img.targets, want->targets, img.n_targets * sizeof(target_t));
    world_image_free(&img);
}

static void a_plan_rebuilds_any_tick_exactly(void **state)
{
    (void)state;
    run_t *r = malloc(sizeof *r);
    record_run(r);
    world_t past;
    make_world(&past, WORLD_W, WORLD_H, 0, 1);
    history_plan_t plan = {0};
    const uint64_t ticks[] = {0, 1, 15, 16, 17, 41, 90, 91, 130, 131, 199, 160, 3};
    for (size_t k = 0; k < sizeof ticks / sizeof ticks[0]; k++) {
        assert_int_equal(history_plan(r->h, ticks[k], 0, UINT64_MAX, 0, &plan), HISTORY_OK);
        assert_non_null(plan.from);
        assert_true(keyframe_image(plan.from)->tick <= ticks[k] && ticks[k] - keyframe_image(plan.from)->tick < 16);
        assert_int_equal(history_run_plan(&plan, &past, NULL), 0);
        history_plan_done(&plan);
        assert_is_seen(r, &past, ticks[k]);
    }
    history_plan_free(&plan);
    world_free(&past);
    free_run(r);
    free(r);
}

static void a_world_on_the_way_advances_instead(void **state)
{
    (void)state;
    run_t *r = malloc(sizeof *r);
    record_run(r);
    world_t past;
    make_world(&past, WORLD_W, WORLD_H, 0, 1);
    history_plan_t plan = {0};
    assert_int_equal(history_plan(r->h, 35, 0, UINT64_MAX, 0, &plan), HISTORY_OK);
    assert_int_equal(history_run_plan(&plan, &past, NULL), 0);
    uint64_t epoch = plan.epoch, seq = plan.next_seq;
    history_plan_done(&plan);
    /* 35 → 44, across the obstacle of tick 40: no keyframe, the same world. */
    assert_int_equal(history_plan(r->h, 44, epoch, past.tick, seq, &plan), HISTORY_OK);
    assert_null(plan.from);
    assert_int_equal(history_run_plan(&plan, &past, NULL), 0);
    seq = plan.next_seq;
    history_plan_done(&plan);
    assert_is_seen(r, &past, 44);
    /* Backwards is a restore. */
    assert_int_equal(history_plan(r->h, 43, epoch, past.tick, seq, &plan), HISTORY_OK);
    assert_non_null(plan.from);
    history_plan_free(&plan);
    world_free(&past);
    free_run(r);
    free(r);
}

static void ticks_outside_the_window_are_refused(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, WORLD_W, WORLD_H, 30, 3);
    history_t *h = make_history(10, 50, 1u << 30);
    history_plan_t plan = {0};
    assert_int_equal(history_plan(h, 0, 0, UINT64_MAX, 0, &plan), HISTORY_EMPTY);
    history_started(h, &w);
    for (int t = 0; t < 120; t++) live_tick(h, &w, NULL, 0);
    assert_int_equal(history_plan(h, 69, 0, UINT64_MAX, 0, &plan), HISTORY_BEFORE);
    assert_int_equal(history_plan(h, 121, 0, UINT64_MAX, 0, &plan), HISTORY_AFTER);
    assert_int_equal(history_plan(h, UINT64_MAX, 0, UINT64_MAX, 0, &plan), HISTORY_AFTER);
    assert_null(plan.from);
    assert_int_equal(history_plan(h, 70, 0, UINT64_MAX, 0, &plan), HISTORY_OK);
    history_plan_free(&plan);
    history_destroy(h);
    world_free(&w);
}

static void a_reset_starts_the_past_again(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, WORLD_W, WORLD_H, 30, 3);
    history_t *h = make_history(10, 1000, 1u << 30);
    history_started(h, &w);
    for (int t = 0; t < 50; t++) live_tick(h, &w, NULL, 0);
    history_stats_t before, after;
    history_get_stats(h, &before);
    sim_cmd_t reset = {.kind = CMD_RESET, .request_id = -1, .has_agents = true, .agents = 40};
    live_tick(h, &w, &reset, 1);
    history_get_stats(h, &after);
    assert_int_equal(after.epoch, before.epoch + 1);
    assert_int_equal(after.from, 0);
    assert_int_equal(after.to, 1);
    history_plan_t plan = {0};
    assert_int_equal(history_plan(h, 30, 0, UINT64_MAX, 0, &plan), HISTORY_AFTER); /* that tick 30 is gone */
    history_plan_free(&plan);
    history_destroy(h);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_window_keeps_the_newest_keyframes),
        cmocka_unit_test(the_budget_evicts_the_oldest_but_keeps_one),
        cmocka_unit_test(rooms_share_the_servers_budget),
        cmocka_unit_test(a_plan_rebuilds_any_tick_exactly),
        cmocka_unit_test(a_world_on_the_way_advances_instead),
        cmocka_unit_test(ticks_outside_the_window_are_refused),
        cmocka_unit_test(a_reset_starts_the_past_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* history: the keyframe ring keeps the window and the budget (oldest
 * first, never the last one), and a plan rebuilds the world of any tick of
 * the window exactly as the live world was at that tick — from a keyframe,
 * or by advancing a world already on the way — with the commands re-applied
 * where the live world applied them. Bad ticks are refused. The past spans
 * a reset (its places go on while the world's ticks start again), and a
 * paused place is the world the pause found. */
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

/* w as an image, compared with want (the world's tick included). */
static void assert_same_world(const world_t *w, const world_image_t *want)
{
    world_image_t img = {0};
    assert_int_equal(world_image_capture(&img, w), 0);
    assert_int_equal(img.tick, want->tick);
    assert_int_equal(img.seed, want->seed);
    assert_int_equal(img.n, want->n);
    assert_memory_equal(img.cur.x, want->cur.x, img.n * sizeof(float));
    assert_memory_equal(img.cur.vx, want->cur.vx, img.n * sizeof(float));
    assert_memory_equal(img.cur.id, want->cur.id, img.n * sizeof(uint32_t));
    assert_int_equal(img.n_obstacles, want->n_obstacles);
    assert_int_equal(img.paused, want->paused);
    world_image_free(&img);
}

/* Plans place `pos` from scratch and checks it is want. */
static void assert_place_is(history_t *h, world_t *past, uint64_t pos, const world_image_t *want)
{
    history_plan_t plan = {0};
    assert_int_equal(history_plan(h, pos, 0, UINT64_MAX, 0, &plan), HISTORY_OK);
    assert_int_equal(history_run_plan(&plan, past, NULL), 0);
    history_plan_free(&plan);
    assert_same_world(past, want);
}

/* A live world of n agents with its history (a keyframe every `every`
 * ticks), and an empty world to rebuild the past in. */
static history_t *start_live(world_t *w, world_t *past, size_t n, uint32_t seed, uint64_t every)
{
    make_world(w, WORLD_W, WORLD_H, n, seed);
    make_world(past, WORLD_W, WORLD_H, 0, 1);
    history_t *h = make_history(every, 1000, 1u << 30);
    history_started(h, w);
    return h;
}

static void the_past_spans_a_reset(void **state)
{
    (void)state;
    world_t w, past;
    history_t *h = start_live(&w, &past, 60, 3, 16);
    enum { RESET_AT = 50, END = 130 };
    world_image_t *seen = calloc(END + 1, sizeof *seen);
    for (int p = 0; p < END; p++) {
        assert_int_equal(world_image_capture(&seen[p], &w), 0); /* what place p's snapshot showed */
        sim_cmd_t cmds[2];
        size_t n = 0;
        if (p == RESET_AT) { /* a target, then a reset to another seed and population, then a target */
            cmds[n++] = (sim_cmd_t){.kind = CMD_SET_TARGET, .client_id = 2, .request_id = -1, .x = 100, .y = 100};
            cmds[n++] = (sim_cmd_t){.kind = CMD_RESET, .request_id = -1, .has_seed = true, .seed = 99,
                                    .has_agents = true, .agents = 40};
        }
        if (p == RESET_AT + 5) cmds[n++] = (sim_cmd_t){.kind = CMD_ADD_OBSTACLE, .client_id = 2, .request_id = -1,
                                                       .x = 300, .y = 200, .radius = 30};
        live_tick(h, &w, cmds, n);
    }
    assert_int_equal(world_image_capture(&seen[END], &w), 0);
    assert_int_equal(w.tick, END - RESET_AT); /* the world's ticks started again … */
    history_stats_t s;
    history_get_stats(h, &s);
    assert_int_equal(s.from, 0); /* … the timeline kept the ticks before the reset */
    assert_int_equal(s.to, END);
    assert_int_equal(s.base, RESET_AT);
    /* Every place, on both sides of the reset and across it, in any order. */
    const uint64_t places[] = {RESET_AT, RESET_AT + 1, 3, RESET_AT - 1, RESET_AT + 2, END, 64, RESET_AT + 5, RESET_AT + 6, 0};
    for (size_t k = 0; k < sizeof places / sizeof places[0]; k++) assert_place_is(h, &past, places[k], &seen[places[k]]);
    assert_int_equal(seen[RESET_AT + 1].tick, 1);
    assert_int_equal(seen[RESET_AT].n, 60);
    assert_int_equal(seen[RESET_AT + 1].n, 40);
    /* A world on the way advances across the reset. */
    history_plan_t plan = {0};
    assert_int_equal(history_plan(h, RESET_AT - 2, 0, UINT64_MAX, 0, &plan), HISTORY_OK);
    assert_int_equal(history_run_plan(&plan, &past, NULL), 0);
    uint64_t epoch = plan.epoch, seq = plan.next_seq;
    history_plan_done(&plan);
    assert_int_equal(history_plan(h, RESET_AT + 3, epoch, RESET_AT - 2, seq, &plan), HISTORY_OK);
    assert_null(plan.from);
    assert_int_equal(history_run_plan(&plan, &past, NULL), 0);
    history_plan_free(&plan);
    assert_same_world(&past, &seen[RESET_AT + 3]);
    for (int p = 0; p <= END; p++) world_image_free(&seen[p]);
    free(seen);
    history_destroy(h);
    world_free(&w);
    world_free(&past);
}

/* One tick as the simulation thread runs it, paused or not: the commands,
 * then a step unless the world is paused. */
static void loop_tick(history_t *h, world_t *w, const sim_cmd_t *cmd)
{
    if (cmd) {
        uint64_t tick = w->tick;
        sim_result_t res;
        sim_apply(w, cmd, &res);
        assert_int_equal(res.status, SIM_OK);
        history_applied(h, tick, cmd, w);
    }
    if (w->paused) return;
    world_step(w);
    history_stepped(h, w);
}

static void a_paused_place_is_the_world_the_pause_found(void **state)
{
    (void)state;
    world_t w, past;
    history_t *h = start_live(&w, &past, 50, 8, 10);
    for (int t = 0; t < 25; t++) loop_tick(h, &w, NULL);
    world_image_t found = {0}, after_step = {0};
    assert_int_equal(world_image_capture(&found, &w), 0); /* place 25, as its snapshot showed it */
    sim_cmd_t pause = {.kind = CMD_PAUSE, .request_id = -1};
    sim_cmd_t obstacle = {.kind = CMD_ADD_OBSTACLE, .client_id = 2, .request_id = -1, .x = 200, .y = 200, .radius = 30};
    sim_cmd_t more = {.kind = CMD_ADD_AGENTS, .client_id = 2, .request_id = -1, .x = 300, .y = 300, .count = 7};
    sim_cmd_t step = {.kind = CMD_STEP, .request_id = -1};
    loop_tick(h, &w, &pause); /* the world stands at 25 … */
    loop_tick(h, &w, NULL);
    loop_tick(h, &w, &obstacle); /* … while commands change it … */
    loop_tick(h, &w, &more);
    history_stats_t s;
    history_get_stats(h, &s);
    assert_int_equal(s.to, 25);
    assert_int_equal(w.n, 57);
    loop_tick(h, &w, &step); /* … and a step takes it, changed, to 26 */
    assert_int_equal(world_image_capture(&after_step, &w), 0);
    history_get_stats(h, &s);
    assert_int_equal(s.to, 26);
    /* 25 is the world the pause found: not paused yet, no obstacle, 50 agents. */
    assert_place_is(h, &past, 25, &found);
    assert_false(past.paused);
    assert_int_equal(past.n, 50);
    assert_int_equal(past.n_obstacles, 0);
    /* 26 has what the pause's commands did. */
    assert_place_is(h, &past, 26, &after_step);
    assert_true(past.paused);
    assert_int_equal(past.n, 57);
    assert_int_equal(past.n_obstacles, 1);
    world_image_free(&found);
    world_image_free(&after_step);
    history_destroy(h);
    world_free(&w);
    world_free(&past);
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
        cmocka_unit_test(the_past_spans_a_reset),
        cmocka_unit_test(a_paused_place_is_the_world_the_pause_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* client_policy: roles and the token bucket that every client's commands
 * are charged to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "people/client_policy.h"

#define SECOND 1000000000ull

static sim_cmd_t cmd_of(cmd_kind_t kind) { return (sim_cmd_t){.kind = kind}; }

static void a_visitor_should_steer_and_keep_obstacles_but_not_govern_the_world(void **state)
{
    (void)state;
    client_policy_t visitor, operator;
    policy_init(&visitor, false, 1, 0);
    policy_init(&operator, true, 1, 0);
    const cmd_kind_t allowed[] = {CMD_SET_TARGET, CMD_CLEAR_TARGET, CMD_ADD_OBSTACLE, CMD_MOVE_OBSTACLE,
                                  CMD_REMOVE_OBSTACLE};
    const cmd_kind_t governing[] = {CMD_SET_PARAM, CMD_SET_MODEL, CMD_ADD_AGENTS, CMD_RESET, CMD_PAUSE, CMD_RESUME};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        assert_true(policy_allows(&visitor, allowed[i]));
        assert_true(policy_allows(&operator, allowed[i]));
    }
    for (size_t i = 0; i < sizeof governing / sizeof governing[0]; i++) {
        assert_false(policy_allows(&visitor, governing[i]));
        assert_true(policy_allows(&operator, governing[i]));
    }
}

static void moving_a_target_should_be_cheap_and_a_reset_should_cost_the_whole_bucket(void **state)
{
    (void)state;
    sim_cmd_t target = cmd_of(CMD_SET_TARGET), reset = cmd_of(CMD_RESET), add = cmd_of(CMD_ADD_AGENTS);
    client_policy_t p;
    policy_init(&p, true, 1, 0);
    assert_true(policy_cost(&p, &target) == 1.0);
    assert_true(policy_cost(&p, &reset) == POLICY_BUCKET);
    add.count = 10000;
    double big = policy_cost(&p, &add);
    add.count = 1;
    assert_true(big > policy_cost(&p, &add));
    assert_true(big <= POLICY_BUCKET);
    /* A new client, or one that spent a little, waits for a full bucket. */
    assert_int_equal(policy_charge(&p, policy_cost(&p, &target), 0), POLICY_OK);
    assert_int_equal(policy_charge(&p, policy_cost(&p, &reset), 0), POLICY_RATE_LIMITED);
    assert_int_equal(policy_charge(&p, policy_cost(&p, &reset), SECOND), POLICY_RATE_LIMITED);
    assert_int_equal(policy_charge(&p, policy_cost(&p, &reset), 3 * SECOND), POLICY_OK);
}

static void a_client_should_start_with_a_quarter_fill_up_to_its_bucket_then_get_the_refill_rate(void **state)
{
    (void)state;
    client_policy_t p;
    policy_init(&p, false, 1, 0);
    int ok = 0;
    for (int i = 0; i < 1000; i++) ok += policy_charge(&p, 1, 0) == POLICY_OK;
    assert_int_equal(ok, (int)POLICY_START);
    /* Saved up for a long while: the bucket, no more. */
    ok = 0;
    for (int i = 0; i < 1000; i++) ok += policy_charge(&p, 1, 100 * SECOND) == POLICY_OK;
    assert_int_equal(ok, (int)POLICY_BUCKET);
    /* Ten seconds of one command per 10 ms (100/s): only the refill passes. */
    ok = 0;
    for (uint64_t t = 101 * SECOND; t <= 111 * SECOND; t += SECOND / 100) ok += policy_charge(&p, 1, t) == POLICY_OK;
    assert_in_range(ok, (int)(10 * POLICY_REFILL_PER_S) - 2, (int)(10 * POLICY_REFILL_PER_S) + 82);
}

/* A smaller budget (--rate-scale below 1) still allows every command: none
 * costs more than the whole bucket. */
static void no_command_should_cost_more_than_a_small_bucket(void **state)
{
    (void)state;
    client_policy_t p;
    policy_init(&p, true, 0.25, 0);
    sim_cmd_t reset = cmd_of(CMD_RESET), add = cmd_of(CMD_ADD_AGENTS);
    add.count = 10000;
    assert_true(policy_cost(&p, &reset) == 0.25 * POLICY_BUCKET);
    assert_true(policy_cost(&p, &add) <= 0.25 * POLICY_BUCKET);
    assert_int_equal(policy_charge(&p, policy_cost(&p, &reset), 10 * SECOND), POLICY_OK);
}

static void the_scale_should_multiply_bucket_and_refill(void **state)
{
    (void)state;
    client_policy_t p;
    policy_init(&p, false, 10, 0);
    int ok = 0;
    for (int i = 0; i < 10000; i++) ok += policy_charge(&p, 1, 0) == POLICY_OK;
    assert_int_equal(ok, (int)(10 * POLICY_START));
    assert_int_equal(policy_charge(&p, 10 * POLICY_REFILL_PER_S, SECOND), POLICY_OK);
    assert_int_equal(policy_charge(&p, 10 * POLICY_BUCKET, 100 * SECOND), POLICY_OK);
}

static void a_client_that_keeps_flooding_should_become_abusive_and_one_that_slows_down_should_not(void **state)
{
    (void)state;
    client_policy_t flood, burst;
    policy_init(&flood, false, 1, 0);
    policy_init(&burst, false, 1, 0);
    /* Spend the bucket, then keep going at 1000 commands a second. */
    policy_verdict_t v = POLICY_OK;
    uint64_t t = 0;
    int refused = 0;
    for (; t < 5 * SECOND && v != POLICY_ABUSIVE; t += SECOND / 1000) {
        v = policy_charge(&flood, 1, t);
        refused += v != POLICY_OK;
    }
    assert_int_equal(v, POLICY_ABUSIVE);
    assert_in_range(refused, (int)POLICY_STRIKES, (int)POLICY_STRIKES * 3);
    /* A burst that overshoots by a few, then waits, is forgiven. */
    for (int i = 0; i < (int)POLICY_START + 20; i++) assert_int_not_equal(policy_charge(&burst, 1, 0), POLICY_ABUSIVE);
    for (int round = 1; round <= 20; round++)
        for (int i = 0; i < 100; i++)
            assert_int_not_equal(policy_charge(&burst, 1, (uint64_t)round * 2 * SECOND), POLICY_ABUSIVE);
}

static void a_page_dragging_its_target_while_its_cursor_moves_should_never_be_limited(void **state)
{
    (void)state;
    /* A browser sends a cursor at 10 Hz and drags its target at 30 Hz for
     * a minute, and says hello twice and inspects once a second. */
    client_policy_t p;
    policy_init(&p, false, 1.0, 0);
    const sim_cmd_t target = {.kind = CMD_SET_TARGET};
    for (int ms = 0; ms < 60000; ms += 10) {
        uint64_t t = (uint64_t)ms * 1000000ull;
        if (ms % 100 == 0) assert_int_equal(policy_charge(&p, POLICY_COST_CURSOR, t), POLICY_OK);
        if (ms % 30 == 0) assert_int_equal(policy_charge(&p, policy_cost(&p, &target), t), POLICY_OK);
        if (ms % 1000 == 0) {
            assert_int_equal(policy_charge(&p, POLICY_COST_INSPECT, t), POLICY_OK);
            if (ms < 2000) assert_int_equal(policy_charge(&p, POLICY_COST_HELLO, t), POLICY_OK);
        }
    }
    /* … while a flood of hellos (a name changed 100 times a second) is not. */
    int refused = 0;
    for (int k = 0; k < 1000; k++) refused += policy_charge(&p, POLICY_COST_HELLO, 60000000000ull + (uint64_t)k * 10000000ull) != POLICY_OK;
    assert_true(refused > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_visitor_should_steer_and_keep_obstacles_but_not_govern_the_world),
        cmocka_unit_test(moving_a_target_should_be_cheap_and_a_reset_should_cost_the_whole_bucket),
        cmocka_unit_test(a_client_should_start_with_a_quarter_fill_up_to_its_bucket_then_get_the_refill_rate),
        cmocka_unit_test(the_scale_should_multiply_bucket_and_refill),
        cmocka_unit_test(no_command_should_cost_more_than_a_small_bucket),
        cmocka_unit_test(a_client_that_keeps_flooding_should_become_abusive_and_one_that_slows_down_should_not),
        cmocka_unit_test(a_page_dragging_its_target_while_its_cursor_moves_should_never_be_limited),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

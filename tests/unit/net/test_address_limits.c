/* address_limits: new sessions and token guesses per remote address, across
 * connections, in a bounded table. Time is passed in: no sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "net/address_limits.h"

#define S 1000ull /* a second, in ms */

static const address_limits_config_t defaults = {
    .capacity = 64,
    .connect_per_s = 2,
    .connect_burst = 8,
    .auth_free_failures = 3,
    .auth_delay_ms = 1 * S,
    .auth_delay_max_ms = 30 * S,
    .auth_forget_ms = 600 * S,
    .hash_seed = 12345,
};

static addr_key_t key(const char *text)
{
    addr_key_t k;
    assert_true(addr_key_parse(text, &k));
    return k;
}

/* Connections key gets in at now out of tries. */
static int admitted(address_limits_t *al, const addr_key_t *k, int tries, uint64_t now)
{
    int ok = 0;
    for (int i = 0; i < tries; i++) ok += address_limits_connect(al, k, now);
    return ok;
}

/* Guesses compared (each one wrong) when key tries once every step_ms from
 * t0 to t1; a guess refused unread (must wait) is not compared. */
static int wrong_guesses_compared(address_limits_t *al, const addr_key_t *k, uint64_t t0, uint64_t t1, uint64_t step_ms)
{
    int compared = 0;
    for (uint64_t t = t0; t < t1; t += step_ms) {
        if (address_limits_auth_wait(al, k, t)) continue;
        address_limits_auth_failed(al, k, t);
        compared++;
    }
    return compared;
}

static void an_ipv4_address_is_itself_and_an_ipv6_address_is_its_64(void **state)
{
    (void)state;
    addr_key_t a = key("127.0.0.1"), b = key("127.0.0.2"), mapped = key("::ffff:127.0.0.1");
    assert_false(addr_key_equal(&a, &b));
    assert_true(addr_key_equal(&a, &mapped));
    addr_key_t h1 = key("2001:db8:1:2::1"), h2 = key("2001:db8:1:2:ffff:eeee:dddd:cccc"), other = key("2001:db8:1:3::1");
    assert_true(addr_key_equal(&h1, &h2));
    assert_false(addr_key_equal(&h1, &other));
    addr_key_t k;
    assert_false(addr_key_parse("not an address", &k));
    assert_false(addr_key_parse("127.0.0.1:80", &k));
}

static void reconnecting_should_get_a_burst_then_the_steady_rate_and_other_addresses_their_own(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t a = key("127.0.0.1"), b = key("127.0.0.2");
    assert_int_equal(admitted(al, &a, 100, 0), 8);
    assert_int_equal(admitted(al, &b, 1, 0), 1);
    /* Two a second after that, however hard it tries. */
    int later = 0;
    for (uint64_t t = 100; t <= 10 * S; t += 100) later += admitted(al, &a, 10, t);
    assert_int_equal(later, 20);
    /* Quiet for a while, the burst is back, and no more. */
    assert_int_equal(admitted(al, &a, 100, 60 * S), 8);
    address_limits_destroy(al);
}

static void guesses_should_be_free_for_the_first_few_failures_then_wait_longer_and_longer(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t a = key("127.0.0.1"), b = key("127.0.0.2");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(address_limits_auth_wait(al, &a, 0), 0);
        address_limits_auth_failed(al, &a, 0);
    }
    /* After the third: 1 s, then 2 s, 4 s, … */
    assert_int_equal(address_limits_auth_wait(al, &a, 0), 1 * S);
    assert_int_equal(address_limits_auth_wait(al, &a, 999), 1);
    assert_int_equal(address_limits_auth_wait(al, &a, 1 * S), 0);
    address_limits_auth_failed(al, &a, 1 * S);
    assert_int_equal(address_limits_auth_wait(al, &a, 1 * S), 2 * S);
    address_limits_auth_failed(al, &a, 3 * S);
    assert_int_equal(address_limits_auth_wait(al, &a, 3 * S), 4 * S);
    /* Another address is not held up. */
    assert_int_equal(address_limits_auth_wait(al, &b, 3 * S), 0);
    assert_int_equal(address_limits_auth_failures(al, &a), 5);
    address_limits_destroy(al);
}

static void a_guesser_trying_every_10_ms_for_an_hour_should_get_two_a_minute_at_most(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t a = key("127.0.0.1");
    int first_minute = wrong_guesses_compared(al, &a, 0, 60 * S, 10);
    int hour = wrong_guesses_compared(al, &a, 60 * S, 3660 * S, 10);
    /* 3 free, then 1+2+4+8+16 s and every 30 s: 9 in the first minute. */
    assert_in_range(first_minute, 3, 9);
    assert_in_range(hour, 100, 120); /* 60 minutes at 2 a minute */
    address_limits_destroy(al);
}

static void a_right_token_should_clear_the_count_and_a_quiet_spell_forget_it(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t a = key("127.0.0.1");
    assert_int_equal(wrong_guesses_compared(al, &a, 0, 100, 1), 3);
    assert_true(address_limits_auth_wait(al, &a, 100) > 0);
    /* The wait is over, the right token: everything forgiven. */
    assert_int_equal(address_limits_auth_wait(al, &a, 1 * S + 100), 0);
    address_limits_auth_succeeded(al, &a);
    assert_int_equal(address_limits_auth_failures(al, &a), 0);
    assert_int_equal(wrong_guesses_compared(al, &a, 2 * S, 2 * S + 100, 1), 3);
    /* Ten minutes without a failure: the count starts again. */
    assert_int_equal(address_limits_auth_wait(al, &a, 2 * S + 100 + 600 * S), 0);
    assert_int_equal(address_limits_auth_failures(al, &a), 0);
    address_limits_destroy(al);
}

static void sessions_should_be_counted_per_address(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t a = key("127.0.0.1"), b = key("::1");
    for (int i = 0; i < 3; i++) address_limits_session_opened(al, &a, 0);
    address_limits_session_opened(al, &b, 0);
    assert_int_equal(address_limits_sessions(al, &a), 3);
    assert_int_equal(address_limits_sessions(al, &b), 1);
    address_limits_session_closed(al, &a);
    address_limits_session_closed(al, &a);
    address_limits_session_closed(al, &a);
    address_limits_session_closed(al, &a); /* one too many: stays at 0 */
    assert_int_equal(address_limits_sessions(al, &a), 0);
    assert_int_equal(address_limits_sessions(al, &b), 1);
    address_limits_destroy(al);
}

/* The table stays within its capacity whatever the number of addresses. */
static void many_addresses_should_not_grow_the_table(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    char text[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(text, sizeof text, "10.%d.%d.%d", i >> 16 & 255, i >> 8 & 255, i & 255);
        addr_key_t k = key(text);
        admitted(al, &k, 3, (uint64_t)i);
        assert_true(address_limits_count(al) <= defaults.capacity);
    }
    assert_int_equal(address_limits_count(al), defaults.capacity);
    address_limits_destroy(al);
}

static void addresses_taken_over_should_start_afresh_and_the_others_be_found_still(void **state)
{
    (void)state;
    address_limits_config_t small = defaults;
    small.capacity = 8;
    address_limits_t *al = address_limits_create(&small);
    char text[32];
    addr_key_t holders[4];
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, "192.0.2.%d", i + 1);
        holders[i] = key(text);
        for (int k = 0; k <= i; k++) address_limits_session_opened(al, &holders[i], 0);
    }
    /* A thousand addresses drain their buckets, taking over each other's
     * entries (never the holders'). */
    addr_key_t first = key("10.0.0.0");
    for (int i = 0; i < 1000; i++) {
        snprintf(text, sizeof text, "10.0.%d.%d", i >> 8 & 255, i & 255);
        addr_key_t k = key(text);
        assert_int_equal(admitted(al, &k, 20, (uint64_t)i), 8);
        assert_int_equal(address_limits_count(al), i < 4 ? 5 + i : 8);
    }
    for (int i = 0; i < 4; i++) assert_int_equal(address_limits_sessions(al, &holders[i]), (size_t)i + 1);
    /* The first drained address was taken over long ago: a full burst again. */
    assert_int_equal(admitted(al, &first, 20, 1000), 8);
    address_limits_destroy(al);
}

static void cycling_fresh_addresses_should_not_wipe_a_guessers_record(void **state)
{
    (void)state;
    address_limits_t *al = address_limits_create(&defaults);
    addr_key_t guesser = key("192.0.2.1");
    assert_int_equal(wrong_guesses_compared(al, &guesser, 0, 100, 1), 3);
    /* Thousands of fresh addresses, each draining its connection bucket
     * (so none of them is forgettable): the guesser is still remembered. */
    char text[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(text, sizeof text, "10.0.%d.%d", i >> 8 & 255, i & 255);
        addr_key_t k = key(text);
        admitted(al, &k, 20, 200);
    }
    assert_int_equal(address_limits_auth_failures(al, &guesser), 3);
    assert_true(address_limits_auth_wait(al, &guesser, 200) > 0);
    address_limits_destroy(al);
}

static void a_full_table_of_guessers_should_give_up_the_oldest_failure_first(void **state)
{
    (void)state;
    address_limits_config_t small = defaults;
    small.capacity = 4;
    address_limits_t *al = address_limits_create(&small);
    addr_key_t k[5] = {key("10.0.0.1"), key("10.0.0.2"), key("10.0.0.3"), key("10.0.0.4"), key("10.0.0.5")};
    for (int i = 0; i < 4; i++) address_limits_auth_failed(al, &k[i], (uint64_t)(10 + i));
    /* k[0] holds a session: never reused, although its failure is the oldest. */
    address_limits_session_opened(al, &k[0], 20);
    assert_int_equal(address_limits_auth_wait(al, &k[4], 30), 0);
    assert_int_equal(address_limits_auth_failures(al, &k[0]), 1);
    assert_int_equal(address_limits_auth_failures(al, &k[1]), 0); /* the oldest failure without a session */
    assert_int_equal(address_limits_auth_failures(al, &k[2]), 1);
    assert_int_equal(address_limits_count(al), 4);
    address_limits_destroy(al);
}

static void a_table_full_of_sessions_should_let_viewers_in_and_make_guessers_wait(void **state)
{
    (void)state;
    address_limits_config_t small = defaults;
    small.capacity = 2;
    address_limits_t *al = address_limits_create(&small);
    addr_key_t a = key("10.0.0.1"), b = key("10.0.0.2"), c = key("10.0.0.3");
    address_limits_session_opened(al, &a, 0);
    address_limits_session_opened(al, &b, 0);
    assert_true(address_limits_connect(al, &c, 0));
    assert_int_equal(address_limits_auth_wait(al, &c, 0), small.auth_delay_ms);
    address_limits_destroy(al);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_ipv4_address_is_itself_and_an_ipv6_address_is_its_64),
        cmocka_unit_test(reconnecting_should_get_a_burst_then_the_steady_rate_and_other_addresses_their_own),
        cmocka_unit_test(guesses_should_be_free_for_the_first_few_failures_then_wait_longer_and_longer),
        cmocka_unit_test(a_guesser_trying_every_10_ms_for_an_hour_should_get_two_a_minute_at_most),
        cmocka_unit_test(a_right_token_should_clear_the_count_and_a_quiet_spell_forget_it),
        cmocka_unit_test(sessions_should_be_counted_per_address),
        cmocka_unit_test(many_addresses_should_not_grow_the_table),
        cmocka_unit_test(addresses_taken_over_should_start_afresh_and_the_others_be_found_still),
        cmocka_unit_test(cycling_fresh_addresses_should_not_wipe_a_guessers_record),
        cmocka_unit_test(a_full_table_of_guessers_should_give_up_the_oldest_failure_first),
        cmocka_unit_test(a_table_full_of_sessions_should_let_viewers_in_and_make_guessers_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

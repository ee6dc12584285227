/* address_limits: new sessions and token guesses per remote address, across
 * connections, in a bounded table, and the fair seats a full server gives
 * newcomers. Time is passed in: no sleeps. */
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

/* ---- fair seats ---------------------------------------------------------- */

static fair_seat_candidate_t seat(size_t holder, bool idle, uint64_t age)
{
    return (fair_seat_candidate_t){.holder_sessions = holder, .idle = idle, .age = age};
}

static void a_newcomer_should_take_a_seat_only_from_an_address_holding_at_least_two_more(void **state)
{
    (void)state;
    fair_seat_pick_t p = {0};
    size_t slot = 99;
    assert_false(fair_seat_choose(&p, 0, &slot)); /* nobody to take from */
    fair_seat_consider(&p, 3, &(fair_seat_candidate_t){.holder_sessions = 5, .idle = true});
    assert_true(fair_seat_choose(&p, 0, &slot));
    assert_int_equal(slot, 3);
    assert_true(fair_seat_choose(&p, 3, &slot)); /* 3 + 1 < 5: it ends at 4 against 4 */
    assert_false(fair_seat_choose(&p, 4, &slot)); /* 4 + 1 = 5: it would overtake */
    assert_false(fair_seat_choose(&p, 5, &slot));
    /* Everyone holds one (a full server of distinct addresses): refused as before. */
    fair_seat_pick_t ones = {0};
    for (size_t i = 0; i < 512; i++) fair_seat_consider(&ones, i, &(fair_seat_candidate_t){.holder_sessions = 1, .idle = true, .age = i});
    assert_false(fair_seat_choose(&ones, 0, &slot));
}

static void the_seat_should_be_the_biggest_holders_newest_idle_one_else_its_newest(void **state)
{
    (void)state;
    /* Index: slot. A big holder (10) with idle and busy sessions of
     * several ages, a smaller one (9) whose idle session is the newest. */
    const fair_seat_candidate_t c[] = {
        seat(10, true, 40), seat(10, false, 1), seat(9, true, 0), seat(10, true, 7),
        seat(10, true, 12), seat(10, false, 2), seat(1, true, 3),
    };
    fair_seat_pick_t p = {0};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) fair_seat_consider(&p, i, &c[i]);
    size_t slot;
    assert_true(fair_seat_choose(&p, 0, &slot));
    assert_int_equal(slot, 3); /* idle, age 7: the newest idle of the biggest */
    /* None idle: its newest. */
    fair_seat_pick_t busy = {0};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        fair_seat_candidate_t b = c[i];
        if (b.holder_sessions == 10) b.idle = false;
        fair_seat_consider(&busy, i, &b);
    }
    assert_true(fair_seat_choose(&busy, 0, &slot));
    assert_int_equal(slot, 1);
    /* The order candidates are offered in does not matter. */
    fair_seat_pick_t back = {0};
    for (size_t i = sizeof c / sizeof c[0]; i-- > 0;) fair_seat_consider(&back, i, &c[i]);
    assert_true(fair_seat_choose(&back, 0, &slot));
    assert_int_equal(slot, 3);
}

/* A model of a full server: seats held by addresses (address_limits counts
 * them), each with its admission number and whether it is idle. */
enum { MODEL_SEATS = 512 };
typedef struct model {
    address_limits_t *al;
    addr_key_t addr[MODEL_SEATS];
    uint64_t admitted[MODEL_SEATS];
    bool idle[MODEL_SEATS];
    bool used[MODEL_SEATS];
    size_t seats;
    uint64_t next;
    size_t evicted;
} model_t;

/* A session from k arrives (idle from the start, or busy): true when it
 * gets a seat, a free one or one taken by the rule; *from is the address
 * it was taken from (when one was). */
static bool model_arrive(model_t *m, const addr_key_t *k, bool idle, size_t per_address, addr_key_t *from, bool *took_idle)
{
    size_t slot = 0;
    while (slot < m->seats && m->used[slot]) slot++;
    size_t mine = address_limits_sessions(m->al, k);
    if (mine >= per_address) return false;
    if (slot == m->seats) {
        fair_seat_pick_t p = {0};
        for (size_t i = 0; i < m->seats; i++)
            fair_seat_consider(&p, i, &(fair_seat_candidate_t){address_limits_sessions(m->al, &m->addr[i]), m->idle[i], m->next - m->admitted[i]});
        if (!fair_seat_choose(&p, mine, &slot)) return false;
        if (from) *from = m->addr[slot];
        if (took_idle) *took_idle = m->idle[slot];
        address_limits_session_closed(m->al, &m->addr[slot]);
        m->evicted++;
    }
    m->used[slot] = true;
    m->addr[slot] = *k;
    m->idle[slot] = idle;
    m->admitted[slot] = ++m->next;
    address_limits_session_opened(m->al, k, 0);
    return true;
}

static model_t *model_create(size_t seats)
{
    static model_t m;
    memset(&m, 0, sizeof m);
    address_limits_config_t cfg = defaults;
    cfg.capacity = 4096;
    m.al = address_limits_create(&cfg);
    assert_non_null(m.al);
    m.seats = seats;
    return &m;
}

static void two_addresses_holding_every_seat_should_give_one_each_to_eight_newcomers(void **state)
{
    (void)state;
    /* The default server: 512 seats, 256 per address. */
    model_t *m = model_create(512);
    addr_key_t a = key("198.51.100.1"), b = key("198.51.100.2");
    for (int i = 0; i < 256; i++) {
        /* The newest 16 of each address are busy. */
        assert_true(model_arrive(m, &a, i < 240, 256, NULL, NULL));
        assert_true(model_arrive(m, &b, i < 240, 256, NULL, NULL));
    }
    assert_false(model_arrive(m, &a, true, 256, NULL, NULL)); /* its own limit */
    for (int k = 0; k < 8; k++) {
        char text[32];
        snprintf(text, sizeof text, "203.0.113.%d", k + 1);
        addr_key_t newcomer = key(text), from;
        bool took_idle = false;
        assert_true(model_arrive(m, &newcomer, true, 256, &from, &took_idle));
        assert_true(took_idle);
        assert_true(addr_key_equal(&from, &a) || addr_key_equal(&from, &b));
    }
    assert_int_equal(m->evicted, 8);
    assert_int_equal(address_limits_sessions(m->al, &a), 252);
    assert_int_equal(address_limits_sessions(m->al, &b), 252);
    /* The ones taken were each address's newest idle ones (its 240th to
     * 237th; a's i-th was admitted 2i + 1st, b's 2i + 2nd): the busy 16 of
     * each and the 236 older idle ones stay. */
    size_t busy = 0, idle = 0;
    uint64_t newest_idle = 0;
    for (size_t i = 0; i < 512; i++) {
        if (m->admitted[i] > 512) continue; /* a newcomer */
        busy += !m->idle[i];
        idle += m->idle[i];
        if (m->idle[i] && m->admitted[i] > newest_idle) newest_idle = m->admitted[i];
    }
    assert_int_equal(busy, 32);
    assert_int_equal(idle, 472);
    assert_int_equal(newest_idle, 472);
    /* The ninth from one of those addresses holds 1: 1 + 1 < 252, in as well. */
    addr_key_t again = key("203.0.113.1");
    assert_true(model_arrive(m, &again, true, 256, NULL, NULL));
    address_limits_destroy(m->al);
}

static void a_room_of_250_behind_one_address_should_fit_and_lose_one_seat_per_newcomer_only_when_full(void **state)
{
    (void)state;
    model_t *m = model_create(512);
    addr_key_t nat = key("192.0.2.7");
    for (int i = 0; i < 250; i++) assert_true(model_arrive(m, &nat, true, 256, NULL, NULL));
    /* 262 others, one per address: full, nobody lost a seat. */
    for (int i = 0; i < 262; i++) {
        addr_key_t one;
        uint8_t ip[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        addr_key_from_ip(ip, &one);
        assert_true(model_arrive(m, &one, true, 256, NULL, NULL));
    }
    assert_int_equal(m->evicted, 0);
    assert_int_equal(address_limits_sessions(m->al, &nat), 250);
    /* Full: each newcomer from elsewhere takes one of the room's seats. */
    for (int i = 0; i < 5; i++) {
        addr_key_t one, from;
        uint8_t ip[16] = {0x20, 0x01, 0x0d, 0xb9, 0, 0, 0, (uint8_t)i};
        addr_key_from_ip(ip, &one);
        assert_true(model_arrive(m, &one, true, 256, &from, NULL));
        assert_true(addr_key_equal(&from, &nat));
    }
    assert_int_equal(address_limits_sessions(m->al, &nat), 245);
    address_limits_destroy(m->al);
}

static void one_address_taking_seats_should_stop_one_short_of_the_biggest(void **state)
{
    (void)state;
    model_t *m = model_create(32);
    addr_key_t a = key("10.0.0.1"), b = key("10.0.0.2"), c = key("10.0.0.3");
    for (int i = 0; i < 16; i++) {
        assert_true(model_arrive(m, &a, true, 32, NULL, NULL));
        assert_true(model_arrive(m, &b, true, 32, NULL, NULL));
    }
    int in = 0;
    while (model_arrive(m, &c, true, 32, NULL, NULL)) in++;
    /* c takes seats until the three hold 11, 11, 10 (in some order): no
     * address then holds two more than c, and nobody takes them back. */
    assert_int_equal(in, 10);
    size_t ha = address_limits_sessions(m->al, &a), hb = address_limits_sessions(m->al, &b);
    assert_int_equal(ha + hb, 22);
    assert_true(ha <= 12 && hb <= 12);
    assert_false(model_arrive(m, &a, true, 32, NULL, NULL));
    assert_false(model_arrive(m, &b, true, 32, NULL, NULL));
    address_limits_destroy(m->al);
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
        cmocka_unit_test(a_newcomer_should_take_a_seat_only_from_an_address_holding_at_least_two_more),
        cmocka_unit_test(the_seat_should_be_the_biggest_holders_newest_idle_one_else_its_newest),
        cmocka_unit_test(two_addresses_holding_every_seat_should_give_one_each_to_eight_newcomers),
        cmocka_unit_test(a_room_of_250_behind_one_address_should_fit_and_lose_one_seat_per_newcomer_only_when_full),
        cmocka_unit_test(one_address_taking_seats_should_stop_one_short_of_the_biggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

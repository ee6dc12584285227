/* room_guard: wrong codes and rooms made, per address, as token buckets in
 * a bounded table. Time is passed in: no sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "rooms/room_guard.h"

#define S 1000ull

static addr_key_t key(const char *text)
{
    addr_key_t k;
    assert_true(addr_key_parse(text, &k));
    return k;
}

static room_guard_t *guard(size_t capacity)
{
    room_guard_config_t c = room_guard_defaults();
    c.capacity = capacity;
    c.hash_seed = 99;
    room_guard_t *g = room_guard_create(&c);
    assert_non_null(g);
    return g;
}

static void a_class_that_mistypes_gets_in(void **state)
{
    (void)state;
    room_guard_t *g = guard(4096);
    addr_key_t nat = key("198.51.100.7");
    /* 250 students behind one address; ten of them mistype once or twice. */
    uint64_t now = 1000 * S;
    for (int i = 0; i < 250; i++) {
        assert_int_equal(room_guard_code_wait(g, &nat, now), 0);
        if (i % 25 == 0) room_guard_code_wrong(g, &nat, now), room_guard_code_wrong(g, &nat, now);
        now += 100; /* the whole class within 25 s */
    }
    assert_int_equal(room_guard_code_wait(g, &nat, now), 0);
    room_guard_destroy(g);
}

static void a_guesser_waits_and_the_rate_is_one_per_ten_seconds(void **state)
{
    (void)state;
    room_guard_t *g = guard(4096);
    addr_key_t guesser = key("203.0.113.9"), other = key("203.0.113.10");
    uint64_t now = 5 * S;
    int free_guesses = 0;
    while (room_guard_code_wait(g, &guesser, now) == 0 && free_guesses < 1000) {
        room_guard_code_wrong(g, &guesser, now);
        free_guesses++;
    }
    assert_int_equal(free_guesses, 30);
    uint64_t wait = room_guard_code_wait(g, &guesser, now);
    assert_in_range(wait, 9 * S, 10 * S + 1);
    /* Another address is not held up. */
    assert_int_equal(room_guard_code_wait(g, &other, now), 0);
    /* An hour of guessing as fast as allowed: about 360 more. */
    int more = 0;
    for (uint64_t t = now; t < now + 3600 * S; t += 100)
        if (room_guard_code_wait(g, &guesser, t) == 0) room_guard_code_wrong(g, &guesser, t), more++;
    assert_in_range(more, 355, 361);
    room_guard_destroy(g);
}

static void an_ipv6_host_cannot_cycle_its_64(void **state)
{
    (void)state;
    room_guard_t *g = guard(4096);
    addr_key_t a = key("2001:db8:1:2::1"), b = key("2001:db8:1:2:ffff::9");
    for (int i = 0; i < 30; i++) room_guard_code_wrong(g, &a, 0);
    assert_true(room_guard_code_wait(g, &b, 0) > 0);
    room_guard_destroy(g);
}

static void ten_groups_make_their_rooms_in_a_minute_and_the_rate_holds(void **state)
{
    (void)state;
    room_guard_t *g = guard(4096);
    addr_key_t nat = key("198.51.100.7");
    uint64_t wait = 0;
    for (int i = 0; i < 20; i++) assert_true(room_guard_create_take(g, &nat, (uint64_t)i * S, &wait));
    assert_false(room_guard_create_take(g, &nat, 20 * S, &wait));
    assert_in_range(wait, 1, 60 * S);
    uint64_t later = 20 * S + wait, wait2 = 0;
    assert_true(room_guard_create_take(g, &nat, later, &wait2));
    /* … and then one a minute. */
    assert_false(room_guard_create_take(g, &nat, later, &wait2));
    assert_in_range(wait2, 59 * S, 60 * S + 1);
    room_guard_destroy(g);
}

static void a_full_table_forgets_the_address_seen_longest_ago(void **state)
{
    (void)state;
    /* Capacity 8: every address probes the whole table. */
    room_guard_t *g = guard(8);
    addr_key_t guesser = key("203.0.113.9");
    for (int i = 0; i < 30; i++) room_guard_code_wrong(g, &guesser, 0);
    char text[32];
    /* Seven others, all seen after the guesser: the guesser stays. */
    for (int i = 0; i < 7; i++) {
        snprintf(text, sizeof text, "192.0.2.%d", i + 1);
        addr_key_t k = key(text);
        room_guard_code_wait(g, &k, 10 + (uint64_t)i);
    }
    assert_true(room_guard_code_wait(g, &guesser, 20) > 0);
    /* An eighth, newer than everyone: the one seen longest ago goes (192.0.2.1), not the guesser, seen at 20. */
    addr_key_t k = key("192.0.2.200");
    room_guard_code_wait(g, &k, 30);
    assert_true(room_guard_code_wait(g, &guesser, 40) > 0);
    room_guard_destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_class_that_mistypes_gets_in),
        cmocka_unit_test(a_guesser_waits_and_the_rate_is_one_per_ten_seconds),
        cmocka_unit_test(an_ipv6_host_cannot_cycle_its_64),
        cmocka_unit_test(ten_groups_make_their_rooms_in_a_minute_and_the_rate_holds),
        cmocka_unit_test(a_full_table_forgets_the_address_seen_longest_ago),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

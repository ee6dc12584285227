/* presence_decode: hello, cursor and inspect are read strictly; a bad
 * name or colour is refused with a reason and no value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/presence_decode.h"

static const cmd_limits_t LIMITS = {1000, 600, 1000};

static int decode(const char *text, presence_msg_t *m, cmd_error_t *err)
{
    return presence_decode(text, strlen(text), &LIMITS, m, err);
}

static void a_hello_should_give_a_trimmed_name_and_a_colour(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    assert_int_equal(decode("{\"type\":\"hello\",\"name\":\"  Ada \",\"color\":\"#E4572e\",\"id\":3}", &m, &err),
                     PRESENCE_DECODED);
    assert_int_equal(m.kind, PRESENCE_HELLO);
    assert_true(m.has_name && m.has_color);
    assert_string_equal(m.name, "Ada");
    assert_int_equal(m.color, 0xe4572e);
    assert_int_equal(m.request_id, 3);
}

static void a_name_of_24_characters_should_pass_and_25_should_not(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    /* 24 two-byte characters: characters are counted, not bytes. */
    char text[256] = "{\"type\":\"hello\",\"name\":\"";
    for (int k = 0; k < 24; k++) strcat(text, "\xc3\xa9");
    strcat(text, "\"}");
    assert_int_equal(decode(text, &m, &err), PRESENCE_DECODED);
    assert_int_equal(strlen(m.name), 48);
    assert_int_equal(decode("{\"type\":\"hello\",\"name\":\"abcdefghijklmnopqrstuvwxy\"}", &m, &err), PRESENCE_INVALID);
    assert_string_equal(err.code, "out_of_range");
    assert_non_null(strstr(err.message, "25 characters"));
}

static void names_with_control_characters_or_only_spaces_should_be_refused(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    const char *bad[] = {
        "{\"type\":\"hello\",\"name\":\"A\\nB\"}",     "{\"type\":\"hello\",\"name\":\"A\\u0007\"}",
        "{\"type\":\"hello\",\"name\":\"A\\u0085\"}",  "{\"type\":\"hello\",\"name\":\"A\\u202eB\"}",
        "{\"type\":\"hello\",\"name\":\"   \"}",       "{\"type\":\"hello\",\"name\":\"\"}",
        "{\"type\":\"hello\",\"name\":7}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        if (decode(bad[k], &m, &err) != PRESENCE_INVALID) fail_msg("accepted %s", bad[k]);
        assert_string_equal(err.cmd, "hello");
    }
}

static void colours_other_than_six_hex_digits_should_be_refused(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    const char *bad[] = {"\"#fff\"", "\"e4572e\"", "\"#e4572g\"", "\"#e4572e0\"", "\"red\"", "12"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[96];
        snprintf(text, sizeof text, "{\"type\":\"hello\",\"color\":%s}", bad[k]);
        if (decode(text, &m, &err) != PRESENCE_INVALID) fail_msg("accepted %s", text);
    }
}

static void a_ping_should_carry_its_id_and_a_bad_id_should_be_refused(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    assert_int_equal(decode("{\"type\":\"ping\",\"id\":41}", &m, &err), PRESENCE_DECODED);
    assert_int_equal(m.kind, PRESENCE_PING);
    assert_int_equal(m.request_id, 41);
    assert_int_equal(decode("{\"type\":\"ping\"}", &m, &err), PRESENCE_DECODED);
    assert_int_equal(m.request_id, -1);
    assert_int_equal(decode("{\"type\":\"ping\",\"id\":-1}", &m, &err), PRESENCE_INVALID);
    assert_string_equal(err.code, "bad_type");
    assert_string_equal(err.cmd, "ping");
}

static void cursor_and_inspect_should_take_a_point_inside_the_world(void **state)
{
    (void)state;
    presence_msg_t m;
    cmd_error_t err;
    assert_int_equal(decode("{\"type\":\"cursor\",\"x\":10.5,\"y\":20}", &m, &err), PRESENCE_DECODED);
    assert_true(m.kind == PRESENCE_CURSOR && m.has_point && m.x == 10.5f && m.y == 20.0f);
    assert_int_equal(decode("{\"type\":\"cursor\",\"x\":1001,\"y\":20}", &m, &err), PRESENCE_INVALID);
    assert_int_equal(decode("{\"type\":\"cursor\"}", &m, &err), PRESENCE_INVALID);
    assert_int_equal(decode("{\"type\":\"inspect\",\"x\":5,\"y\":6}", &m, &err), PRESENCE_DECODED);
    assert_true(m.kind == PRESENCE_INSPECT && m.has_point);
    assert_int_equal(decode("{\"type\":\"inspect\",\"id\":null}", &m, &err), PRESENCE_DECODED);
    assert_true(m.kind == PRESENCE_INSPECT && !m.has_point);
    assert_int_equal(decode("{\"type\":\"inspect\",\"x\":5}", &m, &err), PRESENCE_INVALID);
    assert_int_equal(decode("{\"type\":\"set_target\",\"x\":5,\"y\":5}", &m, &err), PRESENCE_NOT_PRESENCE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_hello_should_give_a_trimmed_name_and_a_colour),
        cmocka_unit_test(a_name_of_24_characters_should_pass_and_25_should_not),
        cmocka_unit_test(names_with_control_characters_or_only_spaces_should_be_refused),
        cmocka_unit_test(colours_other_than_six_hex_digits_should_be_refused),
        cmocka_unit_test(cursor_and_inspect_should_take_a_point_inside_the_world),
        cmocka_unit_test(a_ping_should_carry_its_id_and_a_bad_id_should_be_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

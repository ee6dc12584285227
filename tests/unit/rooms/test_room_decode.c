/* room_decode: create_room, room_rename, room_close and rooms, what each
 * accepts and the error each refusal names; and classify, which must hand
 * them to rooms (not answer "unknown_command"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "protocol/classify.h"
#include "protocol/room_decode.h"

static int decode(const char *text, room_msg_t *m, cmd_error_t *err) { return room_decode(text, strlen(text), m, err); }

static void create_room_from_each_source(void **state)
{
    (void)state;
    room_msg_t m;
    cmd_error_t err;
    assert_int_equal(decode("{\"type\":\"create_room\"}", &m, &err), ROOM_DECODED);
    assert_int_equal(m.kind, ROOM_MSG_CREATE);
    assert_int_equal(m.from, ROOM_FROM_DEFAULTS);
    assert_int_equal(m.request_id, -1);
    assert_false(m.has_name);
    assert_int_equal(decode("{\"type\":\"create_room\",\"from\":\"copy\",\"name\":\"  Group 3 \",\"id\":7}", &m, &err),
                     ROOM_DECODED);
    assert_int_equal(m.from, ROOM_FROM_COPY);
    assert_int_equal(m.request_id, 7);
    assert_true(m.has_name);
    assert_string_equal(m.name, "Group 3");
    assert_int_equal(decode("{\"type\":\"create_room\",\"from\":\"scenario\",\"scenario\":\"couzin-torus\"}", &m, &err),
                     ROOM_DECODED);
    assert_int_equal(m.from, ROOM_FROM_NAMED_SCENARIO);
    assert_string_equal(m.scenario, "couzin-torus");
}

static void refusals_name_their_fault(void **state)
{
    (void)state;
    room_msg_t m;
    cmd_error_t err;
    static const struct {
        const char *text, *code, *cmd;
    } cases[] = {
        {"{\"type\":\"create_room\",\"from\":\"nowhere\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"from\":3}", "bad_type", "create_room"},
        {"{\"type\":\"create_room\",\"from\":\"scenario\"}", "missing_field", "create_room"},
        {"{\"type\":\"create_room\",\"from\":\"scenario\",\"scenario\":\"../x\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"from\":\"scenario\",\"scenario\":\"Couzin\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"from\":\"scenario\",\"scenario\":\"\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"name\":\"\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"name\":\"a\\u0007b\"}", "out_of_range", "create_room"},
        {"{\"type\":\"create_room\",\"name\":[]}", "bad_type", "create_room"},
        {"{\"type\":\"create_room\",\"id\":-1}", "bad_type", "create_room"},
        {"{\"type\":\"create_room\",\"id\":4294967296}", "bad_type", "create_room"},
        {"{\"type\":\"room_rename\"}", "missing_field", "room_rename"},
        {"{\"type\":\"room_rename\",\"name\":\"0123456789012345678901234\"}", "out_of_range", "room_rename"},
        {"{\"type\":\"room_close\",\"code\":\"OOOOOOOO\"}", "out_of_range", "room_close"},
        {"{\"type\":\"room_close\",\"code\":7}", "bad_type", "room_close"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(decode(cases[i].text, &m, &err), ROOM_INVALID);
        assert_string_equal(err.code, cases[i].code);
        assert_string_equal(err.cmd, cases[i].cmd);
        assert_true(strlen(err.message) > 0);
    }
}

static void close_and_list(void **state)
{
    (void)state;
    room_msg_t m;
    cmd_error_t err;
    assert_int_equal(decode("{\"type\":\"room_close\",\"code\":\"k7px-m3qd\"}", &m, &err), ROOM_DECODED);
    assert_true(m.has_code);
    assert_string_equal(m.code, "K7PXM3QD");
    assert_int_equal(decode("{\"type\":\"room_close\"}", &m, &err), ROOM_DECODED);
    assert_false(m.has_code);
    assert_int_equal(decode("{\"type\":\"rooms\",\"id\":3}", &m, &err), ROOM_DECODED);
    assert_int_equal(m.kind, ROOM_MSG_LIST);
    assert_int_equal(decode("{\"type\":\"room\"}", &m, &err), ROOM_NOT_ROOM);
    assert_int_equal(decode("{\"type\":\"set_target\",\"x\":1,\"y\":2}", &m, &err), ROOM_NOT_ROOM);
}

static void classify_hands_them_to_rooms_and_keeps_unknown_unknown(void **state)
{
    (void)state;
    const cmd_limits_t limits = {1600, 900, 10000};
    classified_t out;
    const char *text = "{\"type\":\"create_room\",\"name\":\"Lab\"}";
    classify_message(text, strlen(text), &limits, 5, &out);
    assert_int_equal(out.kind, CLASSIFIED_ROOM);
    assert_string_equal(out.room.name, "Lab");
    text = "{\"type\":\"make_everything\"}";
    classify_message(text, strlen(text), &limits, 5, &out);
    assert_int_equal(out.kind, CLASSIFIED_INVALID);
    assert_string_equal(out.err.code, "unknown_command");
    text = "{\"type\":\"room_rename\",\"name\":5}";
    classify_message(text, strlen(text), &limits, 5, &out);
    assert_int_equal(out.kind, CLASSIFIED_INVALID);
    assert_string_equal(out.err.code, "bad_type");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_room_from_each_source),
        cmocka_unit_test(refusals_name_their_fault),
        cmocka_unit_test(close_and_list),
        cmocka_unit_test(classify_hands_them_to_rooms_and_keeps_unknown_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the command log (server/src/persist/record.c): every kind of
 * command encoded as JSON and decoded again by cmd_decode gives back the same
 * sim_cmd_t, bit for bit; the header and the entry lines read back as
 * written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/record.h"
#include "protocol/cmd_decode.h"

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 50000};

/* Client messages, one or more per kind; each must decode. */
static const char *const SAMPLES[] = {
    "{\"type\":\"set_target\",\"id\":1,\"x\":800.5,\"y\":450.25}",
    "{\"type\":\"set_target\",\"x\":0.1,\"y\":899.999}",
    "{\"type\":\"set_target\",\"x\":1600,\"y\":0}",
    "{\"type\":\"clear_target\",\"id\":4294967295}",
    "{\"type\":\"add_obstacle\",\"id\":0,\"x\":400,\"y\":300,\"radius\":40}",
    "{\"type\":\"add_obstacle\",\"x\":3.14159265358979,\"y\":2.718281828,\"radius\":1.0000001}",
    "{\"type\":\"add_obstacle\",\"x\":100,\"y\":100,\"radius\":20,\"vx\":-35.5,\"vy\":0.3}",
    "{\"type\":\"add_obstacle\",\"x\":100,\"y\":100,\"radius\":20,\"vx\":-0,\"vy\":0}",
    "{\"type\":\"remove_obstacle\",\"obstacle_id\":17}",
    "{\"type\":\"remove_obstacle\",\"obstacle_id\":4294967295}",
    "{\"type\":\"move_obstacle\",\"obstacle_id\":3,\"x\":123.456,\"y\":654.321}",
    "{\"type\":\"set_param\",\"id\":9,\"name\":\"sep_radius\",\"value\":30}",
    "{\"type\":\"set_param\",\"name\":\"w_ali\",\"value\":0.1}",
    "{\"type\":\"set_param\",\"name\":\"max_speed\",\"value\":123.456789012345}",
    "{\"type\":\"set_param\",\"name\":\"border\",\"value\":\"bounce\"}",
    "{\"type\":\"set_param\",\"name\":\"model\",\"value\":\"unicycle\"}",
    "{\"type\":\"set_param\",\"name\":\"max_speed\",\"value\":60,\"species\":2}",
    "{\"type\":\"add_agents\",\"count\":100}",
    "{\"type\":\"add_agents\",\"count\":10000,\"x\":10.5,\"y\":20.25}",
    "{\"type\":\"reset\"}",
    "{\"type\":\"reset\",\"seed\":4294967295}",
    "{\"type\":\"reset\",\"agents\":0}",
    "{\"type\":\"reset\",\"seed\":7,\"agents\":50000}",
    "{\"type\":\"pause\"}",
    "{\"type\":\"resume\",\"id\":2}",
    "{\"type\":\"step\",\"id\":4}",
    "{\"type\":\"set_model\",\"model\":\"reynolds\"}",
    "{\"type\":\"set_model\",\"id\":5,\"model\":\"olfati2\"}",
};
#define N_SAMPLES (sizeof SAMPLES / sizeof SAMPLES[0])

static sim_cmd_t decode_ok(const char *text, uint32_t client_id)
{
    sim_cmd_t cmd;
    cmd_error_t err;
    int rc = cmd_decode(text, strlen(text), &LIMITS, client_id, &cmd, &err);
    if (rc) fail_msg("%s was refused: %s (%s)", text, err.message, err.code ? err.code : "?");
    return cmd;
}

static void print_cmd(const char *label, const sim_cmd_t *c)
{
    print_message("%s: kind %d client %u request %lld x %a y %a radius %a vx %a vy %a has_point %d obstacle %u "
                  "param %d model %d value %a count %u has_seed %d seed %u has_agents %d agents %u\n",
                  label, (int)c->kind, (unsigned)c->client_id, (long long)c->request_id, (double)c->x, (double)c->y,
                  (double)c->radius, (double)c->vx, (double)c->vy, (int)c->has_point, (unsigned)c->obstacle_id,
                  c->param, c->model, c->value, (unsigned)c->count, (int)c->has_seed, (unsigned)c->seed,
                  (int)c->has_agents, (unsigned)c->agents);
}

/* Both commands come from cmd_decode, which zeroes the struct first, so the
 * bytes compare whole — floats bit for bit, and any field added later too. */
static void assert_same_cmd(const sim_cmd_t *a, const sim_cmd_t *b, const char *context)
{
    if (memcmp(a, b, sizeof *a) != 0) {
        print_cmd("before", a);
        print_cmd("after ", b);
        fail_msg("the command changed through encode/decode: %s", context);
    }
}

/* Encodes cmd, checks the text carries its client id, decodes it again. */
static sim_cmd_t round_trip(const sim_cmd_t *cmd)
{
    char text[RECORD_CMD_MAX];
    int len = record_cmd_json(cmd, text, sizeof text);
    if (len < 0) fail_msg("kind %d (%s) could not be encoded", (int)cmd->kind, cmd_name(cmd->kind));
    assert_int_equal((size_t)len, strlen(text));
    char needle[40];
    snprintf(needle, sizeof needle, "\"client_id\":%u", (unsigned)cmd->client_id);
    assert_non_null(strstr(text, needle));
    /* cmd_decode takes the client id from the connection; the log from its JSON. */
    return decode_ok(text, cmd->client_id);
}

static void every_sample_should_survive_encode_then_decode(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SAMPLES; i++) {
        sim_cmd_t before = decode_ok(SAMPLES[i], (uint32_t)(i * 7 + 1));
        sim_cmd_t after = round_trip(&before);
        assert_same_cmd(&before, &after, SAMPLES[i]);
    }
}

static void every_command_kind_should_have_a_sample(void **state)
{
    (void)state;
    /* A kind added to cmd_kind_t needs a case in record_cmd_json (the
     * compiler says so) and a sample above (this test says so). */
    for (int k = 0; k < CMD_COUNT; k++) {
        if (cmd_is_internal((cmd_kind_t)k)) continue; /* no client sends it: see the test of leave below */
        bool seen = false;
        for (size_t i = 0; i < N_SAMPLES && !seen; i++) seen = decode_ok(SAMPLES[i], 1).kind == (cmd_kind_t)k;
        if (!seen) fail_msg("no sample of command kind %d (%s)", k, cmd_name((cmd_kind_t)k));
    }
}

static void awkward_floats_should_come_back_bit_for_bit(void **state)
{
    (void)state;
    const float values[] = {0.0f, 1e-7f, 0.1f, 1.0f / 3.0f, 899.99994f, 1599.9999f, 1600.0f, 16777215.0f / 16384.0f,
                            nextafterf(400.0f, 0.0f), nextafterf(400.0f, 1e9f)};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        float v = values[i];
        char label[64];
        snprintf(label, sizeof label, "value %a", (double)v);
        /* Start from a decoded command so that the struct is canonical. */
        sim_cmd_t target = decode_ok("{\"type\":\"set_target\",\"x\":1,\"y\":1}", 3);
        target.x = v;
        target.y = fminf(v, 900.0f);
        sim_cmd_t back = round_trip(&target);
        assert_same_cmd(&target, &back, label);

        sim_cmd_t obstacle = decode_ok("{\"type\":\"add_obstacle\",\"x\":1,\"y\":1,\"radius\":1}", 3);
        obstacle.x = v;
        obstacle.radius = fmaxf(1.0f, fminf(v, 500.0f));
        obstacle.vx = -fminf(v, 1000.0f);
        back = round_trip(&obstacle);
        assert_same_cmd(&obstacle, &back, label);

        sim_cmd_t param = decode_ok("{\"type\":\"set_param\",\"name\":\"max_speed\",\"value\":1}", 3);
        param.value = 1.0 + (double)v / 3.0; /* a double, not a float */
        back = round_trip(&param);
        assert_same_cmd(&param, &back, label);
    }
}

static void a_small_buffer_or_unknown_kind_should_be_refused(void **state)
{
    (void)state;
    sim_cmd_t cmd = decode_ok(SAMPLES[0], 1);
    char small[16];
    assert_int_equal(record_cmd_json(&cmd, small, sizeof small), -1);
    char text[RECORD_CMD_MAX];
    cmd.kind = CMD_COUNT;
    assert_int_equal(record_cmd_json(&cmd, text, sizeof text), -1);
}

/* ---- log lines ------------------------------------------------------------ */

static const record_header_t HEADER = {.seed = 1, .agents = 10, .width = 1600, .height = 900, .tick_hz = 60,
                                       .max_agents = 50000, .max_targets = 8};

/* The lines written to a memory stream. */
static char *written(void (*write)(FILE *f, void *ctx), void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    write(f, ctx);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void write_header(FILE *f, void *ctx) { assert_int_equal(record_write_header(f, ctx), 0); }

static void the_header_should_read_back_as_written(void **state)
{
    (void)state;
    record_header_t h = {.seed = 4000000000u, .agents = 1234, .width = 1600, .height = 900.5f, .tick_hz = 60,
                         .max_agents = 1000000, .max_targets = 64};
    params_defaults(&h.params);
    char msg[200];
    int border = params_find("border"), w_ali = params_find("w_ali");
    assert_true(border >= 0 && w_ali >= 0);
    assert_int_equal(params_set(&h.params, (size_t)border, 1, msg, sizeof msg), SIM_OK);
    assert_int_equal(params_set(&h.params, (size_t)w_ali, 0.1, msg, sizeof msg), SIM_OK);
    char *text = written(write_header, &h);
    assert_non_null(strstr(text, "\"border\":\"bounce\""));
    assert_non_null(strstr(text, "\"w_ali\":0.1"));
    assert_int_equal(text[strlen(text) - 1], '\n');
    assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1); /* one line */

    record_header_t back;
    if (record_parse_header(text, &back, msg, sizeof msg)) fail_msg("header refused: %s", msg);
    assert_int_equal(back.seed, h.seed);
    assert_int_equal(back.agents, h.agents);
    assert_true(back.width == h.width && back.height == h.height && back.tick_hz == h.tick_hz);
    assert_int_equal(back.max_agents, h.max_agents);
    assert_int_equal(back.max_targets, h.max_targets);
    for (size_t i = 0; i < params_count(); i++)
        if (params_get(&back.params, i) != params_get(&h.params, i))
            fail_msg("parameter %s: %g became %g", params_desc(i)->name, params_get(&h.params, i),
                     params_get(&back.params, i));
    free(text);
}

static void a_bad_header_should_be_refused_with_a_reason(void **state)
{
    (void)state;
    record_header_t h;
    char msg[200];
    assert_int_equal(record_parse_header("{\"tick\":3}", &h, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "swarmcast_record"));
    const char *bad_param = "{\"swarmcast_record\":1,\"seed\":1,\"agents\":10,\"max_agents\":100,\"max_targets\":8,"
                            "\"tick_hz\":60,\"world\":{\"width\":100,\"height\":100},\"params\":{\"fov_sep\":999}}";
    assert_int_equal(record_parse_header(bad_param, &h, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "fov_sep"));
}

typedef struct entry_ctx {
    uint64_t tick;
    const sim_cmd_t *cmd;
} entry_ctx_t;

static void write_entry(FILE *f, void *ctx)
{
    const entry_ctx_t *e = ctx;
    if (e->cmd)
        assert_int_equal(record_write_cmd(f, e->tick, e->cmd), 0);
    else
        assert_int_equal(record_write_end(f, e->tick), 0);
}

static void entry_lines_should_read_back_as_written(void **state)
{
    (void)state;
    record_header_t h = {.seed = 1, .agents = 10, .width = 1600, .height = 900, .tick_hz = 60,
                         .max_agents = 50000, .max_targets = 8};
    params_defaults(&h.params);
    char msg[300];
    for (size_t i = 0; i < N_SAMPLES; i++) {
        sim_cmd_t cmd = decode_ok(SAMPLES[i], (uint32_t)i + 100);
        entry_ctx_t ctx = {.tick = 1000 + i, .cmd = &cmd};
        char *line = written(write_entry, &ctx);
        record_entry_t e;
        if (record_parse_entry(line, &h, &e, msg, sizeof msg)) fail_msg("%s refused: %s", line, msg);
        assert_false(e.end);
        assert_int_equal(e.tick, 1000 + i);
        assert_same_cmd(&cmd, &e.cmd, line);
        free(line);
    }
    entry_ctx_t end = {.tick = 123456789012ull, .cmd = NULL};
    char *line = written(write_entry, &end);
    record_entry_t e;
    assert_int_equal(record_parse_entry(line, &h, &e, msg, sizeof msg), 0);
    assert_true(e.end);
    assert_int_equal(e.tick, 123456789012ull);
    free(line);

    assert_int_equal(record_parse_entry("{\"tick\":1,\"cmd\":{\"type\":\"set_target\",\"client_id\":1,\"x\":5000,"
                                        "\"y\":1}}",
                                        &h, &e, msg, sizeof msg),
                     -1);
    assert_non_null(strstr(msg, "'x'"));
}

/* The entry line written for (tick, cmd), parsed again. */
static record_entry_t write_then_read(uint64_t tick, const sim_cmd_t *cmd, char **line_out)
{
    record_header_t h = HEADER;
    params_defaults(&h.params);
    entry_ctx_t ctx = {.tick = tick, .cmd = cmd};
    char *line = written(write_entry, &ctx);
    record_entry_t e;
    char msg[300];
    if (record_parse_entry(line, &h, &e, msg, sizeof msg)) fail_msg("%s refused: %s", line, msg);
    assert_false(e.end);
    assert_int_equal(e.tick, tick);
    *line_out = line;
    return e;
}

static void a_visitors_commands_should_read_back_as_a_visitors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SAMPLES; i++) {
        for (int visitor = 0; visitor <= 1; visitor++) {
            sim_cmd_t cmd = decode_ok(SAMPLES[i], (uint32_t)i + 200);
            cmd.visitor = visitor;
            char *line;
            record_entry_t e = write_then_read(500 + i, &cmd, &line);
            assert_same_cmd(&cmd, &e.cmd, line);
            /* Written only when true, so an operator's line is as before roles. */
            if ((strstr(line, "\"visitor\":true") != NULL) != (bool)visitor) fail_msg("visitor %d: %s", visitor, line);
            if (!visitor) assert_null(strstr(line, "visitor"));
            free(line);
        }
    }
}

static void the_servers_leave_should_read_back_as_written(void **state)
{
    (void)state;
    for (int visitor = 0; visitor <= 1; visitor++) {
        sim_cmd_t leave;
        memset(&leave, 0, sizeof leave); /* as cmd_decode makes commands: padding and all */
        leave.kind = CMD_LEAVE;
        leave.client_id = 4000000000u;
        leave.request_id = -1;
        leave.visitor = visitor;
        char *line;
        record_entry_t e = write_then_read(77, &leave, &line);
        assert_same_cmd(&leave, &e.cmd, line);
        assert_string_equal(line, visitor ? "{\"tick\":77,\"cmd\":{\"type\":\"leave\",\"client_id\":4000000000,"
                                            "\"visitor\":true}}\n"
                                          : "{\"tick\":77,\"cmd\":{\"type\":\"leave\",\"client_id\":4000000000}}\n");
        free(line);
    }
    /* The server's leave has no request id, but one would survive too. */
    sim_cmd_t leave;
    memset(&leave, 0, sizeof leave);
    leave.kind = CMD_LEAVE;
    leave.client_id = 3;
    leave.request_id = 12;
    char *line;
    record_entry_t e = write_then_read(78, &leave, &line);
    assert_same_cmd(&leave, &e.cmd, line);
    free(line);
}

static void a_bad_visitor_or_leave_line_should_be_refused_with_a_reason(void **state)
{
    (void)state;
    record_header_t h = HEADER;
    params_defaults(&h.params);
    record_entry_t e;
    char msg[300];
    assert_int_equal(record_parse_entry("{\"tick\":1,\"cmd\":{\"type\":\"pause\",\"client_id\":1,\"visitor\":1}}", &h,
                                        &e, msg, sizeof msg),
                     -1);
    assert_non_null(strstr(msg, "visitor"));
    assert_int_equal(record_parse_entry("{\"tick\":1,\"cmd\":{\"type\":\"leave\"}}", &h, &e, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "client_id"));
    const char *negative_id = "{\"tick\":1,\"cmd\":{\"type\":\"leave\",\"client_id\":1,\"id\":-3}}";
    assert_int_equal(record_parse_entry(negative_id, &h, &e, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "'id'"));
    /* A log from before roles: everyone an operator. */
    assert_int_equal(record_parse_entry("{\"tick\":1,\"cmd\":{\"type\":\"remove_obstacle\",\"client_id\":1,"
                                        "\"obstacle_id\":2}}",
                                        &h, &e, msg, sizeof msg),
                     0);
    assert_false(e.cmd.visitor);
    assert_int_equal(e.cmd.kind, CMD_REMOVE_OBSTACLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_sample_should_survive_encode_then_decode),
        cmocka_unit_test(every_command_kind_should_have_a_sample),
        cmocka_unit_test(awkward_floats_should_come_back_bit_for_bit),
        cmocka_unit_test(a_small_buffer_or_unknown_kind_should_be_refused),
        cmocka_unit_test(the_header_should_read_back_as_written),
        cmocka_unit_test(a_bad_header_should_be_refused_with_a_reason),
        cmocka_unit_test(entry_lines_should_read_back_as_written),
        cmocka_unit_test(a_visitors_commands_should_read_back_as_a_visitors),
        cmocka_unit_test(the_servers_leave_should_read_back_as_written),
        cmocka_unit_test(a_bad_visitor_or_leave_line_should_be_refused_with_a_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

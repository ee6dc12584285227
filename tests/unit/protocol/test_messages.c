/* Unit tests of the JSON message builders (server/src/protocol/messages.c)
 * against the "Server → client JSON messages" section of protocol/PROTOCOL.md.
 * Every builder's output is parsed back with cJSON and checked field by field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/messages.h"
#include "protocol/metrics_json.h"

/* ------------------------------------------------------------ helpers */

static char *hello_of(const hello_info_t *info, const world_t *w)
{
    world_info_t wi = world_info(w);
    return msg_hello(info, &wi);
}

static int make_world(void **state)
{
    world_t *w = malloc(sizeof *w);
    if (!w) return -1;
    world_config_t cfg = {.width = 100, .height = 100, .dt = 1.0f / 60.0f, .seed = 1, .agents = 10,
                          .max_agents = 1000, .max_targets = 8};
    if (world_init(w, &cfg) != 0) {
        free(w);
        return -1;
    }
    *state = w;
    return 0;
}

static int free_world(void **state)
{
    world_free(*state);
    free(*state);
    return 0;
}

/* Parses a builder's output (which it frees); the caller cJSON_Deletes. */
static cJSON *parse_owned(char *text)
{
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    if (!root) print_message("not valid JSON: %s\n", text);
    assert_non_null(root);
    assert_true(cJSON_IsObject(root));
    free(text);
    return root;
}

static const cJSON *field(const cJSON *obj, const char *name)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!f) print_message("no field '%s'\n", name);
    assert_non_null(f);
    return f;
}

static void assert_string_field(const cJSON *obj, const char *name, const char *want)
{
    const cJSON *f = field(obj, name);
    if (!cJSON_IsString(f)) print_message("field '%s' is not a string\n", name);
    assert_true(cJSON_IsString(f));
    assert_string_equal(f->valuestring, want);
}

/* An exact number (doubles compared bit for bit, so 0.1 ≠ 0.100000001). */
static void assert_number_field(const cJSON *obj, const char *name, double want)
{
    const cJSON *f = field(obj, name);
    if (!cJSON_IsNumber(f)) print_message("field '%s' is not a number\n", name);
    assert_true(cJSON_IsNumber(f));
    if (f->valuedouble != want)
        fail_msg("field '%s' is %.17g, expected %.17g", name, f->valuedouble, want);
}

static void assert_null_field(const cJSON *obj, const char *name)
{
    const cJSON *f = field(obj, name);
    if (!cJSON_IsNull(f)) print_message("field '%s' is not null\n", name);
    assert_true(cJSON_IsNull(f));
}

static const cJSON *find_param(const cJSON *hello, const char *name)
{
    const cJSON *params = field(hello, "params"), *p;
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) return p;
    }
    fail_msg("hello lists no parameter '%s'", name);
    return NULL;
}

static size_t index_of(const char *name)
{
    int i = params_find(name);
    if (i < 0) fail_msg("the registry has no parameter '%s'", name);
    return (size_t)i;
}

static int count_fields(const cJSON *obj) { return cJSON_GetArraySize(obj); }

static sim_cmd_t command(cmd_kind_t kind, int64_t request_id)
{
    sim_cmd_t c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.request_id = request_id;
    c.client_id = 3;
    return c;
}

/* ------------------------------------------------------------ hello */

static void hello_should_announce_protocol_client_world_rates_and_limits(void **state)
{
    world_t *w = *state;
    hello_info_t info = {.client_id = 3, .tick_hz = 60, .snapshot_hz = 30};
    cJSON *h = parse_owned(hello_of(&info, w));

    assert_string_field(h, "type", "hello");
    assert_number_field(h, "protocol", 1);
    const cJSON *server = field(h, "server");
    assert_true(cJSON_IsString(server));
    assert_int_equal(strncmp(server->valuestring, "swarmcast ", 10), 0);
    assert_number_field(h, "client_id", 3);
    const cJSON *world = field(h, "world");
    assert_true(cJSON_IsObject(world));
    assert_number_field(world, "width", 100);
    assert_number_field(world, "height", 100);
    assert_number_field(h, "tick_hz", 60);
    assert_number_field(h, "snapshot_hz", 30);
    const cJSON *limits = field(h, "limits");
    assert_true(cJSON_IsObject(limits));
    assert_number_field(limits, "max_message_bytes", 4096);
    assert_number_field(limits, "max_agents", 1000);
    assert_number_field(limits, "max_obstacles", 64);
    assert_number_field(limits, "max_add_agents", 10000);
    cJSON_Delete(h);

    /* other values come through as given */
    hello_info_t other = {.client_id = 4294967295u, .tick_hz = 120, .snapshot_hz = 12.5};
    h = parse_owned(hello_of(&other, w));
    assert_number_field(h, "client_id", 4294967295.0);
    assert_number_field(h, "tick_hz", 120);
    assert_number_field(h, "snapshot_hz", 12.5);
    cJSON_Delete(h);
}

static void hello_of_a_v2_connection_should_state_its_protocol_and_precision(void **state)
{
    world_t *w = *state;
    hello_info_t info = {.client_id = 3, .tick_hz = 60, .snapshot_hz = 30, .protocol = 2};
    cJSON *h = parse_owned(hello_of(&info, w));
    assert_number_field(h, "protocol", 2);
    const cJSON *wire = field(h, "wire");
    assert_true(cJSON_IsObject(wire));
    assert_number_field(wire, "position_quantum", 0.0625);
    assert_number_field(wire, "heading_steps", 1024);
    assert_number_field(wire, "lod_cells_per_tile", 8);
    cJSON_Delete(h);
    /* v1 connections keep the v1 hello: no wire object. */
    info.protocol = 1;
    h = parse_owned(hello_of(&info, w));
    assert_number_field(h, "protocol", 1);
    assert_null(cJSON_GetObjectItemCaseSensitive(h, "wire"));
    cJSON_Delete(h);
}

static void hello_should_describe_every_registry_parameter(void **state)
{
    world_t *w = *state;
    static const char *const type_names[] = {"float", "int", "bool", "enum"};
    hello_info_t info = {.client_id = 1, .tick_hz = 60, .snapshot_hz = 30};
    cJSON *h = parse_owned(hello_of(&info, w));
    const cJSON *params = field(h, "params");
    assert_true(cJSON_IsArray(params));
    assert_int_equal(cJSON_GetArraySize(params), params_count());

    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        const cJSON *p = cJSON_GetArrayItem(params, (int)i);
        assert_true(cJSON_IsObject(p));
        assert_string_field(p, "name", d->name);
        assert_string_field(p, "type", type_names[d->type]);
        assert_number_field(p, "min", d->min);
        assert_number_field(p, "max", d->max);
        assert_string_field(p, "unit", d->unit);
        assert_string_field(p, "help", d->help);
        const cJSON *def = field(p, "default"), *value = field(p, "value");
        switch (d->type) {
        case PARAM_ENUM: {
            const cJSON *values = field(p, "values");
            assert_true(cJSON_IsArray(values));
            assert_int_equal(cJSON_GetArraySize(values), (int)d->max + 1);
            for (int k = 0; k <= (int)d->max; k++) {
                const cJSON *v = cJSON_GetArrayItem(values, k);
                assert_true(cJSON_IsString(v));
                assert_string_equal(v->valuestring, d->enum_names[k]);
            }
            assert_true(cJSON_IsString(def));
            assert_string_equal(def->valuestring, d->enum_names[(int)d->def]);
            assert_true(cJSON_IsString(value));
            assert_string_equal(value->valuestring, d->enum_names[(int)params_get(&w->params, i)]);
            break;
        }
        case PARAM_BOOL:
            assert_true(cJSON_IsBool(def));
            assert_true(cJSON_IsBool(value));
            assert_int_equal(cJSON_IsTrue(value), params_get(&w->params, i) != 0);
            break;
        default:
            assert_null(cJSON_GetObjectItemCaseSensitive(p, "values"));
            assert_number_field(p, "default", d->def);
            assert_number_field(p, "value", params_get(&w->params, i));
            break;
        }
    }
    cJSON_Delete(h);
}

static void hello_should_match_the_documented_examples(void **state)
{
    world_t *w = *state;
    hello_info_t info = {.client_id = 3, .tick_hz = 60, .snapshot_hz = 30};
    cJSON *h = parse_owned(hello_of(&info, w));

    const cJSON *sep = find_param(h, "sep_radius");
    assert_string_field(sep, "type", "float");
    assert_number_field(sep, "min", 1);
    assert_number_field(sep, "max", 200);
    assert_number_field(sep, "default", 25);
    assert_number_field(sep, "value", 25);
    assert_string_field(sep, "unit", "u");
    assert_string_field(sep, "help", "separation zone radius");

    const cJSON *border = find_param(h, "border");
    assert_string_field(border, "type", "enum");
    const cJSON *values = field(border, "values");
    assert_true(cJSON_IsArray(values));
    assert_int_equal(cJSON_GetArraySize(values), 3);
    assert_string_equal(cJSON_GetArrayItem(values, 0)->valuestring, "wrap");
    assert_string_equal(cJSON_GetArrayItem(values, 1)->valuestring, "bounce");
    assert_string_equal(cJSON_GetArrayItem(values, 2)->valuestring, "respawn");
    assert_string_field(border, "default", "wrap");
    assert_string_field(border, "value", "wrap");
    assert_string_field(border, "unit", "");

    /* a bound that is not exact in float shows as typed */
    const cJSON *look = find_param(h, "avoid_lookahead");
    assert_number_field(look, "min", 0.05);
    assert_number_field(look, "max", 5);
    assert_number_field(look, "default", 1);
    assert_string_field(look, "unit", "s");
    cJSON_Delete(h);
}

static void hello_should_show_stored_float_values_in_shortest_form(void **state)
{
    world_t *w = *state;
    char msg[160];
    assert_int_equal(world_set_param(w, index_of("w_sep"), 0.1, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_set_param(w, index_of("fov_coh"), 123.4, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_set_param(w, index_of("max_speed"), 333.3, msg, sizeof msg), SIM_OK);
    assert_int_equal(world_set_param(w, index_of("avoid_lookahead"), 0.05, msg, sizeof msg), SIM_OK);
    hello_info_t info = {.client_id = 1, .tick_hz = 60, .snapshot_hz = 30};
    char *text = hello_of(&info, w);
    assert_non_null(text);
    if (strstr(text, "0.100000001") || strstr(text, "123.40000") || strstr(text, "333.29998") ||
        strstr(text, "0.0500000007"))
        fail_msg("float parameters shown with float noise: %s", text);
    cJSON *h = parse_owned(text);
    assert_number_field(find_param(h, "w_sep"), "value", 0.1);
    assert_number_field(find_param(h, "fov_coh"), "value", 123.4);
    assert_number_field(find_param(h, "max_speed"), "value", 333.3);
    assert_number_field(find_param(h, "avoid_lookahead"), "value", 0.05);
    /* defaults are untouched */
    assert_number_field(find_param(h, "w_sep"), "default", 1.5);
    cJSON_Delete(h);
}

static void hello_should_show_an_enum_value_by_name(void **state)
{
    world_t *w = *state;
    char msg[160];
    assert_int_equal(world_set_param(w, index_of("border"), BORDER_BOUNCE, msg, sizeof msg), SIM_OK);
    hello_info_t info = {.client_id = 1, .tick_hz = 60, .snapshot_hz = 30};
    cJSON *h = parse_owned(hello_of(&info, w));
    const cJSON *border = find_param(h, "border");
    assert_string_field(border, "value", "bounce");
    assert_string_field(border, "default", "wrap");
    cJSON_Delete(h);
}

/* ------------------------------------------------------------ ack */

static void ack_without_extra_fields_should_carry_type_id_cmd_and_tick_only(void **state)
{
    (void)state;
    static const cmd_kind_t plain[] = {CMD_SET_TARGET, CMD_CLEAR_TARGET, CMD_REMOVE_OBSTACLE, CMD_PAUSE,
                                       CMD_RESUME};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        sim_cmd_t c = command(plain[i], 12);
        sim_result_t r;
        memset(&r, 0, sizeof r);
        cJSON *a = parse_owned(msg_ack(&c, &r, 4021));
        assert_string_field(a, "type", "ack");
        assert_number_field(a, "id", 12);
        assert_string_field(a, "cmd", cmd_name(plain[i]));
        assert_number_field(a, "tick", 4021);
        assert_int_equal(count_fields(a), 4);
        cJSON_Delete(a);
    }
}

static void ack_of_add_obstacle_should_carry_the_obstacle_id(void **state)
{
    (void)state;
    sim_cmd_t c = command(CMD_ADD_OBSTACLE, 12);
    sim_result_t r;
    memset(&r, 0, sizeof r);
    r.obstacle_id = 5;
    cJSON *a = parse_owned(msg_ack(&c, &r, 4021));
    assert_string_field(a, "type", "ack");
    assert_number_field(a, "id", 12);
    assert_string_field(a, "cmd", "add_obstacle");
    assert_number_field(a, "tick", 4021);
    assert_number_field(a, "obstacle_id", 5);
    cJSON_Delete(a);
}

static void ack_of_add_agents_should_carry_the_first_id_and_count(void **state)
{
    (void)state;
    sim_cmd_t c = command(CMD_ADD_AGENTS, 1);
    sim_result_t r;
    memset(&r, 0, sizeof r);
    r.first_agent_id = 1000;
    r.count = 250;
    cJSON *a = parse_owned(msg_ack(&c, &r, 77));
    assert_string_field(a, "cmd", "add_agents");
    assert_number_field(a, "tick", 77);
    assert_number_field(a, "first_agent_id", 1000);
    assert_number_field(a, "count", 250);
    cJSON_Delete(a);
}

static void ack_of_reset_should_carry_the_seed_in_use(void **state)
{
    (void)state;
    sim_cmd_t c = command(CMD_RESET, 2);
    sim_result_t r;
    memset(&r, 0, sizeof r);
    r.seed = 4294967295u;
    r.count = 10;
    cJSON *a = parse_owned(msg_ack(&c, &r, 0));
    assert_string_field(a, "cmd", "reset");
    assert_number_field(a, "tick", 0);
    assert_number_field(a, "seed", 4294967295.0);
    cJSON_Delete(a);
}

static void ack_of_set_param_should_carry_the_name_and_stored_value(void **state)
{
    (void)state;
    sim_cmd_t c = command(CMD_SET_PARAM, 3);
    c.param = (int)index_of("w_sep");
    c.value = 0.1;
    sim_result_t r;
    memset(&r, 0, sizeof r);
    r.value = 0.1;
    cJSON *a = parse_owned(msg_ack(&c, &r, 10));
    assert_string_field(a, "cmd", "set_param");
    assert_string_field(a, "name", "w_sep");
    assert_number_field(a, "value", 0.1);
    cJSON_Delete(a);

    c.param = (int)index_of("border");
    c.value = BORDER_BOUNCE;
    r.value = BORDER_BOUNCE;
    a = parse_owned(msg_ack(&c, &r, 11));
    assert_string_field(a, "name", "border");
    assert_string_field(a, "value", "bounce");
    cJSON_Delete(a);
}

static void ack_of_a_command_without_id_should_send_null_id(void **state)
{
    (void)state;
    sim_cmd_t c = command(CMD_PAUSE, -1);
    sim_result_t r;
    memset(&r, 0, sizeof r);
    cJSON *a = parse_owned(msg_ack(&c, &r, 5));
    assert_null_field(a, "id");
    assert_string_field(a, "cmd", "pause");
    cJSON_Delete(a);

    c.request_id = 4294967295LL;
    a = parse_owned(msg_ack(&c, &r, (uint64_t)1 << 40));
    assert_number_field(a, "id", 4294967295.0);
    assert_number_field(a, "tick", 1099511627776.0);
    cJSON_Delete(a);

    c.request_id = 0;
    a = parse_owned(msg_ack(&c, &r, 5));
    assert_number_field(a, "id", 0);
    cJSON_Delete(a);
}

static void ack_should_report_what_the_world_actually_did(void **state)
{
    world_t *w = *state;
    sim_cmd_t c = command(CMD_ADD_OBSTACLE, 40);
    c.x = 10;
    c.y = 10;
    c.radius = 5;
    sim_result_t r;
    sim_apply(w, &c, &r);
    assert_int_equal(r.status, SIM_OK);
    sim_apply(w, &c, &r);
    assert_int_equal(r.status, SIM_OK);
    cJSON *a = parse_owned(msg_ack(&c, &r, w->tick));
    assert_number_field(a, "obstacle_id", 1);
    assert_number_field(a, "tick", (double)w->tick);
    cJSON_Delete(a);

    c = command(CMD_ADD_AGENTS, 41);
    c.count = 5;
    sim_apply(w, &c, &r);
    assert_int_equal(r.status, SIM_OK);
    a = parse_owned(msg_ack(&c, &r, w->tick));
    assert_number_field(a, "first_agent_id", 10);
    assert_number_field(a, "count", 5);
    cJSON_Delete(a);
}

/* ------------------------------------------------------------ error */

static void error_should_carry_id_cmd_code_and_message(void **state)
{
    (void)state;
    cJSON *e = parse_owned(msg_error("out_of_range", "sep_radius: 500 is above the maximum 200", 12, "set_param"));
    assert_string_field(e, "type", "error");
    assert_number_field(e, "id", 12);
    assert_string_field(e, "cmd", "set_param");
    assert_string_field(e, "code", "out_of_range");
    assert_string_field(e, "message", "sep_radius: 500 is above the maximum 200");
    assert_int_equal(count_fields(e), 5);
    cJSON_Delete(e);
}

static void error_with_unknown_id_and_cmd_should_send_null_for_both(void **state)
{
    (void)state;
    cJSON *e = parse_owned(msg_error("bad_json", "the message is not valid JSON", -1, NULL));
    assert_string_field(e, "type", "error");
    assert_null_field(e, "id");
    assert_null_field(e, "cmd");
    assert_string_field(e, "code", "bad_json");
    assert_string_field(e, "message", "the message is not valid JSON");
    cJSON_Delete(e);

    /* each independently */
    e = parse_owned(msg_error("unknown_command", "unknown command 'x'", 7, NULL));
    assert_number_field(e, "id", 7);
    assert_null_field(e, "cmd");
    cJSON_Delete(e);
    e = parse_owned(msg_error("bad_type", "field 'id' must be a whole number", -1, "pause"));
    assert_null_field(e, "id");
    assert_string_field(e, "cmd", "pause");
    cJSON_Delete(e);
}

static void error_message_should_survive_quotes_and_backslashes(void **state)
{
    (void)state;
    const char *tricky = "no parameter named 'a\"b\\c' </script>";
    cJSON *e = parse_owned(msg_error("unknown_param", tricky, 1, "set_param"));
    assert_string_field(e, "message", tricky);
    cJSON_Delete(e);
}

/* ------------------------------------------------------------ param */

static void param_should_carry_name_value_by_and_tick(void **state)
{
    (void)state;
    cJSON *p = parse_owned(msg_param(index_of("sep_radius"), 30, -1, 3, 4022, NULL, 0));
    assert_string_field(p, "type", "param");
    assert_string_field(p, "name", "sep_radius");
    assert_number_field(p, "value", 30);
    assert_number_field(p, "by", 3);
    assert_number_field(p, "tick", 4022);
    assert_int_equal(count_fields(p), 5);
    cJSON_Delete(p);

    p = parse_owned(msg_param(index_of("w_sep"), 0.1, -1, 4294967295u, 0, NULL, 0));
    assert_number_field(p, "value", 0.1);
    assert_number_field(p, "by", 4294967295.0);
    assert_number_field(p, "tick", 0);
    cJSON_Delete(p);

    p = parse_owned(msg_param(index_of("border"), BORDER_BOUNCE, -1, 1, 2, NULL, 0));
    assert_string_field(p, "name", "border");
    assert_string_field(p, "value", "bounce");
    cJSON_Delete(p);
}

static void param_of_an_index_outside_the_registry_should_be_null(void **state)
{
    (void)state;
    assert_null(msg_param(params_count(), 1, -1, 1, 1, NULL, 0));
    assert_null(msg_param(params_count() + 100, 1, -1, 1, 1, NULL, 0));
}

/* ------------------------------------------------------------ error codes */

static void error_code_should_map_every_sim_status_to_its_wire_code(void **state)
{
    (void)state;
    static const struct {
        int status;
        const char *code;
    } map[] = {
        {SIM_E_OUT_OF_RANGE, "out_of_range"}, {SIM_E_UNKNOWN_PARAM, "unknown_param"},
        {SIM_E_BAD_TYPE, "bad_type"},         {SIM_E_NOT_FOUND, "not_found"},
        {SIM_E_LIMIT, "limit_reached"},       {SIM_E_FORBIDDEN, "forbidden"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        const char *code = msg_error_code(map[i].status);
        assert_non_null(code);
        assert_string_equal(code, map[i].code);
    }
}

/* In a crowd the pair metrics are not computed: null, not a made-up 0. */
static void metrics_without_pair_counts_send_null_for_them(void **state)
{
    (void)state;
    metrics_t m = {.tick = 9, .agents = 5000, .polarization = 0.5, .milling = 0.25, .mean_nn_distance = NAN,
                   .penetrations = 2, .min_clearance = NAN, .pairs_skipped = true};
    cJSON *j = parse_owned(msg_metrics(&m));
    for (const char *const *k = (const char *const[]){"clusters", "largest_cluster", "collisions", "mean_nn_distance",
                                                     NULL};
         *k; k++)
        assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, *k)));
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "penetrations")->valuedouble == 2);
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "polarization")->valuedouble == 0.5);
    cJSON_Delete(j);
    m.pairs_skipped = false;
    m.clusters = 3;
    j = parse_owned(msg_metrics(&m));
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "clusters")->valuedouble == 3);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "collisions")));
    cJSON_Delete(j);
}

static void a_pong_echoes_the_ping_id_or_has_none(void **state)
{
    (void)state;
    char text[64];
    msg_pong(15, text, sizeof text);
    assert_string_equal(text, "{\"type\":\"pong\",\"id\":15}");
    msg_pong(-1, text, sizeof text);
    assert_string_equal(text, "{\"type\":\"pong\"}");
}

int main(void)
{
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pong_echoes_the_ping_id_or_has_none),
        cmocka_unit_test_setup_teardown(hello_should_announce_protocol_client_world_rates_and_limits, make_world,
                                        free_world),
        cmocka_unit_test_setup_teardown(hello_of_a_v2_connection_should_state_its_protocol_and_precision, make_world, free_world),
        cmocka_unit_test_setup_teardown(hello_should_describe_every_registry_parameter, make_world, free_world),
        cmocka_unit_test_setup_teardown(hello_should_match_the_documented_examples, make_world, free_world),
        cmocka_unit_test_setup_teardown(hello_should_show_stored_float_values_in_shortest_form, make_world,
                                        free_world),
        cmocka_unit_test_setup_teardown(hello_should_show_an_enum_value_by_name, make_world, free_world),
        cmocka_unit_test(ack_without_extra_fields_should_carry_type_id_cmd_and_tick_only),
        cmocka_unit_test(metrics_without_pair_counts_send_null_for_them),
        cmocka_unit_test(ack_of_add_obstacle_should_carry_the_obstacle_id),
        cmocka_unit_test(ack_of_add_agents_should_carry_the_first_id_and_count),
        cmocka_unit_test(ack_of_reset_should_carry_the_seed_in_use),
        cmocka_unit_test(ack_of_set_param_should_carry_the_name_and_stored_value),
        cmocka_unit_test(ack_of_a_command_without_id_should_send_null_id),
        cmocka_unit_test_setup_teardown(ack_should_report_what_the_world_actually_did, make_world, free_world),
        cmocka_unit_test(error_should_carry_id_cmd_code_and_message),
        cmocka_unit_test(error_with_unknown_id_and_cmd_should_send_null_for_both),
        cmocka_unit_test(error_message_should_survive_quotes_and_backslashes),
        cmocka_unit_test(param_should_carry_name_value_by_and_tick),
        cmocka_unit_test(param_of_an_index_outside_the_registry_should_be_null),
        cmocka_unit_test(error_code_should_map_every_sim_status_to_its_wire_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

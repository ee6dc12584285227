/* Unit tests of the NATS pool's messages (server/src/experiment/pool_protocol.c):
 * names from a hash and back, each message encoded and decoded again, a
 * result cut into parts, and what a stranger might publish refused with a
 * reason: not JSON, the wrong kind, wrong types and ranges, a body of another
 * length, a spec that does not hash to its name, parts that do not add up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment/pool_protocol.h"

static void names_round_trip(void **state)
{
    (void)state;
    pool_names_t n, back;
    pool_names_make(0x0123456789abcdefull, &n);
    assert_string_equal(n.stream, "SWARMCAST_EXP_0123456789abcdef");
    assert_string_equal(n.run, "swarmcast.exp.0123456789abcdef.run");
    assert_string_equal(n.result, "swarmcast.exp.0123456789abcdef.result");
    assert_string_equal(n.all, "swarmcast.exp.0123456789abcdef.>");
    assert_string_equal(n.max_deliveries,
                        "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.SWARMCAST_EXP_0123456789abcdef.workers");
    assert_int_equal(pool_names_from_stream(n.stream, &back), 0);
    assert_string_equal(back.spec, n.spec);
    assert_int_equal(pool_names_from_stream("SWARMCAST_EXP_0123", &back), -1);
    assert_int_equal(pool_names_from_stream("SWARMCAST_EXP_0123456789ABCDEF", &back), -1);
    assert_int_equal(pool_names_from_stream("KV_other", &back), -1);
}

static void spec_round_trip_and_hash(void **state)
{
    (void)state;
    const char *json = "{\"steps\": 10}", *table = "w_ali\n1\n";
    uint64_t h = pool_experiment_hash(json, strlen(json), table, strlen(table));
    assert_int_not_equal(h, pool_experiment_hash(json, strlen(json), NULL, 0));
    pool_names_t n;
    pool_names_make(h, &n);
    char *m;
    size_t len;
    assert_int_equal(pool_spec_encode(n.hash, json, strlen(json), table, strlen(table), &m, &len), 0);
    pool_spec_t s;
    char why[200];
    assert_int_equal(pool_spec_decode(m, len, &s, why, sizeof why), 0);
    assert_string_equal(s.hash, n.hash);
    assert_int_equal(s.json_len, strlen(json));
    assert_memory_equal(s.json, json, s.json_len);
    assert_memory_equal(s.table, table, s.table_len);
    /* one byte of the content changed: it no longer hashes to its name */
    m[len - 2] = '2';
    assert_int_equal(pool_spec_decode(m, len, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "hashes to"));
    /* a byte short */
    assert_int_equal(pool_spec_decode(m, len - 1, &s, why, sizeof why), -1);
    assert_non_null(strstr(why, "the body has"));
    free(m);
}

static void run_round_trip(void **state)
{
    (void)state;
    char *m;
    size_t len;
    assert_int_equal(pool_run_encode("00000000000000aa", 7, 12, 0xfeedfacecafebeefull, &m, &len), 0);
    pool_run_t r;
    char why[200];
    assert_int_equal(pool_run_decode(m, len, &r, why, sizeof why), 0);
    assert_string_equal(r.hash, "00000000000000aa");
    assert_int_equal(r.spec_seq, 7);
    assert_int_equal(r.index, 12);
    assert_true(r.run_id == 0xfeedfacecafebeefull);
    free(m);
}

static int decode_run_text(const char *text, char *why, size_t why_len)
{
    pool_run_t r;
    return pool_run_decode(text, strlen(text), &r, why, why_len);
}

static void strangers_refused(void **state)
{
    (void)state;
    char why[200];
    assert_int_equal(decode_run_text("", why, sizeof why), -1);
    assert_int_equal(decode_run_text("garbage", why, sizeof why), -1);
    assert_non_null(strstr(why, "not JSON"));
    assert_int_equal(decode_run_text("[1,2]", why, sizeof why), -1);
    assert_int_equal(decode_run_text("{\"pool\":2,\"kind\":\"run\"}", why, sizeof why), -1);
    assert_non_null(strstr(why, "version"));
    assert_int_equal(decode_run_text("{\"pool\":1,\"kind\":\"result\"}", why, sizeof why), -1);
    assert_non_null(strstr(why, "\"run\""));
    const char *base = "{\"pool\":1,\"kind\":\"run\",\"experiment\":\"00000000000000aa\",\"spec\":1,";
    char text[400];
    snprintf(text, sizeof text, "%s\"index\":-1,\"run\":\"0000000000000001\"}", base);
    assert_int_equal(decode_run_text(text, why, sizeof why), -1);
    assert_non_null(strstr(why, "index"));
    snprintf(text, sizeof text, "%s\"index\":1.5,\"run\":\"0000000000000001\"}", base);
    assert_int_equal(decode_run_text(text, why, sizeof why), -1);
    snprintf(text, sizeof text, "%s\"index\":1,\"run\":\"00000000000000G1\"}", base);
    assert_int_equal(decode_run_text(text, why, sizeof why), -1);
    assert_non_null(strstr(why, "run"));
    snprintf(text, sizeof text, "%s\"index\":1,\"run\":\"0000000000000001\"}\nextra", base);
    assert_int_equal(decode_run_text(text, why, sizeof why), -1);
    assert_non_null(strstr(why, "no body"));
    /* a duplicate key: strict JSON refuses it */
    snprintf(text, sizeof text, "%s\"index\":1,\"index\":2,\"run\":\"0000000000000001\"}", base);
    assert_int_equal(decode_run_text(text, why, sizeof why), -1);
    /* no head line within the limit */
    char *big = malloc(POOL_MAX_HEAD + 10);
    memset(big, ' ', POOL_MAX_HEAD + 9);
    big[POOL_MAX_HEAD + 9] = '\0';
    pool_run_t r;
    assert_int_equal(pool_run_decode(big, POOL_MAX_HEAD + 9, &r, why, sizeof why), -1);
    assert_non_null(strstr(why, "no head line"));
    free(big);
}

/* A result of `bytes` rows cut into parts of `room`, decoded and joined again. */
static void result_parts_join(void **state)
{
    (void)state;
    char rows[1000];
    for (size_t i = 0; i < sizeof rows; i++) rows[i] = (char)('a' + i % 26);
    size_t room = 300;
    pool_result_t r = {.index = 3, .run_id = 9, .attempt = 77, .ok = true, .rows = 10, .deliveries = 2,
                       .bytes = sizeof rows};
    snprintf(r.hash, sizeof r.hash, "00000000000000aa");
    r.parts = pool_parts_for(r.bytes, room);
    assert_int_equal(r.parts, 4);
    char joined[1000];
    size_t have = 0;
    for (uint32_t k = 0; k < r.parts; k++) {
        r.part = k;
        r.offset = (uint64_t)k * room;
        size_t n = r.bytes - r.offset < room ? (size_t)(r.bytes - r.offset) : room;
        char msg[POOL_MAX_HEAD + 300];
        assert_int_equal(pool_result_head(&r, msg, POOL_MAX_HEAD), 0);
        size_t head = strlen(msg);
        memcpy(msg + head, rows + r.offset, n);
        pool_result_t d;
        char why[200];
        assert_int_equal(pool_result_decode(msg, head + n, &d, why, sizeof why), 0);
        assert_int_equal(d.part, k);
        assert_int_equal(d.offset, have);
        assert_true(d.ok);
        assert_int_equal(d.deliveries, 2);
        assert_true(d.attempt == 77);
        memcpy(joined + have, d.body, d.body_len);
        have += d.body_len;
        if (k + 1 == r.parts) {
            /* the last part one byte short does not end where the head says */
            assert_int_equal(pool_result_decode(msg, head + n - 1, &d, why, sizeof why), -1);
        } else {
            /* a part that goes past the whole */
            r.offset = r.bytes - 10;
            assert_int_equal(pool_result_head(&r, msg, POOL_MAX_HEAD), 0);
            memcpy(msg + strlen(msg), rows, 20);
            assert_int_equal(pool_result_decode(msg, strlen(msg) + 20, &d, why, sizeof why), -1);
        }
    }
    assert_int_equal(have, sizeof rows);
    assert_memory_equal(joined, rows, sizeof rows);
}

static void failed_result(void **state)
{
    (void)state;
    pool_result_t r = {.index = 1, .run_id = 2, .attempt = 3, .ok = false, .deliveries = 1, .parts = 1};
    snprintf(r.hash, sizeof r.hash, "00000000000000aa");
    snprintf(r.why, sizeof r.why, "9000000 agents is above --max-agents\n(\"quoted\")");
    char msg[POOL_MAX_HEAD];
    assert_int_equal(pool_result_head(&r, msg, sizeof msg), 0);
    assert_non_null(strchr(msg, '\n'));
    assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1); /* one line: the reason's newline is escaped */
    pool_result_t d;
    char why[200];
    assert_int_equal(pool_result_decode(msg, strlen(msg), &d, why, sizeof why), 0);
    assert_false(d.ok);
    assert_string_equal(d.why, r.why);
    /* a failed run with rows, or without a reason, is not a result of ours */
    r.bytes = 4;
    assert_int_equal(pool_result_head(&r, msg, sizeof msg), 0);
    strcat(msg, "abcd");
    assert_int_equal(pool_result_decode(msg, strlen(msg), &d, why, sizeof why), -1);
    r.bytes = 0;
    r.why[0] = '\0';
    assert_int_equal(pool_result_head(&r, msg, sizeof msg), 0);
    assert_int_equal(pool_result_decode(msg, strlen(msg), &d, why, sizeof why), -1);
}

static void advisory(void **state)
{
    (void)state;
    const char *a = "{\"type\":\"io.nats.jetstream.advisory.v1.max_deliver\",\"stream\":\"S\",\"consumer\":\"workers\","
                    "\"stream_seq\":42,\"deliveries\":3}";
    uint64_t seq, n;
    assert_int_equal(pool_advisory_decode(a, strlen(a), &seq, &n), 0);
    assert_int_equal(seq, 42);
    assert_int_equal(n, 3);
    assert_int_equal(pool_advisory_decode("{\"stream_seq\":\"x\"}", 18, &seq, &n), -1);
    assert_int_equal(pool_advisory_decode("nope", 4, &seq, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_round_trip), cmocka_unit_test(spec_round_trip_and_hash),
        cmocka_unit_test(run_round_trip),   cmocka_unit_test(strangers_refused),
        cmocka_unit_test(result_parts_join), cmocka_unit_test(failed_result),
        cmocka_unit_test(advisory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

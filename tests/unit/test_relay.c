/* A relay's logic without a network: the id → slot table, the bundles it
 * rebuilds from view and snapshot messages (and when it must drop deltas so
 * that clients get a key), and the lease JSON both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "relay/client_slots.h"
#include "relay/relay_lease.h"
#include "relay/relay_stream.h"

/* ---- client_slots ---- */

static void ids_map_to_their_slots_until_removed(void **state)
{
    (void)state;
    client_slots_t *t = client_slots_create(100);
    size_t slot;
    for (uint32_t i = 1; i <= 100; i++) assert_int_equal(client_slots_put(t, (5u << 22) | i, i - 1), 0);
    assert_int_equal(client_slots_count(t), 100);
    assert_int_equal(client_slots_put(t, (5u << 22) | 101, 0), -1); /* full */
    for (uint32_t i = 1; i <= 100; i++) {
        assert_int_equal(client_slots_get(t, (5u << 22) | i, &slot), 0);
        assert_int_equal(slot, i - 1);
    }
    assert_int_equal(client_slots_get(t, (6u << 22) | 1, &slot), -1);
    client_slots_destroy(t);
}

/* Removing from the middle of probe runs must leave every other id findable
 * (the backward shift), whatever the order of removals. */
static void removals_keep_every_other_id_findable(void **state)
{
    (void)state;
    enum { N = 600 };
    client_slots_t *t = client_slots_create(N);
    for (uint32_t i = 1; i <= N; i++) assert_int_equal(client_slots_put(t, i * 7919u, i), 0);
    for (uint32_t i = 1; i <= N; i += 3) client_slots_remove(t, i * 7919u);
    for (uint32_t i = 1; i <= N; i++) {
        size_t slot = 0;
        int rc = client_slots_get(t, i * 7919u, &slot);
        if ((i - 1) % 3 == 0) {
            assert_int_equal(rc, -1);
        } else {
            assert_int_equal(rc, 0);
            assert_int_equal(slot, i);
        }
    }
    assert_int_equal(client_slots_count(t), N - N / 3);
    /* Freed room is usable again. */
    for (uint32_t i = 1; i <= N; i += 3) assert_int_equal(client_slots_put(t, i * 7919u + 1, 0), 0);
    assert_int_equal(client_slots_count(t), N);
    client_slots_destroy(t);
}

/* ---- relay_stream ---- */

static const wire2_rect_t WORLD = {0, 0, 0, 1, 1};
static const wire2_rect_t CORNER = {2, 0, 0, 1, 1};

static bridge_bytes_t bytes(const char *s) { return (bridge_bytes_t){(const uint8_t *)s, strlen(s), true}; }
static const bridge_bytes_t ABSENT = {NULL, 0, false};

static bridge_view_t view_msg(uint32_t seq, uint32_t sim_id, wire2_rect_t rect, const char *key, const char *delta)
{
    return (bridge_view_t){.seq = seq, .sim_view_id = sim_id, .mode = WIRE2_DETAIL, .rect = rect,
                           .key = bytes(key), .delta = delta ? bytes(delta) : ABSENT,
                           .key_delta = delta ? bytes("kd") : ABSENT};
}

static bridge_snapshot_t snap_msg(uint32_t seq)
{
    return (bridge_snapshot_t){.seq = seq, .scene_version = 1, .header = bytes("HEADER-NO-SCENE"),
                               .header_scene = bytes("HEADER-SCENE"), .grid = {.wq = 10, .hq = 20}};
}

static void assert_buf(const shared_buf_t *b, const char *s)
{
    assert_non_null(b);
    assert_int_equal(b->len, strlen(s));
    assert_memory_equal(shared_buf_data(b), s, b->len);
}

static void a_snapshot_becomes_a_bundle_of_the_local_views_with_a_message_of_its_seq(void **state)
{
    (void)state;
    relay_stream_t *s = relay_stream_create();
    bridge_view_t w = view_msg(7, 3, WORLD, "key-world", "delta-world");
    bridge_view_t c = view_msg(6, 4, CORNER, "key-corner-old", NULL);
    assert_int_equal(relay_stream_put_view(s, &w), 0);
    assert_int_equal(relay_stream_put_view(s, &c), 0);
    /* Two local views share the world grant; the corner's message is of an older seq. */
    relay_local_view_t locals[] = {{11, WIRE2_DETAIL, WORLD}, {12, WIRE2_DETAIL, CORNER}, {13, WIRE2_DETAIL, WORLD}};
    bridge_snapshot_t snap = snap_msg(7);
    bundle_t *b = relay_stream_bundle(s, &snap, locals, 3);
    assert_non_null(b);
    assert_int_equal(b->seq, 7);
    assert_int_equal(b->scene_version, 1);
    assert_int_equal(b->grid.wq, 10);
    assert_int_equal(b->grid.hq, 20);
    assert_buf(b->header, "HEADER-NO-SCENE");
    assert_buf(b->header_scene, "HEADER-SCENE");
    assert_int_equal(b->n_views, 2);
    assert_int_equal(b->views[0].view_id, 11);
    assert_int_equal(b->views[1].view_id, 13);
    assert_buf(b->views[0].key, "key-world");
    /* Nothing fed these views before: no delta, their clients get the key. */
    assert_null(b->views[0].delta);
    assert_null(b->views[0].key_delta);
    bundle_free(b);
    relay_stream_destroy(s);
}

static void deltas_pass_only_when_the_same_sim_view_fed_the_previous_seq(void **state)
{
    (void)state;
    relay_stream_t *s = relay_stream_create();
    relay_local_view_t local = {11, WIRE2_DETAIL, WORLD};
    bridge_snapshot_t snap;
    bundle_t *b;

    bridge_view_t v = view_msg(1, 3, WORLD, "k1", NULL);
    relay_stream_put_view(s, &v);
    snap = snap_msg(1);
    bundle_free(relay_stream_bundle(s, &snap, &local, 1));

    /* seq 2 follows seq 1 from the same view: the delta goes through. */
    v = view_msg(2, 3, WORLD, "k2", "d2");
    relay_stream_put_view(s, &v);
    snap = snap_msg(2);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_int_equal(b->n_views, 1);
    assert_buf(b->views[0].delta, "d2");
    assert_buf(b->views[0].key_delta, "kd");
    bundle_free(b);

    /* seq 3 lost: seq 4's delta (from 3) is of no use. */
    v = view_msg(4, 3, WORLD, "k4", "d4");
    relay_stream_put_view(s, &v);
    snap = snap_msg(4);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_buf(b->views[0].key, "k4");
    assert_null(b->views[0].delta);
    assert_null(b->views[0].key_delta);
    bundle_free(b);

    /* seq 5 follows, but from another simulation view (restarted, re-leased). */
    v = view_msg(5, 9, WORLD, "k5", "d5");
    relay_stream_put_view(s, &v);
    snap = snap_msg(5);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_null(b->views[0].delta);
    bundle_free(b);

    /* seq 6 from view 9 again: deltas resume. */
    v = view_msg(6, 9, WORLD, "k6", "d6");
    relay_stream_put_view(s, &v);
    snap = snap_msg(6);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_buf(b->views[0].delta, "d6");
    bundle_free(b);

    /* A local view absent from one bundle (no message of that seq) starts
     * again from a key. */
    snap = snap_msg(7);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_int_equal(b->n_views, 0);
    bundle_free(b);
    v = view_msg(8, 9, WORLD, "k8", "d8");
    relay_stream_put_view(s, &v);
    snap = snap_msg(8);
    b = relay_stream_bundle(s, &snap, &local, 1);
    assert_null(b->views[0].delta);
    bundle_free(b);
    relay_stream_destroy(s);
}

static void a_forgotten_subject_and_a_reset_feed_nothing(void **state)
{
    (void)state;
    relay_stream_t *s = relay_stream_create();
    relay_local_view_t local = {11, WIRE2_DETAIL, WORLD};
    bridge_view_t v = view_msg(1, 3, WORLD, "k1", NULL);
    relay_stream_put_view(s, &v);
    assert_int_equal(relay_stream_count(s), 1);
    relay_stream_forget(s, WIRE2_DETAIL, WORLD);
    assert_int_equal(relay_stream_count(s), 0);
    bridge_snapshot_t snap = snap_msg(1);
    bundle_t *b = relay_stream_bundle(s, &snap, &local, 1);
    assert_int_equal(b->n_views, 0);
    bundle_free(b);
    relay_stream_put_view(s, &v);
    relay_stream_reset(s);
    assert_int_equal(relay_stream_count(s), 0);
    relay_stream_destroy(s);
}

/* ---- relay_lease ---- */

static void a_lease_request_names_the_relay_and_each_view(void **state)
{
    (void)state;
    view_spec_t specs[] = {{5, {3, 1, 2, 4, 5}, WIRE2_DETAIL}, {6, {0, 0, 0, 1, 1}, WIRE2_LOD}};
    char *text = relay_lease_request("edge-1", 17, 42, specs, 2, 9);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "relay")->valuestring, "edge-1");
    assert_int_equal(cJSON_GetObjectItem(root, "tag")->valueint, 17);
    assert_int_equal(cJSON_GetObjectItem(root, "seq")->valueint, 42);
    assert_int_equal(cJSON_GetObjectItem(root, "clients")->valueint, 9);
    cJSON *views = cJSON_GetObjectItem(root, "views");
    assert_int_equal(cJSON_GetArraySize(views), 2);
    cJSON *v0 = cJSON_GetArrayItem(views, 0), *v1 = cJSON_GetArrayItem(views, 1);
    assert_string_equal(cJSON_GetObjectItem(v0, "m")->valuestring, "d");
    assert_int_equal(cJSON_GetObjectItem(v0, "l")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(v0, "x0")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(v0, "y0")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(v0, "x1")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(v0, "y1")->valueint, 5);
    assert_string_equal(cJSON_GetObjectItem(v1, "m")->valuestring, "l");
    cJSON_Delete(root);
    free(text);
}

static void an_answer_gives_grants_in_order_the_hello_and_the_world(void **state)
{
    (void)state;
    const char *text = "{\"ok\":true,\"tag\":17,\"seq\":42,\"views\":[{\"m\":\"d\",\"l\":2,\"x0\":0,\"y0\":1,\"x1\":3,"
                       "\"y1\":4},{\"m\":\"l\",\"l\":0,\"x0\":0,\"y0\":0,\"x1\":1,\"y1\":1}],\"hello\":{\"type\":"
                       "\"hello\",\"client_id\":0,\"world\":{\"width\":800,\"height\":600},\"limits\":{\"max_agents\":"
                       "5000},\"role\":\"visitor\"}}";
    relay_lease_answer_t a;
    assert_int_equal(relay_lease_parse(text, strlen(text), &a), 0);
    assert_true(a.ok);
    assert_true(a.has_seq);
    assert_int_equal(a.seq, 42);
    assert_int_equal(a.n_grants, 2);
    assert_int_equal(a.grants[0].mode, WIRE2_DETAIL);
    assert_int_equal(a.grants[0].rect.level, 2);
    assert_int_equal(a.grants[0].rect.y0, 1);
    assert_int_equal(a.grants[0].rect.y1, 4);
    assert_int_equal(a.grants[1].mode, WIRE2_LOD);
    assert_non_null(a.hello);
    assert_true(a.world_width == 800 && a.world_height == 600);
    assert_int_equal(a.max_agents, 5000);
    relay_lease_answer_free(&a);
}

static void a_taken_tag_and_malformed_answers_are_told_apart(void **state)
{
    (void)state;
    relay_lease_answer_t a;
    const char *taken = "{\"ok\":false,\"error\":\"tag_taken\"}";
    assert_int_equal(relay_lease_parse(taken, strlen(taken), &a), 0);
    assert_false(a.ok);
    assert_true(a.tag_taken);
    relay_lease_answer_free(&a);
    static const char *const bad[] = {
        "not json", "[]", "{\"views\":[]}", "{\"ok\":true}",
        "{\"ok\":true,\"views\":[{\"m\":\"x\",\"l\":0,\"x0\":0,\"y0\":0,\"x1\":1,\"y1\":1}]}",
        /* a rect outside its level's tiles */
        "{\"ok\":true,\"views\":[{\"m\":\"d\",\"l\":1,\"x0\":0,\"y0\":0,\"x1\":3,\"y1\":1}]}",
        "{\"ok\":true,\"views\":[{\"m\":\"d\",\"l\":0,\"x0\":0.5,\"y0\":0,\"x1\":1,\"y1\":1}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_int_equal(relay_lease_parse(bad[i], strlen(bad[i]), &a), -1);
}

static void each_viewer_gets_the_sims_hello_with_its_own_id_and_role(void **state)
{
    (void)state;
    const char *sim = "{\"type\":\"hello\",\"protocol\":2,\"client_id\":0,\"role\":\"visitor\",\"control_token\":true,"
                      "\"world\":{\"width\":800,\"height\":600}}";
    char *text = relay_hello_for(sim, (17u << 22) | 5, true, false);
    cJSON *h = cJSON_Parse(text);
    assert_non_null(h);
    assert_int_equal((uint32_t)cJSON_GetObjectItem(h, "client_id")->valuedouble, (17u << 22) | 5);
    assert_string_equal(cJSON_GetObjectItem(h, "role")->valuestring, "operator");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(h, "control_token")));
    assert_int_equal(cJSON_GetObjectItem(h, "protocol")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "world"), "width")->valueint, 800);
    cJSON_Delete(h);
    free(text);
    assert_null(relay_hello_for("[1]", 1, false, true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_map_to_their_slots_until_removed),
        cmocka_unit_test(removals_keep_every_other_id_findable),
        cmocka_unit_test(a_snapshot_becomes_a_bundle_of_the_local_views_with_a_message_of_its_seq),
        cmocka_unit_test(deltas_pass_only_when_the_same_sim_view_fed_the_previous_seq),
        cmocka_unit_test(a_forgotten_subject_and_a_reset_feed_nothing),
        cmocka_unit_test(a_lease_request_names_the_relay_and_each_view),
        cmocka_unit_test(an_answer_gives_grants_in_order_the_hello_and_the_world),
        cmocka_unit_test(a_taken_tag_and_malformed_answers_are_told_apart),
        cmocka_unit_test(each_viewer_gets_the_sims_hello_with_its_own_id_and_role),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

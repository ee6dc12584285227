/* A relay's logic without a network: the id → slot table, the bundles it
 * rebuilds from view and snapshot messages (and when it must drop deltas so
 * that clients get a key), and its side of the lease (grants, hello). */
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
    client_slots_remove(t, (5u << 22) | 100);
    /* An id still held is refused, not moved to the newcomer's slot. */
    assert_int_equal(client_slots_put(t, (5u << 22) | 1, 99), -1);
    assert_int_equal(client_slots_put(t, (5u << 22) | 100, 99), 0);
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

static lease_view_t lv(wire2_mode_t m, unsigned l, unsigned x0, unsigned y0, unsigned x1, unsigned y1)
{
    return (lease_view_t){m, {(uint8_t)l, (uint16_t)x0, (uint16_t)y0, (uint16_t)x1, (uint16_t)y1}};
}

static void a_grant_must_cover_the_asked_view_in_its_mode(void **state)
{
    (void)state;
    lease_view_t asked = lv(WIRE2_DETAIL, 5, 12, 12, 20, 20);
    assert_true(relay_grant_covers(asked, asked));
    assert_true(relay_grant_covers(asked, lv(WIRE2_DETAIL, 0, 0, 0, 1, 1)));  /* the whole world */
    assert_true(relay_grant_covers(asked, lv(WIRE2_DETAIL, 3, 3, 3, 5, 5)));  /* a coarser containing rect */
    assert_false(relay_grant_covers(asked, lv(WIRE2_LOD, 0, 0, 0, 1, 1)));    /* another mode */
    assert_false(relay_grant_covers(asked, lv(WIRE2_DETAIL, 3, 3, 3, 4, 5))); /* one edge short */
    assert_false(relay_grant_covers(asked, lv(WIRE2_DETAIL, 6, 24, 24, 40, 39)));
    assert_true(relay_grant_covers(asked, lv(WIRE2_DETAIL, 6, 24, 24, 40, 40))); /* the same at a finer level */
}

static void the_world_of_a_hello_is_its_size_and_population_limit(void **state)
{
    (void)state;
    relay_world_t w;
    assert_int_equal(relay_hello_world("{\"type\":\"hello\",\"world\":{\"width\":800,\"height\":600},"
                                       "\"limits\":{\"max_agents\":5000}}", &w), 0);
    assert_true(w.width == 800 && w.height == 600);
    assert_int_equal(w.max_agents, 5000);
    assert_int_equal(relay_hello_world("{\"world\":{\"width\":800,\"height\":600}}", &w), 0);
    assert_int_equal(w.max_agents, 0);
    assert_int_equal(relay_hello_world("{\"world\":{\"width\":0,\"height\":600}}", &w), -1);
    assert_int_equal(relay_hello_world("{}", &w), -1);
    assert_int_equal(relay_hello_world("not json", &w), -1);
}

static void each_viewer_gets_the_sims_hello_with_its_own_id_and_role(void **state)
{
    (void)state;
    const char *sim = "{\"type\":\"hello\",\"protocol\":2,\"client_id\":0,\"role\":\"visitor\",\"control_token\":true,"
                      "\"world\":{\"width\":800,\"height\":600},\"public_url\":\"https://sim.example/\"}";
    char *text = relay_hello_for(sim, (17u << 22) | 5, true, false, NULL);
    cJSON *h = cJSON_Parse(text);
    assert_non_null(h);
    assert_int_equal((uint32_t)cJSON_GetObjectItem(h, "client_id")->valuedouble, (17u << 22) | 5);
    assert_string_equal(cJSON_GetObjectItem(h, "role")->valuestring, "operator");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(h, "control_token")));
    assert_int_equal(cJSON_GetObjectItem(h, "protocol")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "world"), "width")->valueint, 800);
    /* The relay serves the page: the simulation's public URL is not its. */
    assert_null(cJSON_GetObjectItem(h, "public_url"));
    cJSON_Delete(h);
    free(text);
    text = relay_hello_for(sim, 7, false, true, "https://relay.example/room");
    h = cJSON_Parse(text);
    assert_string_equal(cJSON_GetObjectItem(h, "public_url")->valuestring, "https://relay.example/room");
    cJSON_Delete(h);
    free(text);
    assert_null(relay_hello_for("[1]", 1, false, true, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_map_to_their_slots_until_removed),
        cmocka_unit_test(removals_keep_every_other_id_findable),
        cmocka_unit_test(a_snapshot_becomes_a_bundle_of_the_local_views_with_a_message_of_its_seq),
        cmocka_unit_test(deltas_pass_only_when_the_same_sim_view_fed_the_previous_seq),
        cmocka_unit_test(a_forgotten_subject_and_a_reset_feed_nothing),
        cmocka_unit_test(a_grant_must_cover_the_asked_view_in_its_mode),
        cmocka_unit_test(the_world_of_a_hello_is_its_size_and_population_limit),
        cmocka_unit_test(each_viewer_gets_the_sims_hello_with_its_own_id_and_role),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

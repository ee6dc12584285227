/* The simulation's bookkeeping of edge relays (server/src/bridge): the
 * remote-client table (ids to slots, reuse, churn), the lease JSON both
 * ways, and the relay leases against a real views registry (views shared
 * and kept across renewals, tag_taken, expiry releasing views). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bridge/lease_json.h"
#include "bridge/relay_leases.h"
#include "bridge/remote_clients.h"

#define ID(tag, local) (((uint32_t)(tag) << REMOTE_TAG_SHIFT) | (local))

/* ---- remote_clients ----------------------------------------------------- */

static void remote_clients_map_ids_to_distinct_slots_and_free_them(void **state)
{
    (void)state;
    remote_clients_t *r = remote_clients_create(3);
    long a = remote_clients_add(r, ID(1, 5)), b = remote_clients_add(r, ID(2, 5)), c = remote_clients_add(r, ID(1, 6));
    assert_true(a >= 0 && b >= 0 && c >= 0);
    assert_true(a != b && b != c && a != c);
    assert_int_equal(remote_clients_find(r, ID(2, 5)), b);
    assert_int_equal(remote_clients_id(r, (size_t)c), ID(1, 6));
    assert_int_equal(remote_clients_count(r), 3);
    /* Full, and a duplicate or a tagless (local) id is refused. */
    assert_int_equal(remote_clients_add(r, ID(3, 1)), -1);
    remote_clients_remove(r, (size_t)b);
    assert_int_equal(remote_clients_find(r, ID(2, 5)), -1);
    assert_int_equal(remote_clients_id(r, (size_t)b), 0);
    assert_int_equal(remote_clients_add(r, ID(1, 5)), -1);
    assert_int_equal(remote_clients_add(r, 12345), -1);
    assert_int_equal(remote_clients_add(r, ID(3, 1)), b); /* the freed slot is reused */
    uint32_t ids[8];
    assert_int_equal(remote_clients_of_tag(r, 1, ids, 8), 2);
    assert_int_equal(remote_clients_of_tag(r, 3, ids, 8), 1);
    assert_int_equal(ids[0], ID(3, 1));
    remote_clients_destroy(r);
}

/* Many ids, removed in a scrambled order: every remaining one is still
 * found (the hash's deletion keeps its runs intact). */
static void remote_clients_find_every_remaining_id_under_churn(void **state)
{
    (void)state;
    enum { N = 4096 };
    remote_clients_t *r = remote_clients_create(N);
    static long index[N];
    for (uint32_t i = 0; i < N; i++) index[i] = remote_clients_add(r, ID(1 + i % 1023, 1 + i));
    for (uint32_t round = 0; round < 3; round++) {
        for (uint32_t i = round; i < N; i += 3) remote_clients_remove(r, (size_t)index[i]);
        for (uint32_t i = 0; i < N; i++) {
            bool gone = i % 3 <= round;
            assert_int_equal(remote_clients_find(r, ID(1 + i % 1023, 1 + i)), gone ? -1 : index[i]);
        }
    }
    assert_int_equal(remote_clients_count(r), 0);
    remote_clients_destroy(r);
}

/* A small table under random adds and removes, against a plain list:
 * colliding ids share runs of the hash, and removal must keep each run
 * reachable. */
static void remote_clients_agree_with_a_plain_list_under_random_churn(void **state)
{
    (void)state;
    enum { CAP = 8 };
    remote_clients_t *r = remote_clients_create(CAP);
    uint32_t held[CAP] = {0};
    long where[CAP];
    uint32_t rng = 12345;
    for (int op = 0; op < 20000; op++) {
        rng = rng * 1103515245u + 12345u;
        size_t k = (rng >> 16) % CAP;
        if (held[k]) {
            remote_clients_remove(r, (size_t)where[k]);
            held[k] = 0;
        } else {
            uint32_t id = ID(1 + (rng >> 8) % 4, 1 + (rng >> 20) % 64);
            bool dup = false;
            for (size_t j = 0; j < CAP; j++) dup |= held[j] == id;
            if (dup) continue;
            where[k] = remote_clients_add(r, id);
            assert_true(where[k] >= 0);
            held[k] = id;
        }
        for (size_t j = 0; j < CAP; j++)
            if (held[j]) assert_int_equal(remote_clients_find(r, held[j]), where[j]);
    }
    remote_clients_destroy(r);
}

/* ---- lease_json --------------------------------------------------------- */

static void a_lease_request_survives_format_and_parse(void **state)
{
    (void)state;
    lease_request_t req = {.relay = "edge-1", .tag = 42, .n_views = 2, .clients = 1234};
    req.views[0] = (lease_view_t){WIRE2_DETAIL, {5, 12, 3, 20, 9}};
    req.views[1] = (lease_view_t){WIRE2_LOD, wire2_rect_world()};
    char *text = lease_request_format(&req);
    assert_non_null(text);
    lease_request_t back;
    assert_int_equal(lease_request_parse(text, strlen(text), &back), 0);
    assert_string_equal(back.relay, "edge-1");
    assert_int_equal(back.tag, 42);
    assert_int_equal(back.clients, 1234);
    assert_int_equal(back.n_views, 2);
    assert_int_equal(back.views[0].mode, WIRE2_DETAIL);
    assert_true(wire2_rect_equal(back.views[0].rect, req.views[0].rect));
    assert_int_equal(back.views[1].mode, WIRE2_LOD);
    assert_string_equal(back.room, ""); /* no "room": the default room's */
    assert_null(strstr(text, "room"));
    free(text);
    /* A room's lease names it, in its canonical form only. */
    snprintf(req.room, sizeof req.room, "%s", "K7PXM3QD");
    text = lease_request_format(&req);
    assert_int_equal(lease_request_parse(text, strlen(text), &back), 0);
    assert_string_equal(back.room, "K7PXM3QD");
    free(text);
    static const char *bad_rooms[] = {"\"k7pxm3qd\"", "\"K7PX-M3QD\"", "\"K7PXM3Q0\"", "\"\"", "7", "\"K7PXM3QDX\""};
    for (size_t i = 0; i < sizeof bad_rooms / sizeof bad_rooms[0]; i++) {
        char bad[160];
        snprintf(bad, sizeof bad, "{\"relay\":\"r\",\"tag\":1,\"room\":%s,\"views\":[],\"clients\":0}", bad_rooms[i]);
        if (lease_request_parse(bad, strlen(bad), &back) != -1) fail_msg("accepted: %s", bad);
    }
}

static void a_lease_request_with_a_bad_field_is_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "{\"relay\":\"r\",\"tag\":0,\"views\":[],\"clients\":0}",     /* tag 0 */
        "{\"relay\":\"r\",\"tag\":1024,\"views\":[],\"clients\":0}",  /* tag too big */
        "{\"relay\":\"r\",\"tag\":1.5,\"views\":[],\"clients\":0}",   /* not whole */
        "{\"relay\":\"r\",\"tag\":1,\"views\":[{\"m\":\"x\",\"l\":0,\"x0\":0,\"y0\":0,\"x1\":1,\"y1\":1}],\"clients\":0}",
        "{\"relay\":\"r\",\"tag\":1,\"views\":[{\"m\":\"d\",\"l\":1,\"x0\":0,\"y0\":0,\"x1\":3,\"y1\":1}],\"clients\":0}",
        "{\"relay\":\"r\",\"tag\":1,\"views\":{},\"clients\":0}",
        "{\"relay\":\"r\",\"tag\":1,\"views\":[]}",                   /* no clients */
        "{\"relay\":\"r\",\"tag\":1,\"tag\":2,\"views\":[],\"clients\":0}", /* duplicate key */
        "[1]",
        "{\"relay\":\"r\",\"tag\":1,\"views\":[],\"clients\":0",      /* cut */
    };
    lease_request_t req;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (lease_request_parse(bad[i], strlen(bad[i]), &req) != -1) fail_msg("accepted: %s", bad[i]);
    const char *good = "{\"relay\":\"r\",\"tag\":1,\"views\":[],\"clients\":0}";
    assert_int_equal(lease_request_parse(good, strlen(good), &req), 0);
}

static void a_lease_reply_carries_the_granted_views_and_the_hello(void **state)
{
    (void)state;
    lease_view_t granted[1] = {{WIRE2_LOD, {3, 0, 0, 8, 8}}};
    char *text = lease_reply_format(9, "edge-1#0000002a", "", granted, 1, "{\"type\":\"hello\",\"client\":0}", false);
    lease_reply_t r;
    assert_int_equal(lease_reply_parse(text, strlen(text), &r), 0);
    assert_true(r.ok);
    assert_string_equal(r.to, "edge-1#0000002a");
    assert_false(r.announce);
    assert_int_equal(r.tag, 9);
    assert_int_equal(r.n_views, 1);
    assert_true(wire2_rect_equal(r.views[0].rect, granted[0].rect));
    assert_string_equal(r.hello, "{\"type\":\"hello\",\"client\":0}");
    free(r.hello);
    free(text);
    text = lease_reply_format(9, NULL, "K7PXM3QD", granted, 1, "{\"type\":\"hello\",\"client\":0}", true);
    assert_int_equal(lease_reply_parse(text, strlen(text), &r), 0);
    assert_true(r.announce);
    assert_string_equal(r.to, "");
    assert_string_equal(r.room, "K7PXM3QD");
    free(r.hello);
    free(text);
    text = lease_reply_refusal("tag_taken", "edge-2#00000001", NULL);
    assert_int_equal(lease_reply_parse(text, strlen(text), &r), 0);
    assert_false(r.ok);
    assert_string_equal(r.error, "tag_taken");
    assert_string_equal(r.to, "edge-2#00000001");
    assert_string_equal(r.room, "");
    free(text);
    text = lease_reply_refusal("no_room", "edge-2#00000001", "K7PXM3QD");
    assert_int_equal(lease_reply_parse(text, strlen(text), &r), 0);
    assert_false(r.ok);
    assert_string_equal(r.error, "no_room");
    assert_string_equal(r.room, "K7PXM3QD");
    free(text);
    /* "to" is a name of at most LEASE_NAME_MAX bytes, or absent. */
    const char *bad[] = {"{\"ok\":false,\"error\":\"tag_taken\",\"to\":7}",
                         "{\"ok\":false,\"error\":\"tag_taken\",\"to\":\"0123456789012345678901234567890123456789"
                         "012345678901234567890123\"}"};
    for (size_t i = 0; i < 2; i++) assert_int_equal(lease_reply_parse(bad[i], strlen(bad[i]), &r), -1);
}

/* ---- relay_leases ------------------------------------------------------- */

static lease_request_t request(const char *name, unsigned tag, size_t n, const lease_view_t *views)
{
    lease_request_t req = {.tag = tag, .n_views = n};
    snprintf(req.relay, sizeof req.relay, "%s", name);
    if (n) memcpy(req.views, views, n * sizeof *views);
    return req;
}

static void leased_views_are_shared_kept_across_renewals_and_released_when_dropped(void **state)
{
    (void)state;
    views_t *views = views_create(16);
    relay_leases_t *l = relay_leases_create(views);
    lease_view_t a = {WIRE2_DETAIL, {4, 0, 0, 4, 4}}, b = {WIRE2_LOD, wire2_rect_world()};
    lease_view_t granted[LEASE_MAX_VIEWS];
    bool is_new;
    lease_request_t r1 = request("one", 1, 2, (lease_view_t[]){a, b});
    assert_int_equal(relay_leases_renew(l, &r1, 1000, granted, &is_new), RELAY_LEASE_OK);
    assert_true(is_new);
    assert_true(wire2_rect_equal(granted[0].rect, a.rect));
    assert_int_equal(views_count(views), 2);
    size_t n;
    const relay_leased_view_t *lv = relay_leases_views(l, &n);
    assert_int_equal(n, 2);
    uint32_t id_a = lv[0].view.mode == WIRE2_DETAIL ? lv[0].view_id : lv[1].view_id;

    /* Another relay on the same view: one view, two holds. */
    lease_request_t r2 = request("two", 2, 1, (lease_view_t[]){a});
    assert_int_equal(relay_leases_renew(l, &r2, 1000, granted, &is_new), RELAY_LEASE_OK);
    assert_int_equal(views_count(views), 2);
    assert_int_equal(relay_leases_count(l), 2);

    /* Relay one renews with a only: b is released, a keeps its id. */
    r1 = request("one", 1, 1, (lease_view_t[]){a});
    assert_int_equal(relay_leases_renew(l, &r1, 2000, granted, &is_new), RELAY_LEASE_OK);
    assert_false(is_new);
    assert_int_equal(views_count(views), 1);
    lv = relay_leases_views(l, &n);
    assert_int_equal(n, 1);
    assert_int_equal(lv[0].view_id, id_a);
    assert_true(relay_leases_view_leased(l, id_a));

    /* Relay two drops everything: a stays for relay one. */
    r2 = request("two", 2, 0, NULL);
    assert_int_equal(relay_leases_renew(l, &r2, 2000, granted, &is_new), RELAY_LEASE_OK);
    assert_int_equal(views_count(views), 1);
    relay_leases_destroy(l);
    assert_int_equal(views_count(views), 0);
    views_destroy(views);
}

static void a_tag_held_by_another_live_relay_is_taken_until_it_expires(void **state)
{
    (void)state;
    views_t *views = views_create(16);
    relay_leases_t *l = relay_leases_create(views);
    lease_view_t a = {WIRE2_DETAIL, wire2_rect_world()};
    lease_view_t granted[LEASE_MAX_VIEWS];
    bool is_new;
    lease_request_t one = request("one", 5, 1, &a), other = request("other", 5, 0, NULL);
    uint64_t t0 = 1000000000ull;
    assert_int_equal(relay_leases_renew(l, &one, t0, granted, &is_new), RELAY_LEASE_OK);
    assert_int_equal(relay_leases_renew(l, &other, t0 + 1, granted, &is_new), RELAY_LEASE_TAG_TAKEN);
    unsigned dead[4];
    /* Just short of the TTL: still live. */
    assert_int_equal(relay_leases_expire(l, t0 + RELAY_LEASE_TTL_NS - 1, dead, 4), 0);
    assert_true(relay_leases_live(l, 5));
    assert_string_equal(relay_leases_name(l, 5), "one");
    assert_int_equal(relay_leases_expire(l, t0 + RELAY_LEASE_TTL_NS, dead, 4), 1);
    assert_int_equal(dead[0], 5);
    assert_false(relay_leases_live(l, 5));
    assert_int_equal(views_count(views), 0); /* its view went with it */
    assert_int_equal(relay_leases_renew(l, &other, t0 + RELAY_LEASE_TTL_NS, granted, &is_new), RELAY_LEASE_OK);
    assert_true(is_new);
    relay_leases_destroy(l);
    views_destroy(views);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remote_clients_map_ids_to_distinct_slots_and_free_them),
        cmocka_unit_test(remote_clients_find_every_remaining_id_under_churn),
        cmocka_unit_test(remote_clients_agree_with_a_plain_list_under_random_churn),
        cmocka_unit_test(a_lease_request_survives_format_and_parse),
        cmocka_unit_test(a_lease_request_with_a_bad_field_is_refused),
        cmocka_unit_test(a_lease_reply_carries_the_granted_views_and_the_hello),
        cmocka_unit_test(leased_views_are_shared_kept_across_renewals_and_released_when_dropped),
        cmocka_unit_test(a_tag_held_by_another_live_relay_is_taken_until_it_expires),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The v2 stream's loop-side logic without a network: how a viewport maps to
 * tiles, how the registry shares views past its cap, and which frame
 * composition gives each client (key, delta, key-delta first, chain). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream/compose.h"
#include "stream/views.h"

static void assert_rect(wire2_rect_t r, unsigned level, unsigned x0, unsigned y0, unsigned x1, unsigned y1)
{
    assert_int_equal(r.level, level);
    assert_int_equal(r.x0, x0);
    assert_int_equal(r.y0, y0);
    assert_int_equal(r.x1, x1);
    assert_int_equal(r.y1, y1);
}

static void the_whole_world_maps_to_level_3_and_all_its_tiles(void **state)
{
    (void)state;
    assert_rect(views_rect_for(1600, 900, (viewport_t){0, 0, 1600, 900}), 3, 0, 0, 8, 8);
}

static void a_quarter_of_each_side_on_tile_edges_maps_to_8_tiles_at_level_5(void **state)
{
    (void)state;
    assert_rect(views_rect_for(1600, 900, (viewport_t){600, 337.5, 400, 225}), 5, 12, 12, 20, 20);
    /* Off the tile edges: one more tile each way. */
    assert_rect(views_rect_for(1600, 900, (viewport_t){610, 340, 400, 225}), 5, 12, 12, 21, 21);
}

static void a_tiny_viewport_is_one_tile_of_the_finest_level(void **state)
{
    (void)state;
    assert_rect(views_rect_for(1600, 900, (viewport_t){30, 20, 1, 1}), 6, 1, 1, 2, 2);
}

static void a_viewport_outside_the_world_gets_the_nearest_tile(void **state)
{
    (void)state;
    assert_rect(views_rect_for(1600, 900, (viewport_t){5000, -300, 10, 10}), 6, 63, 0, 64, 1);
}

static void past_the_cap_a_viewer_shares_a_containing_view_else_the_whole_world(void **state)
{
    (void)state;
    views_t *r = views_create(2);
    wire2_rect_t big = {4, 0, 0, 4, 4}, small = {6, 1, 1, 2, 2}, elsewhere = {6, 60, 60, 61, 61}, got;
    uint32_t a = views_acquire(r, big, WIRE2_DETAIL, &got);
    uint32_t b = views_acquire(r, (wire2_rect_t){6, 30, 30, 31, 31}, WIRE2_DETAIL, &got);
    assert_int_equal(views_count(r), 2);
    /* At the cap: small lies inside big, so it gets big. */
    uint32_t c = views_acquire(r, small, WIRE2_DETAIL, &got);
    assert_int_equal(c, a);
    assert_rect(got, 4, 0, 0, 4, 4);
    /* Nothing contains elsewhere: the whole world, beyond the cap (once). */
    uint32_t d = views_acquire(r, elsewhere, WIRE2_DETAIL, &got);
    assert_rect(got, 3, 0, 0, 8, 8);
    assert_int_equal(views_count(r), 3);
    assert_int_equal(views_acquire(r, elsewhere, WIRE2_DETAIL, &got), d);
    assert_int_equal(views_count(r), 3);
    /* A view nobody watches is dropped. */
    views_release(r, b);
    assert_int_equal(views_count(r), 2);
    views_release(r, a);
    assert_int_equal(views_count(r), 2); /* c still watches it */
    views_release(r, c);
    assert_int_equal(views_count(r), 1);
    views_destroy(r);
}

/* ---- composition --------------------------------------------------------- */

#define HEADER 20

/* A recognizable chunk: `len` bytes of `tag`. */
static shared_buf_t *chunk(uint8_t tag, size_t len)
{
    shared_buf_t *b = shared_buf_new(0, len);
    memset(shared_buf_data(b), tag, len);
    return b;
}

/* Bundle seq with one view (id 1): key 'K', delta 'D', key-delta 'E',
 * tagged with seq in the second byte of each. */
static bundle_t *bundle_at(uint32_t seq, bool with_deltas)
{
    bundle_t *b = calloc(1, sizeof *b);
    b->seq = seq;
    b->scene_version = 1;
    b->header = chunk(0, HEADER);
    b->header_scene = chunk(0, HEADER + 12);
    b->views = calloc(1, sizeof *b->views);
    b->n_views = 1;
    b->views[0].view_id = 1;
    b->views[0].key = chunk('K', 30);
    shared_buf_data(b->views[0].key)[1] = (uint8_t)seq;
    if (with_deltas) {
        b->views[0].delta = chunk('D', 10);
        b->views[0].key_delta = chunk('E', 10);
        shared_buf_data(b->views[0].delta)[1] = (uint8_t)seq;
        shared_buf_data(b->views[0].key_delta)[1] = (uint8_t)seq;
    }
    return b;
}

static void apply(compose_t *c, uint32_t seq, bool with_deltas)
{
    bundle_t *b = bundle_at(seq, with_deltas);
    compose_apply(c, b);
    bundle_free(b);
}

/* The chunks of a composed frame as "K5" "E6" "D7"… joined, after checking
 * its header's n_chunks. */
static void recipe(compose_t *c, size_t slot, uint32_t client, char *out, size_t *header_len)
{
    const uint8_t *data;
    size_t len;
    out[0] = 0;
    if (!compose_frame(c, slot, client, 1, &data, &len)) return;
    size_t h = len;
    /* Headers are zeros but for n_chunks at 16: find the first chunk byte. */
    for (size_t i = 0; i < len; i++)
        if (data[i] == 'K' || data[i] == 'D' || data[i] == 'E') {
            h = i;
            break;
        }
    *header_len = h;
    unsigned n = 0;
    for (size_t i = h; i < len; i += data[i] == 'K' ? 30 : 10, n++)
        sprintf(out + strlen(out), "%c%u", data[i], data[i + 1]);
    assert_int_equal(data[16], n);
}

static void a_client_gets_a_key_then_the_key_delta_then_deltas_and_chains_within_three(void **state)
{
    (void)state;
    compose_t *c = compose_create(4, 16);
    char got[64];
    size_t header;
    apply(c, 5, false);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "K5");
    assert_int_equal(header, HEADER + 12); /* the first frame carries the scene */
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, ""); /* up to date */
    apply(c, 6, true);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "E6"); /* after a key: the key-delta */
    assert_int_equal(header, HEADER);
    apply(c, 7, true);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "D7");
    apply(c, 8, true);
    apply(c, 9, true);
    apply(c, 10, true);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "D8D9D10"); /* three behind: a chain */
    for (uint32_t s = 11; s <= 14; s++) apply(c, s, true);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "K14"); /* four behind: a key */
    apply(c, 15, true);
    apply(c, 16, true);
    recipe(c, 0, 100, got, &header);
    assert_string_equal(got, "E15D16"); /* a chain after a key starts with the key-delta */
    compose_destroy(c);
}

static void identical_recipes_are_built_once_and_a_lost_snapshot_breaks_the_chain(void **state)
{
    (void)state;
    compose_t *c = compose_create(4, 16);
    char got[64];
    size_t header;
    apply(c, 1, false);
    for (size_t slot = 0; slot < 3; slot++) recipe(c, slot, (uint32_t)(200 + slot), got, &header);
    compose_stats_t st;
    compose_get_stats(c, &st);
    assert_int_equal(st.frames_composed, 1);
    assert_int_equal(st.cache_hits, 2);
    apply(c, 2, true);
    recipe(c, 0, 200, got, &header);
    /* Seq 3 never reached the loop: the ring restarts at 4. */
    apply(c, 4, true);
    recipe(c, 1, 201, got, &header);
    assert_string_equal(got, "K4");
    /* A new client of the slot is a new client: a key with the scene. */
    recipe(c, 0, 300, got, &header);
    assert_string_equal(got, "K4");
    assert_int_equal(header, HEADER + 12);
    compose_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_whole_world_maps_to_level_3_and_all_its_tiles),
        cmocka_unit_test(a_quarter_of_each_side_on_tile_edges_maps_to_8_tiles_at_level_5),
        cmocka_unit_test(a_tiny_viewport_is_one_tile_of_the_finest_level),
        cmocka_unit_test(a_viewport_outside_the_world_gets_the_nearest_tile),
        cmocka_unit_test(past_the_cap_a_viewer_shares_a_containing_view_else_the_whole_world),
        cmocka_unit_test(a_client_gets_a_key_then_the_key_delta_then_deltas_and_chains_within_three),
        cmocka_unit_test(identical_recipes_are_built_once_and_a_lost_snapshot_breaks_the_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The encoder worker (server/src/stream/encoder.c) makes each snapshot one
 * of two ways: with a detail view, through the world quantized by agent id;
 * with no view (no client) or only LOD views, in one pass over the copy
 * (lod_pass.c), skipping the scatter by id and the tile index. Here, on a
 * real simulation: with no client it takes the pass (and still makes the
 * census a joining client's mode is chosen from, and the frame headers);
 * the first client's view gets its key in the very next bundle; views
 * moving between the two ways keep their delta chain; and every byte is
 * the one the path through the world by id makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/wire2.h"
#include "sim/world.h"
#include "stream/compose.h"
#include "stream/count_grid.h"
#include "stream/encoder.h"

static void on_bundles(void *user) { (void)user; }

/* The next bundle, waiting for the worker (generously: a busy machine). */
static bundle_t *next_bundle(encoder_t *e, uv_loop_t *loop)
{
    for (int i = 0; i < 30000; i++) {
        uv_run(loop, UV_RUN_NOWAIT);
        bundle_t *b = encoder_take(e);
        if (b) {
            assert_null(b->next); /* one snapshot submitted at a time */
            return b;
        }
        usleep(1000);
    }
    fail_msg("no bundle from the encoder");
    return NULL;
}

static void assert_buf_is_chunk(const shared_buf_t *b, const wire2_chunk_t *c)
{
    assert_true((b == NULL) == (c->buf == NULL));
    if (!b) return;
    assert_int_equal(b->len, c->len);
    assert_memory_equal(shared_buf_data(b), c->buf, c->len);
}

/* What the path through the world by id makes of the world as it is now. */
typedef struct reference {
    wire2_world_t q;
    wire2_view_enc_t *lod, *detail;
} reference_t;

static void reference_quantize(reference_t *r, const world_t *w, uint32_t seq)
{
    snap_view_t v;
    snap_view_of_world(w, &v);
    assert_int_equal(wire2_world_quantize(&r->q, &v, seq), 0);
}

static void assert_census_of(const bundle_t *b, const reference_t *r)
{
    count_grid_t g;
    count_grid_build(&g, &r->q);
    assert_memory_equal(&g, &b->grid, sizeof g);
}

static void assert_header_of(const bundle_t *b, const reference_t *r, const world_t *w)
{
    snap_view_t v;
    snap_view_of_world(w, &v);
    uint8_t expect[WIRE2_HEADER_BYTES];
    assert_int_equal(wire2_frame_header(expect, sizeof expect, &r->q, (uint32_t)(v.n + v.n_predators), NULL, 0),
                     sizeof expect);
    assert_int_equal(b->header->len, sizeof expect);
    assert_memory_equal(shared_buf_data(b->header), expect, sizeof expect);
}

/* The LOD view's chunks in b against the reference encoder's next step. */
static void assert_lod_of(const bundle_t *b, size_t i, reference_t *r, bool expect_delta)
{
    wire2_chunk_t key, delta, key_delta;
    assert_int_equal(wire2_view_enc_step(r->lod, &r->q, &key, &delta, &key_delta), 0);
    assert_true((delta.buf != NULL) == expect_delta);
    assert_buf_is_chunk(b->views[i].key, &key);
    assert_buf_is_chunk(b->views[i].delta, &delta);
    assert_buf_is_chunk(b->views[i].key_delta, &key_delta);
    wire2_chunk_free(&key);
    wire2_chunk_free(&delta);
    wire2_chunk_free(&key_delta);
}

/* One tick, its snapshot through the encoder and through the reference;
 * the census is the reference's in every bundle. */
static bundle_t *next_snapshot(encoder_t *e, uv_loop_t *loop, world_t *w, reference_t *r, uint32_t seq)
{
    world_step(w);
    assert_int_equal(encoder_submit(e, w), 0);
    bundle_t *b = next_bundle(e, loop);
    reference_quantize(r, w, seq);
    assert_int_equal(b->seq, seq);
    assert_census_of(b, r);
    return b;
}

static void with_no_client_the_encoder_skips_the_world_by_id_and_a_joiner_gets_a_key_at_once(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    world_config_t cfg = {.width = 3000, .height = 2000, .dt = 1.0f / 60.0f, .seed = 3, .agents = 6000,
                          .max_agents = 6000, .max_targets = 1, .threads = 1};
    world_t w;
    assert_int_equal(world_init(&w, &cfg), 0);
    encoder_t *e = encoder_create(&loop, 16, on_bundles, NULL);
    assert_non_null(e);
    reference_t r = {{0}, wire2_view_enc_new((wire2_rect_t){3, 0, 0, 8, 8}, WIRE2_LOD), NULL};
    encoder_stats_t st;

    /* No client: three snapshots, each summed (no quantize by id), each
     * with the census and the headers. */
    for (uint32_t seq = 1; seq <= 3; seq++) {
        bundle_t *b = next_snapshot(e, &loop, &w, &r, seq);
        assert_int_equal(b->n_views, 0);
        assert_header_of(b, &r, &w);
        bundle_free(b);
    }
    encoder_get_stats(e, &st);
    assert_int_equal(st.snapshots, 3);
    assert_int_equal(st.summed, 3);
    assert_int_equal(st.by_id, 0);

    /* The census says a whole-world view of 6000 agents is above a budget
     * of 5000 (the mode a joiner gets is chosen from it). */
    compose_t *c = compose_create(4, 0);
    assert_non_null(c);
    view_spec_t views[2] = {{1, {3, 0, 0, 8, 8}, WIRE2_LOD}, {2, {2, 1, 1, 3, 2}, WIRE2_DETAIL}};

    /* The first client's LOD view: its key comes in the next bundle. */
    assert_int_equal(encoder_set_views(e, views, 1), 0);
    bundle_t *b = next_snapshot(e, &loop, &w, &r, 4);
    assert_int_equal(b->n_views, 1);
    assert_int_equal(b->views[0].view_id, 1);
    assert_lod_of(b, 0, &r, false);
    assert_true(count_grid_estimate(&b->grid, views[0].rect) == 6000.0);
    compose_apply(c, b);
    const uint8_t *frame;
    size_t len;
    assert_int_equal(compose_frame(c, 0, 77, 1, &frame, &len), 1);
    wire2_dec_t *d = wire2_dec_new();
    char err[128];
    assert_int_equal(wire2_dec_frame(d, frame, len, err, sizeof err), 0);
    const wire2_dec_state_t *ds = wire2_dec_state(d);
    assert_true(ds->has_scene && ds->has_view && ds->keyed);
    assert_int_equal(ds->mode, WIRE2_LOD);
    assert_int_equal(ds->view_seq, 4);
    unsigned members = 0;
    for (uint32_t k = 0; k < ds->cols * ds->rows; k++) members += ds->d[k] != 0;
    assert_true(members > 0);
    bundle_free(b);
    encoder_get_stats(e, &st);
    assert_int_equal(st.summed, 4);
    assert_int_equal(st.by_id, 0);

    /* A detail view joins: the world by id again; the LOD view's deltas go on. */
    assert_int_equal(encoder_set_views(e, views, 2), 0);
    b = next_snapshot(e, &loop, &w, &r, 5);
    assert_lod_of(b, 0, &r, true);
    r.detail = wire2_view_enc_new(views[1].rect, WIRE2_DETAIL);
    wire2_chunk_t key;
    assert_int_equal(wire2_view_enc_step(r.detail, &r.q, &key, NULL, NULL), 0);
    assert_buf_is_chunk(b->views[1].key, &key);
    wire2_chunk_free(&key);
    compose_apply(c, b);
    assert_int_equal(compose_frame(c, 0, 77, 1, &frame, &len), 1);
    assert_int_equal(wire2_dec_frame(d, frame, len, err, sizeof err), 0); /* the key-delta on the client's key */
    assert_int_equal(wire2_dec_state(d)->view_seq, 5);
    bundle_free(b);
    encoder_get_stats(e, &st);
    assert_int_equal(st.by_id, 1);

    /* It leaves: summed again, the LOD view's deltas still go on. */
    assert_int_equal(encoder_set_views(e, views, 1), 0);
    b = next_snapshot(e, &loop, &w, &r, 6);
    assert_int_equal(b->n_views, 1);
    assert_lod_of(b, 0, &r, true);
    compose_apply(c, b);
    assert_int_equal(compose_frame(c, 0, 77, 1, &frame, &len), 1);
    assert_int_equal(wire2_dec_frame(d, frame, len, err, sizeof err), 0);
    assert_int_equal(wire2_dec_state(d)->view_seq, 6);
    bundle_free(b);
    encoder_get_stats(e, &st);
    assert_int_equal(st.snapshots, 6);
    assert_int_equal(st.summed, 5);
    assert_int_equal(st.by_id, 1);

    wire2_dec_free(d);
    compose_destroy(c);
    encoder_stop(e);
    uv_run(&loop, UV_RUN_DEFAULT);
    encoder_destroy(e);
    wire2_view_enc_free(r.lod);
    wire2_view_enc_free(r.detail);
    wire2_world_free(&r.q);
    world_free(&w);
    uv_loop_close(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(with_no_client_the_encoder_skips_the_world_by_id_and_a_joiner_gets_a_key_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

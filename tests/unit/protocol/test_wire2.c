/* Unit tests of the protocol v2 codec (server/src/protocol/wire2*.c):
 * quantization, key and delta round trips, a 1,000-snapshot run of the real
 * simulation decoded by several clients (tests/tools/wire2_script.h), and
 * the decoder's rejection of malformed frames with its state unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"
#include "protocol/wire2_bits.h"
#include "protocol/wire2_canon.h"
#include "../../tools/wire2_script.h"

/* ------------------------------------------------------------ helpers */

/* A hand-made world of n agents (by id), 100 × 50 units (Wq 1600, Hq 800). */
typedef struct hand {
    float x[64], y[64], vx[64], vy[64];
    uint8_t flags[64];
    size_t n;
    predator_t predators[2];
    size_t n_predators;
    uint32_t tick;
} hand_t;

static void hand_view(const hand_t *h, snap_view_t *v)
{
    *v = (snap_view_t){.tick = h->tick, .width = 100, .height = 50, .n = h->n, .x = h->x, .y = h->y, .vx = h->vx,
                       .vy = h->vy, .flags = h->flags, .predators = h->predators, .n_predators = h->n_predators};
}

static void quantize_hand(const hand_t *h, wire2_world_t *q, uint32_t seq)
{
    snap_view_t v;
    hand_view(h, &v);
    assert_int_equal(wire2_world_quantize(q, &v, seq), 0);
}

/* Builds and decodes a frame of these chunks; returns the decoder's result. */
static int decode_chunks(wire2_dec_t *d, const wire2_world_t *q, bool scene, const wire2_chunk_t *c, size_t n)
{
    snap_view_t sv = {.width = q->width, .height = q->height};
    uint8_t *buf;
    size_t len;
    assert_int_equal(wire2_frame_build(q, (uint32_t)q->n, scene ? &sv : NULL, c, n, &buf, &len), 0);
    char err[160];
    int rc = wire2_dec_frame(d, buf, len, err, sizeof err);
    free(buf);
    return rc;
}

/* The decoder's items equal the world's in the rect (multiset). */
static void assert_decoded_truth(const wire2_dec_t *d, const wire2_world_t *q)
{
    const wire2_dec_state_t *st = wire2_dec_state(d);
    wire2_bounds_t b = st->bounds;
    size_t n = 0;
    uint64_t truth[128], got[128];
    for (size_t i = 0; i < q->n; i++)
        if (q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1)
            truth[n++] = w2s_pack(q->agent[i].qx, q->agent[i].qy, q->agent[i].h, q->agent[i].f);
    assert_int_equal(st->count, n);
    for (size_t i = 0; i < n; i++) got[i] = w2s_pack(st->qx[i], st->qy[i], st->h[i], st->f[i]);
    qsort(truth, n, sizeof truth[0], w2s_cmp_u64);
    for (size_t i = 0; i < n; i++) assert_int_equal(got[i], truth[i]);
}

/* A copy of everything a decoder exposes, to see that a rejected frame changed nothing. */
typedef struct dec_copy {
    wire2_dec_state_t st;
    uint64_t items[4096];
    uint8_t cells[2][4096];
    wire2_dec_obstacle_t obstacles[8];
} dec_copy_t;

static void copy_dec(const wire2_dec_t *d, dec_copy_t *c)
{
    memset(c, 0, sizeof *c);
    const wire2_dec_state_t *st = wire2_dec_state(d);
    c->st = *st;
    c->st.qx = NULL;
    c->st.qy = NULL;
    c->st.h = NULL;
    c->st.f = NULL;
    c->st.d = c->st.a = NULL;
    c->st.obstacles = NULL;
    c->st.targets = NULL;
    assert_true(st->count <= 4096 && (size_t)st->cols * st->rows <= 4096 && st->n_obstacles <= 8);
    for (size_t i = 0; i < st->count; i++) c->items[i] = w2s_pack(st->qx[i], st->qy[i], st->h[i], st->f[i]);
    if (st->d) {
        memcpy(c->cells[0], st->d, (size_t)st->cols * st->rows);
        memcpy(c->cells[1], st->a, (size_t)st->cols * st->rows);
    }
    if (st->n_obstacles) memcpy(c->obstacles, st->obstacles, st->n_obstacles * sizeof *st->obstacles);
}

static void assert_unchanged(const wire2_dec_t *d, const dec_copy_t *before)
{
    dec_copy_t *now = malloc(sizeof *now);
    assert_non_null(now);
    copy_dec(d, now);
    assert_memory_equal(now, before, sizeof *now);
    free(now);
}

static void six_agents(hand_t *h)
{
    memset(h, 0, sizeof *h);
    h->n = 6;
    const float xs[6] = {10, 20.5f, 20.5f, 99.99f, 0, 50}, ys[6] = {5, 5, 5, 49.9f, 0, 25};
    for (size_t i = 0; i < 6; i++) {
        h->x[i] = xs[i];
        h->y[i] = ys[i];
        h->vx[i] = cosf((float)i);
        h->vy[i] = sinf((float)i);
    }
    h->flags[1] = AGENT_LEADER;
    h->flags[3] = 2u << AGENT_SPECIES_SHIFT;
    h->n_predators = 1;
    h->predators[0] = (predator_t){60, 30, -1, 0};
}

/* ------------------------------------------------------------ tests */

static void positions_and_headings_are_quantized_as_the_spec_says(void **state)
{
    (void)state;
    hand_t h;
    memset(&h, 0, sizeof h);
    h.n = 6;
    const float xs[6] = {0.03f, 0.032f, 99.999f, -5, NAN, 12.5f};
    for (size_t i = 0; i < 6; i++) {
        h.x[i] = xs[i];
        h.y[i] = 1;
    }
    h.vx[0] = 1;                   /* heading 0 */
    h.vy[1] = 1;                   /* π/2 → 256 */
    h.vx[2] = -1;                  /* π → 512 */
    h.vy[3] = -1;                  /* −π/2 → 768 */
    h.vx[4] = NAN;                 /* → 0 */
    h.vx[5] = cosf(-0.01f), h.vy[5] = sinf(-0.01f); /* −1.63 steps → 1022 */
    wire2_world_t q = {0};
    quantize_hand(&h, &q, 1);
    assert_int_equal(q.wq, 1600);
    assert_int_equal(q.hq, 800);
    assert_int_equal(q.agent[0].qx, 0);    /* 0.48 + 0.5 → 0 */
    assert_int_equal(q.agent[1].qx, 1);    /* 0.512 + 0.5 → 1 */
    assert_int_equal(q.agent[2].qx, 1599); /* clamped to Wq − 1 */
    assert_int_equal(q.agent[3].qx, 0);    /* negative → 0 */
    assert_int_equal(q.agent[4].qx, 0);    /* NaN → 0 */
    assert_int_equal(q.agent[5].qx, 200);
    const uint16_t heads[6] = {0, 256, 512, 768, 0, 1022};
    for (size_t i = 0; i < 6; i++) assert_int_equal(q.agent[i].h, heads[i]);
    /* Against atan2 over many directions. */
    for (int k = 0; k < 20000; k++) {
        double t = (k * 0.000314159 * 1.37) - 3.14159;
        float vx = (float)cos(t) * 3.0f, vy = (float)sin(t) * 3.0f;
        double steps = atan2((double)vy, (double)vx) * 1024.0 / (2.0 * M_PI);
        double frac = steps - floor(steps);
        if (fabs(frac - 0.5) < 1e-3) continue; /* too close to a step edge to tell */
        unsigned expect = (unsigned)((long)floor(steps + 0.5) & 1023);
        assert_int_equal(wire2_quantize_heading(vx, vy), expect);
    }
    assert_int_equal(wire2_quanta_of(1600.0f), 25600);
    assert_int_equal(wire2_quanta_of(0.01f), 1);
    assert_int_equal(wire2_quanta_of(NAN), 0);
    assert_int_equal(wire2_quanta_of(-1), 0);
    wire2_world_free(&q);
}

/* The spec's canonical order, written out here: (ry, rx, h, f, py, px). */
static int spec_order(const void *pa, const void *pb)
{
    const wire2_item_t *a = pa, *b = pb;
    const uint32_t ka[6] = {a->ry, a->rx, a->h, a->f, a->py, a->px}, kb[6] = {b->ry, b->rx, b->h, b->f, b->py, b->px};
    for (int i = 0; i < 6; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void items_sort_into_the_canonical_order_of_the_spec(void **state)
{
    (void)state;
    wire2_sorter_t sorter = {0};
    static wire2_item_t items[3000], expect[3000];
    uint32_t seed = 12345;
    for (int round = 0; round < 6; round++) {
        size_t n = round < 2 ? 40 : 3000; /* the small-n path and the radix path */
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            /* few distinct positions in some rounds: long runs at one point */
            uint32_t spread = round % 3 == 0 ? 3 : 5000;
            items[i] = (wire2_item_t){.ry = (seed >> 8) % spread, .rx = (seed >> 3) % spread, .h = (uint16_t)((seed >> 13) % 4),
                                      .f = (uint8_t)((seed >> 20) % 2), .py = (seed >> 22) % 3, .px = (seed >> 25) % 3,
                                      .id = (uint32_t)i};
        }
        memcpy(expect, items, n * sizeof *items);
        qsort(expect, n, sizeof *expect, spec_order);
        assert_int_equal(wire2_sort_items(items, n, 13, 13, &sorter), 0);
        for (size_t i = 0; i < n; i++) assert_int_equal(spec_order(&items[i], &expect[i]), 0);
    }
    wire2_sorter_free(&sorter);
}

static void rect_bounds_are_exact_integer_fractions_of_the_world(void **state)
{
    (void)state;
    wire2_bounds_t b = wire2_rect_bounds((wire2_rect_t){3, 1, 2, 3, 8}, 25601, 14400);
    assert_int_equal(b.qx0, 25601 / 8);
    assert_int_equal(b.qx1, 3 * 25601 / 8);
    assert_int_equal(b.qy0, 2 * 14400 / 8);
    assert_int_equal(b.qy1, 14400);
    assert_true(wire2_rect_valid((wire2_rect_t){7, 0, 0, 128, 128}));
    assert_false(wire2_rect_valid((wire2_rect_t){7, 0, 0, 129, 1}));
    assert_false(wire2_rect_valid((wire2_rect_t){8, 0, 0, 1, 1}));
    assert_false(wire2_rect_valid((wire2_rect_t){2, 1, 0, 1, 1}));
}

static void a_key_then_a_delta_decode_to_the_quantized_world(void **state)
{
    (void)state;
    hand_t h;
    six_agents(&h);
    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_dec_t *d = wire2_dec_new();
    wire2_chunk_t key, delta;

    quantize_hand(&h, &q, 10);
    assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, NULL), 0);
    assert_non_null(key.buf);
    assert_null(delta.buf); /* nothing held before */
    assert_int_equal(key.buf[0], WIRE2_CHUNK_DETAIL_KEY);
    assert_int_equal(decode_chunks(d, &q, true, &key, 1), 0);
    assert_true(wire2_dec_state(d)->keyed);
    assert_int_equal(wire2_dec_state(d)->count, 7); /* 6 agents + the predator */
    assert_decoded_truth(d, &q);
    wire2_chunk_free(&key);

    /* Move everyone a little, turn one, change a flag. */
    for (size_t i = 0; i < h.n; i++) h.x[i] = fminf(h.x[i] + 0.3f * (float)i, 99.9f);
    h.vx[2] = -h.vx[2];
    h.flags[4] = AGENT_LEADER;
    h.tick = 2;
    quantize_hand(&h, &q, 11);
    assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, NULL), 0);
    assert_non_null(delta.buf);
    assert_int_equal(delta.buf[0], WIRE2_CHUNK_DETAIL_DELTA);
    assert_true(delta.len < key.len);
    assert_int_equal(decode_chunks(d, &q, false, &delta, 1), 0);
    assert_false(wire2_dec_state(d)->keyed);
    assert_decoded_truth(d, &q);
    assert_int_equal(wire2_dec_state(d)->view_seq, 11);

    /* The same delta again: the decoder holds 11 now, not 10. */
    dec_copy_t before;
    copy_dec(d, &before);
    assert_int_equal(decode_chunks(d, &q, false, &delta, 1), WIRE2_E_STATE);
    assert_unchanged(d, &before);

    wire2_chunk_free(&key);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
    wire2_dec_free(d);
    wire2_world_free(&q);
}

static void a_decoder_that_joined_by_a_key_continues_with_the_key_delta(void **state)
{
    (void)state;
    hand_t h;
    six_agents(&h);
    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_dec_t *follower = wire2_dec_new(), *joiner = wire2_dec_new(), *wrong = wire2_dec_new();
    wire2_chunk_t key, delta, kdelta;
    quantize_hand(&h, &q, 1);
    assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, &kdelta), 0);
    assert_null(kdelta.buf);
    assert_int_equal(decode_chunks(follower, &q, true, &key, 1), 0);
    wire2_chunk_free(&key);
    /* Everyone moves at a steady velocity. */
    for (int s = 2; s <= 4; s++) {
        for (size_t i = 0; i < h.n; i++) h.x[i] = fminf(h.x[i] + 1.5f, 99.9f), h.y[i] = fminf(h.y[i] + 0.5f, 49.9f);
        quantize_hand(&h, &q, (uint32_t)s);
        assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, &kdelta), 0);
        assert_non_null(kdelta.buf);
        assert_int_equal(decode_chunks(follower, &q, false, &delta, 1), 0);
        assert_decoded_truth(follower, &q);
        if (s == 3) {
            assert_int_equal(decode_chunks(joiner, &q, true, &key, 1), 0);
            assert_int_equal(decode_chunks(wrong, &q, true, &key, 1), 0);
        }
        if (s == 4) {
            /* The key's holder predicts no motion: the followers' delta lands elsewhere. */
            int rc = decode_chunks(wrong, &q, false, &delta, 1);
            const wire2_dec_state_t *st = wire2_dec_state(wrong);
            assert_true(rc < 0 || st->qx[0] != wire2_dec_state(follower)->qx[0]);
            assert_int_equal(decode_chunks(joiner, &q, false, &kdelta, 1), 0);
            assert_decoded_truth(joiner, &q);
        }
        wire2_chunk_free(&key);
        wire2_chunk_free(&delta);
        wire2_chunk_free(&kdelta);
    }
    /* From now on both take the same delta. */
    for (size_t i = 0; i < h.n; i++) h.x[i] = fminf(h.x[i] + 1.5f, 99.9f);
    quantize_hand(&h, &q, 5);
    assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
    assert_int_equal(decode_chunks(follower, &q, false, &delta, 1), 0);
    assert_int_equal(decode_chunks(joiner, &q, false, &delta, 1), 0);
    assert_decoded_truth(joiner, &q);
    assert_decoded_truth(follower, &q);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
    wire2_dec_free(follower);
    wire2_dec_free(joiner);
    wire2_dec_free(wrong);
    wire2_world_free(&q);
}

/* Reads a delta payload's leading counts: exits, then (after the stays) entries. */
static void delta_counts(const wire2_chunk_t *c, size_t old_n, uint64_t *exits, uint64_t *entries)
{
    wire2_bitr_t r;
    wire2_bitr_init(&r, c->buf + WIRE2_CHUNK_HEADER_BYTES, c->len - WIRE2_CHUNK_HEADER_BYTES);
    *exits = wire2_get_eg(&r, 4);
    unsigned ke = wire2_get_u(&r, 4);
    for (uint64_t i = 0; i < *exits; i++) (void)wire2_get_eg(&r, ke);
    unsigned kx = wire2_get_u(&r, 4), ky = wire2_get_u(&r, 4), kh = wire2_get_u(&r, 4);
    for (uint64_t j = 0; j < old_n - *exits; j++) {
        (void)wire2_get_se(&r, kx);
        (void)wire2_get_se(&r, ky);
        (void)wire2_get_se(&r, kh);
    }
    uint64_t flags = wire2_get_eg(&r, 4);
    for (uint64_t i = 0; i < flags; i++) {
        (void)wire2_get_eg(&r, 4);
        (void)wire2_get_u(&r, 8);
    }
    *entries = wire2_get_eg(&r, 4);
    assert_true(wire2_bitr_ok(&r));
}

static void a_jump_of_more_than_1024_quanta_is_sent_as_exit_and_entry(void **state)
{
    (void)state;
    hand_t h;
    six_agents(&h);
    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_dec_t *d = wire2_dec_new();
    wire2_chunk_t key, delta;
    quantize_hand(&h, &q, 1);
    assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, NULL), 0);
    assert_int_equal(decode_chunks(d, &q, true, &key, 1), 0);
    wire2_chunk_free(&key);

    h.x[0] += 64.0f; /* 1024 quanta: still a stay */
    quantize_hand(&h, &q, 2);
    assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
    uint64_t exits, entries;
    delta_counts(&delta, 7, &exits, &entries);
    assert_int_equal(exits, 0);
    assert_int_equal(entries, 0);
    assert_int_equal(decode_chunks(d, &q, false, &delta, 1), 0);
    assert_decoded_truth(d, &q);
    wire2_chunk_free(&delta);

    /* Predicted x is now +1024 more; jumping back (−2048 from the prediction) and wrapping another agent across the world. */
    h.x[0] -= 64.0f;
    h.x[3] = 0.5f;
    quantize_hand(&h, &q, 3);
    assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
    delta_counts(&delta, 7, &exits, &entries);
    assert_int_equal(exits, 2);
    assert_int_equal(entries, 2);
    assert_int_equal(decode_chunks(d, &q, false, &delta, 1), 0);
    assert_decoded_truth(d, &q);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
    wire2_dec_free(d);
    wire2_world_free(&q);
}

static void a_view_that_skipped_a_seq_makes_no_delta_and_a_null_key_is_not_encoded(void **state)
{
    (void)state;
    hand_t h;
    six_agents(&h);
    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_LOD);
    wire2_chunk_t key, delta;
    quantize_hand(&h, &q, 5);
    assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
    assert_null(delta.buf);
    quantize_hand(&h, &q, 6);
    assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
    assert_non_null(delta.buf);
    assert_int_equal(delta.buf[0], WIRE2_CHUNK_LOD_DELTA);
    wire2_chunk_free(&delta);
    quantize_hand(&h, &q, 8);
    assert_int_equal(wire2_view_enc_step(e, &q, &key, &delta, NULL), 0);
    assert_null(delta.buf);
    assert_non_null(key.buf);
    assert_int_equal(key.buf[0], WIRE2_CHUNK_LOD_KEY);
    wire2_chunk_free(&key);
    wire2_view_enc_free(e);
    wire2_world_free(&q);
}

static int frames_seen;
static void count_frame(const w2s_frame_t *f, void *ctx)
{
    (void)f;
    (void)ctx;
    frames_seen++;
}

static void a_thousand_snapshots_of_the_simulation_decode_exactly_for_every_client(void **state)
{
    (void)state;
    w2s_run_t *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(w2s_init(r, 800), 0);
    frames_seen = 0;
    for (uint32_t s = 0; s < W2S_SNAPSHOTS; s++) {
        if (w2s_snapshot(r, s, count_frame, NULL) != 0) fail_msg("snapshot %u: %s", s, r->err);
    }
    /* Every kind of frame happened. */
    assert_int_equal(frames_seen, (int)r->frames);
    assert_true(r->clients[0].frames == W2S_SNAPSHOTS + 1);
    assert_int_equal(r->clients[0].keys, 1);   /* one key, then deltas all the way (reset and wraps included) */
    assert_int_equal(r->clients[2].keys, 1);   /* LOD too */
    assert_int_equal(r->clients[1].keys, 3);   /* one per rect */
    assert_int_equal(r->clients[3].keys, 2);   /* LOD, then detail */
    assert_int_equal(r->clients[4].keys, 1);   /* the late joiner's first frame */
    assert_true(r->clients[5].chains > 300);   /* the lagging client gets chains of 3 */
    assert_true(r->clients[5].keys >= 2);      /* and a key after its long gap */
    w2s_free(r);
    free(r);
}

/* Three frames of a short run: a key with a scene, a delta, a LOD key. */
typedef struct sample {
    uint8_t *buf[4];
    size_t len[4];
    int n;
} sample_t;

static void keep_frame(const w2s_frame_t *f, void *ctx)
{
    sample_t *s = ctx;
    if (s->n >= 4) return;
    bool want = (f->client == 0 && (f->seq == 1 || f->seq == 2)) || (f->client == 2 && (f->seq == 1 || f->seq == 2));
    if (!want) return;
    s->buf[s->n] = malloc(f->len);
    memcpy(s->buf[s->n], f->buf, f->len);
    s->len[s->n++] = f->len;
}

static void truncated_or_corrupted_frames_are_rejected_with_the_state_unchanged(void **state)
{
    (void)state;
    w2s_run_t *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(w2s_init(r, 120), 0);
    sample_t s = {0};
    for (uint32_t k = 0; k < 2; k++)
        if (w2s_snapshot(r, k, keep_frame, &s) != 0) fail_msg("%s", r->err);
    assert_int_equal(s.n, 4); /* detail key, LOD key, detail delta, LOD delta */
    dec_copy_t *before = malloc(sizeof *before);
    char err[160];
    for (int pair = 0; pair < 2; pair++) {
        const uint8_t *keyf = s.buf[pair], *deltaf = s.buf[pair + 2];
        size_t keylen = s.len[pair], deltalen = s.len[pair + 2];
        wire2_dec_t *d = wire2_dec_new();
        /* Every strict prefix of the key frame is rejected by a fresh decoder. */
        copy_dec(d, before);
        for (size_t len = 0; len < keylen; len++) {
            assert_true(wire2_dec_frame(d, keyf, len, err, sizeof err) < 0);
            assert_unchanged(d, before);
        }
        assert_int_equal(wire2_dec_frame(d, keyf, keylen, err, sizeof err), 0);
        /* Every strict prefix (and an extra byte) of the delta is rejected by the keyed decoder. */
        copy_dec(d, before);
        for (size_t len = 0; len < deltalen; len++) {
            assert_true(wire2_dec_frame(d, deltaf, len, err, sizeof err) < 0);
            assert_unchanged(d, before);
        }
        uint8_t *longer = malloc(deltalen + 1);
        memcpy(longer, deltaf, deltalen);
        longer[deltalen] = 0;
        assert_true(wire2_dec_frame(d, longer, deltalen + 1, err, sizeof err) < 0);
        assert_unchanged(d, before);
        /* Single bit flips: rejected (state unchanged), or accepted. Never a crash. */
        for (size_t bit = 0; bit < deltalen * 8; bit += 3) {
            memcpy(longer, deltaf, deltalen);
            longer[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            wire2_dec_t *d2 = wire2_dec_new();
            assert_int_equal(wire2_dec_frame(d2, keyf, keylen, err, sizeof err), 0);
            dec_copy_t *b2 = malloc(sizeof *b2);
            copy_dec(d2, b2);
            if (wire2_dec_frame(d2, longer, deltalen, err, sizeof err) < 0) assert_unchanged(d2, b2);
            free(b2);
            wire2_dec_free(d2);
        }
        free(longer);
        /* The intact delta still applies. */
        assert_int_equal(wire2_dec_frame(d, deltaf, deltalen, err, sizeof err), 0);
        wire2_dec_free(d);
    }
    for (int i = 0; i < s.n; i++) free(s.buf[i]);
    free(before);
    w2s_free(r);
    free(r);
}

/* A frame with one hand-made chunk (payload given), after a scene. */
static int decode_handmade(wire2_dec_t *d, unsigned type, wire2_rect_t rect, uint32_t seq, const uint8_t *payload,
                           size_t plen, char *err)
{
    uint8_t buf[256] = {WIRE2_KIND, WIRE2_VERSION, WIRE2_FLAG_SCENE, 0, (uint8_t)seq, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    size_t off = WIRE2_HEADER_BYTES;
    float w = 100, h = 50;
    memcpy(buf + off, &w, 4);
    memcpy(buf + off + 4, &h, 4);
    memset(buf + off + 8, 0, 4);
    off += WIRE2_SCENE_FIXED_BYTES;
    wire2_chunk_header_write(buf + off, type, rect, seq, (uint32_t)plen);
    off += WIRE2_CHUNK_HEADER_BYTES;
    memcpy(buf + off, payload, plen);
    off += plen;
    return wire2_dec_frame(d, buf, off, err, 160);
}

static void malformed_chunks_are_rejected_for_the_reasons_the_spec_lists(void **state)
{
    (void)state;
    char err[160];
    wire2_dec_t *d = wire2_dec_new();
    wire2_rect_t world = wire2_rect_world();
    /* A valid key of 2 items: n, k_gap 0, k_h 0, item (gap 0, rx 0 (11 bits), dh 0, same flags) ×2. */
    wire2_bitw_t w = {0};
    wire2_put_eg(&w, 2, 4);
    wire2_put_u(&w, 0, 4);
    wire2_put_u(&w, 0, 4);
    for (int i = 0; i < 2; i++) {
        wire2_put_eg(&w, (uint64_t)i, 0);
        wire2_put_u(&w, 7, 11);
        wire2_put_se(&w, 3, 0);
        wire2_put_u(&w, 1, 1);
    }
    size_t len = wire2_bitw_finish(&w);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, world, 5, w.buf, len, err), 0);
    assert_int_equal(wire2_dec_state(d)->count, 2);
    assert_int_equal(wire2_dec_state(d)->h[1], 6);
    dec_copy_t *before = malloc(sizeof *before);
    copy_dec(d, before);

    /* Bad rects, levels, chunk types. */
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, (wire2_rect_t){8, 0, 0, 1, 1}, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, (wire2_rect_t){2, 2, 0, 2, 1}, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, (wire2_rect_t){1, 0, 0, 3, 1}, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_int_equal(decode_handmade(d, 9, world, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_unchanged(d, before);

    /* An rx beyond the rect (11 bits hold up to 2047; Wq is 1600). */
    wire2_bitw_reset(&w);
    wire2_put_eg(&w, 1, 4);
    wire2_put_u(&w, 0, 8);
    wire2_put_eg(&w, 0, 0);
    wire2_put_u(&w, 1600, 11);
    wire2_put_se(&w, 0, 0);
    wire2_put_u(&w, 1, 1);
    len = wire2_bitw_finish(&w);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, world, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_unchanged(d, before);

    /* A count above 2^22. */
    wire2_bitw_reset(&w);
    wire2_put_eg(&w, (1u << 22) + 1, 4);
    len = wire2_bitw_finish(&w);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, world, 5, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_non_null(strstr(err, "2^22"));
    assert_unchanged(d, before);

    /* An EG prefix of 33 zeros. */
    uint8_t zeros[8] = {0, 0, 0, 0, 0x02, 0xff, 0xff, 0xff};
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_KEY, world, 5, zeros, sizeof zeros, err), WIRE2_E_MALFORMED);
    assert_non_null(strstr(err, "prefix"));
    assert_unchanged(d, before);

    /* A delta whose exit index is out of range: 1 exit at index 2 of 2 items. */
    wire2_bitw_reset(&w);
    wire2_put_eg(&w, 1, 4);
    wire2_put_u(&w, 0, 4);
    wire2_put_eg(&w, 2, 0);
    for (int i = 0; i < 3; i++) wire2_put_u(&w, 0, 4);
    wire2_put_se(&w, 0, 0), wire2_put_se(&w, 0, 0), wire2_put_se(&w, 0, 0);
    wire2_put_eg(&w, 0, 4);
    wire2_put_eg(&w, 0, 4);
    wire2_put_u(&w, 0, 8);
    len = wire2_bitw_finish(&w);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_DELTA, world, 6, w.buf, len, err), WIRE2_E_MALFORMED);
    assert_non_null(strstr(err, "exit index"));
    assert_unchanged(d, before);
    /* The same with index 1 is fine; for seq 7 it is a state not held. */
    w.buf[0] = 0;
    wire2_bitw_reset(&w);
    wire2_put_eg(&w, 1, 4);
    wire2_put_u(&w, 0, 4);
    wire2_put_eg(&w, 1, 0);
    for (int i = 0; i < 3; i++) wire2_put_u(&w, 0, 4);
    wire2_put_se(&w, 0, 0), wire2_put_se(&w, 0, 0), wire2_put_se(&w, 0, 0);
    wire2_put_eg(&w, 0, 4);
    wire2_put_eg(&w, 0, 4);
    wire2_put_u(&w, 0, 8);
    len = wire2_bitw_finish(&w);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_DELTA, world, 7, w.buf, len, err), WIRE2_E_STATE);
    assert_unchanged(d, before);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_DELTA, (wire2_rect_t){1, 0, 0, 1, 1}, 6, w.buf, len, err), WIRE2_E_STATE);
    assert_unchanged(d, before);
    assert_int_equal(decode_handmade(d, WIRE2_CHUNK_DETAIL_DELTA, world, 6, w.buf, len, err), 0);
    assert_int_equal(wire2_dec_state(d)->count, 1);

    /* Wrong kind, wrong version. */
    uint8_t head[WIRE2_HEADER_BYTES] = {WIRE2_KIND, WIRE2_VERSION};
    assert_int_equal(wire2_dec_frame(d, head, sizeof head, err, sizeof err), 0);
    head[0] = 0x54;
    assert_int_equal(wire2_dec_frame(d, head, sizeof head, err, sizeof err), WIRE2_E_MALFORMED);
    head[0] = WIRE2_KIND;
    head[1] = 1;
    assert_int_equal(wire2_dec_frame(d, head, sizeof head, err, sizeof err), WIRE2_E_MALFORMED);
    /* A chunk before any scene is known. */
    wire2_dec_t *fresh = wire2_dec_new();
    uint8_t nosc[WIRE2_HEADER_BYTES + WIRE2_CHUNK_HEADER_BYTES + 4] = {WIRE2_KIND, WIRE2_VERSION, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    wire2_chunk_header_write(nosc + WIRE2_HEADER_BYTES, WIRE2_CHUNK_DETAIL_KEY, world, 1, 4);
    assert_int_equal(wire2_dec_frame(fresh, nosc, sizeof nosc, err, sizeof err), WIRE2_E_MALFORMED);
    assert_false(wire2_dec_state(fresh)->has_view);
    wire2_dec_free(fresh);

    wire2_bitw_free(&w);
    free(before);
    wire2_dec_free(d);
}

static void lod_cells_follow_the_spec_formulas(void **state)
{
    (void)state;
    assert_int_equal(wire2_lod_density(0), 0);
    assert_int_equal(wire2_lod_density(1), 1);
    assert_int_equal(wire2_lod_density(2), 5);
    assert_int_equal(wire2_lod_density(3), 7);  /* 4·log2 3 = 6.34 */
    assert_int_equal(wire2_lod_density(1000), 41); /* 39.86 → 40, +1 */
    assert_int_equal(wire2_lod_density(100000), 63);
    int32_t s, c;
    wire2_lod_heading_terms(256, &s, &c);
    assert_int_equal(s, 65536);
    assert_int_equal(c, 0);
    assert_int_equal(wire2_lod_heading(65536, 0), 16);
    assert_int_equal(wire2_lod_heading(-65536, 0), 48);
    assert_int_equal(wire2_lod_heading(0, 0), 0);
}

/* A crowd for the LOD walks: N_CROWD agents in a 1000 × 500 world, two
 * thirds of them in its top-left quarter. */
#define N_CROWD 3000

typedef struct crowd {
    float x[N_CROWD], y[N_CROWD], vx[N_CROWD], vy[N_CROWD];
    uint8_t flags[N_CROWD];
    uint32_t rng;
} crowd_t;

static float crowd_rand(crowd_t *c, float span)
{
    c->rng = c->rng * 1664525u + 1013904223u;
    return (float)(c->rng >> 8) / 16777216.0f * span;
}

static void crowd_quantize(crowd_t *c, wire2_world_t *q, uint32_t seq)
{
    snap_view_t v = {.width = 1000, .height = 500, .n = N_CROWD, .x = c->x, .y = c->y, .vx = c->vx, .vy = c->vy,
                     .flags = c->flags};
    assert_int_equal(wire2_world_quantize(q, &v, seq), 0);
}

/* The decoded cells equal the spec's, summed here agent by agent. */
static void assert_spec_cells(const wire2_dec_t *d, const wire2_world_t *q)
{
    const wire2_dec_state_t *st = wire2_dec_state(d);
    wire2_bounds_t b = st->bounds;
    size_t cells = (size_t)st->cols * st->rows;
    uint32_t *count = calloc(cells, sizeof *count);
    int64_t *ss = calloc(cells, sizeof *ss), *sc = calloc(cells, sizeof *sc);
    assert_true(count && ss && sc);
    for (size_t i = 0; i < q->n; i++) {
        const wire2_agent_t *a = &q->agent[i];
        if (a->qx < b.qx0 || a->qx >= b.qx1 || a->qy < b.qy0 || a->qy >= b.qy1) continue;
        size_t cx = (size_t)((a->qx - b.qx0) * st->cols / (b.qx1 - b.qx0));
        size_t cy = (size_t)((a->qy - b.qy0) * st->rows / (b.qy1 - b.qy0));
        int32_t s, c;
        wire2_lod_heading_terms(a->h, &s, &c);
        count[cy * st->cols + cx]++;
        ss[cy * st->cols + cx] += s;
        sc[cy * st->cols + cx] += c;
    }
    for (size_t c = 0; c < cells; c++) {
        assert_int_equal(st->d[c], wire2_lod_density(count[c]));
        assert_int_equal(st->a[c], count[c] ? wire2_lod_heading(ss[c], sc[c]) : 0);
    }
    free(count);
    free(ss);
    free(sc);
}

/* The encoder walks a LOD view's agents through the tile index, or the
 * whole world in id order when the view's tiles hold most of them: the
 * cells (key and delta) are the spec's either way. */
static void lod_cells_are_the_spec_cells_whichever_way_the_encoder_walks(void **state)
{
    (void)state;
    crowd_t *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->rng = 12345;
    for (size_t i = 0; i < N_CROWD; i++) {
        bool in_quarter = i % 3 != 0;
        c->x[i] = crowd_rand(c, in_quarter ? 500 : 1000);
        c->y[i] = crowd_rand(c, in_quarter ? 250 : 500);
        c->vx[i] = crowd_rand(c, 2) - 1;
        c->vy[i] = crowd_rand(c, 2) - 1;
        c->flags[i] = (uint8_t)(i % 5 == 0);
    }
    const struct {
        wire2_rect_t rect;
        bool most; /* the rect holds more than half the agents */
    } views[] = {
        {{3, 0, 0, 8, 8}, true},  /* the whole world */
        {{1, 0, 0, 1, 1}, true},  /* the crowded quarter: id order, a third of the rest outside */
        {{1, 1, 1, 2, 2}, false}, /* a sparse quarter: through the tiles */
        {{3, 1, 2, 6, 5}, false},
    };
    wire2_world_t q = {0};
    crowd_quantize(c, &q, 1);
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        assert_int_equal(wire2_world_count_in(&q, views[v].rect) > N_CROWD / 2, views[v].most);
        wire2_view_enc_t *e = wire2_view_enc_new(views[v].rect, WIRE2_LOD);
        wire2_dec_t *d = wire2_dec_new();
        wire2_chunk_t key, delta;
        crowd_quantize(c, &q, 1);
        assert_int_equal(wire2_view_enc_step(e, &q, &key, NULL, NULL), 0);
        assert_int_equal(decode_chunks(d, &q, true, &key, 1), 0);
        assert_spec_cells(d, &q);
        wire2_chunk_free(&key);
        for (size_t i = 0; i < N_CROWD; i++) {
            c->x[i] = fmodf(c->x[i] + 7 * c->vx[i], 1000);
            c->y[i] = fmodf(c->y[i] + 7 * c->vy[i], 500);
            c->vx[i] = -c->vy[i];
        }
        crowd_quantize(c, &q, 2);
        assert_int_equal(wire2_view_enc_step(e, &q, NULL, &delta, NULL), 0);
        assert_non_null(delta.buf);
        assert_int_equal(decode_chunks(d, &q, false, &delta, 1), 0);
        assert_spec_cells(d, &q);
        wire2_chunk_free(&delta);
        wire2_view_enc_free(e);
        wire2_dec_free(d);
    }
    wire2_world_free(&q);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positions_and_headings_are_quantized_as_the_spec_says),
        cmocka_unit_test(rect_bounds_are_exact_integer_fractions_of_the_world),
        cmocka_unit_test(items_sort_into_the_canonical_order_of_the_spec),
        cmocka_unit_test(a_key_then_a_delta_decode_to_the_quantized_world),
        cmocka_unit_test(a_decoder_that_joined_by_a_key_continues_with_the_key_delta),
        cmocka_unit_test(a_jump_of_more_than_1024_quanta_is_sent_as_exit_and_entry),
        cmocka_unit_test(a_view_that_skipped_a_seq_makes_no_delta_and_a_null_key_is_not_encoded),
        cmocka_unit_test(lod_cells_follow_the_spec_formulas),
        cmocka_unit_test(lod_cells_are_the_spec_cells_whichever_way_the_encoder_walks),
        cmocka_unit_test(malformed_chunks_are_rejected_for_the_reasons_the_spec_lists),
        cmocka_unit_test(truncated_or_corrupted_frames_are_rejected_with_the_state_unchanged),
        cmocka_unit_test(a_thousand_snapshots_of_the_simulation_decode_exactly_for_every_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

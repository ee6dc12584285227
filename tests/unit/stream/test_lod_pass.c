/* A room with no detail view is encoded in one pass over the snapshot's
 * copy (server/src/stream/lod_pass.c: no world by id, no tile index). Its
 * bytes must be those of the path through the world by id
 * (wire2_world_quantize, wire2_view_enc_step, count_grid_build): every LOD
 * key, delta and key-delta and every census cell, snapshot after snapshot,
 * for random worlds, worlds of edge sizes, predators, agents on and past
 * the borders (and NaN), no agents at all, a skipped seq and a resized
 * world. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"
#include "sim/params.h"
#include "sim/world.h"
#include "stream/count_grid.h"
#include "stream/lod_pass.h"

typedef struct crowd {
    float width, height;
    size_t n, n_predators;
    float *x, *y, *vx, *vy;
    uint32_t *id;
    uint8_t *flags;
    predator_t predators[SIM_MAX_PREDATORS];
    uint64_t rng;
} crowd_t;

static double uniform(crowd_t *c)
{
    c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(c->rng >> 11) / 9007199254740992.0;
}

/* A coordinate in [0, size): mostly inside, some on the borders, past
 * them, or not a number at all. */
static float coordinate(crowd_t *c, float size)
{
    double u = uniform(c);
    if (u < 0.02) return 0.0f;
    if (u < 0.04) return size;
    if (u < 0.05) return nextafterf(size, 0.0f);
    if (u < 0.06) return -3.0f;
    if (u < 0.07) return size + 5.0f;
    if (u < 0.075) return NAN;
    return (float)(uniform(c) * size);
}

static float velocity(crowd_t *c)
{
    double u = uniform(c);
    if (u < 0.03) return 0.0f;
    if (u < 0.035) return NAN;
    return (float)(uniform(c) * 4.0 - 2.0);
}

static void crowd_fill(crowd_t *c, size_t n, size_t n_predators, float width, float height, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->rng = seed;
    c->width = width;
    c->height = height;
    c->n = n;
    c->n_predators = n_predators;
    size_t cap = n ? n : 1;
    c->x = malloc(cap * sizeof *c->x);
    c->y = malloc(cap * sizeof *c->y);
    c->vx = malloc(cap * sizeof *c->vx);
    c->vy = malloc(cap * sizeof *c->vy);
    c->id = malloc(cap * sizeof *c->id);
    c->flags = malloc(cap);
    assert_true(c->x && c->y && c->vx && c->vy && c->id && c->flags);
    for (size_t i = 0; i < n; i++) {
        c->x[i] = coordinate(c, width);
        c->y[i] = coordinate(c, height);
        c->vx[i] = velocity(c);
        c->vy[i] = velocity(c);
        c->flags[i] = (uint8_t)(uniform(c) < 0.1 ? AGENT_LEADER : 0);
        c->id[i] = (uint32_t)i;
    }
    /* The copy lists agents in the simulation's order, not by id. */
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(uniform(c) * (double)i);
        uint32_t t = c->id[i - 1];
        c->id[i - 1] = c->id[j];
        c->id[j] = t;
    }
    for (size_t k = 0; k < n_predators; k++)
        c->predators[k] = (predator_t){coordinate(c, width), coordinate(c, height), velocity(c), velocity(c)};
}

/* Everyone moves a little (some past the borders), as between snapshots. */
static void crowd_move(crowd_t *c)
{
    for (size_t i = 0; i < c->n; i++) {
        if (uniform(c) < 0.05) {
            c->x[i] = coordinate(c, c->width);
            c->y[i] = coordinate(c, c->height);
        } else {
            c->x[i] += c->vx[i] * 3.0f;
            c->y[i] += c->vy[i] * 3.0f;
        }
        c->vx[i] += velocity(c) * 0.1f;
    }
    for (size_t k = 0; k < c->n_predators; k++) c->predators[k].x += 2.0f;
}

static void crowd_free(crowd_t *c)
{
    free(c->x);
    free(c->y);
    free(c->vx);
    free(c->vy);
    free(c->id);
    free(c->flags);
}

static snap_view_t view_of(const crowd_t *c, uint32_t tick)
{
    return (snap_view_t){.tick = tick, .width = c->width, .height = c->height, .n = c->n, .x = c->x, .y = c->y,
                         .vx = c->vx, .vy = c->vy, .id = c->id, .flags = c->flags, .predators = c->predators,
                         .n_predators = c->n_predators};
}

static void assert_same_chunk(const wire2_chunk_t *a, const wire2_chunk_t *b)
{
    assert_int_equal(a->len, b->len);
    assert_true((a->buf == NULL) == (b->buf == NULL));
    if (a->len) assert_memory_equal(a->buf, b->buf, a->len);
}

static const wire2_rect_t rects[] = {
    {0, 0, 0, 1, 1},     /* the whole world, one tile */
    {3, 0, 0, 8, 8},     /* the default viewer's */
    {5, 11, 11, 20, 20}, /* a viewport off the tile grid */
    {7, 127, 127, 128, 128}, /* the far corner's finest tile */
    {2, 3, 0, 4, 4},     /* the right border's column */
    {4, 0, 15, 16, 16},  /* the bottom border's row */
};
#define N_RECTS (sizeof rects / sizeof rects[0])

/* Snapshots of c through both paths: seqs 1, 2, 3, then 5 (one skipped:
 * no deltas), then, resized, 6. Each snapshot asks a different set of
 * chunks (as compose needs them). */
static void views_agree(crowd_t *c, const wire2_rect_t *view_rects, size_t n_views)
{
    enum { MAX_VIEWS = 300 };
    assert_true(n_views <= MAX_VIEWS);
    wire2_view_enc_t *old[MAX_VIEWS], *now[MAX_VIEWS];
    for (size_t r = 0; r < n_views; r++) {
        old[r] = wire2_view_enc_new(view_rects[r], WIRE2_LOD);
        now[r] = wire2_view_enc_new(view_rects[r], WIRE2_LOD);
        assert_true(old[r] && now[r]);
    }
    wire2_world_t q = {0};
    const uint32_t seqs[] = {1, 2, 3, 5, 6, 7};
    for (size_t s = 0; s < sizeof seqs / sizeof seqs[0]; s++) {
        if (seqs[s] == 6) c->width = c->width * 1.5f + 1.0f;
        snap_view_t v = view_of(c, seqs[s] * 2);
        int rq = wire2_world_quantize(&q, &v, seqs[s]);
        count_grid_t grid_old, grid_now;
        memset(&grid_now, 0xa5, sizeof grid_now); /* every cell must be written */
        wire2_world_t head;
        int rp = lod_pass(&v, seqs[s], now, n_views, &grid_now, &head);
        assert_int_equal(rp, rq);
        if (rq) break;
        count_grid_build(&grid_old, &q);
        assert_memory_equal(&grid_old, &grid_now, sizeof grid_old);
        assert_int_equal(head.seq, q.seq);
        assert_int_equal(head.tick, q.tick);
        assert_int_equal(head.wq, q.wq);
        assert_int_equal(head.hq, q.hq);
        assert_int_equal(head.n, q.n);
        assert_int_equal(head.n_agents, q.n_agents);
        for (size_t r = 0; r < n_views; r++) {
            wire2_chunk_t k0, d0, kd0, k1, d1, kd1;
            bool want_key = s % 2 == 0 || r == 0, want_kd = s != 2;
            int r0 = wire2_view_enc_step(old[r], &q, want_key ? &k0 : NULL, &d0, want_kd ? &kd0 : NULL);
            int r1 = wire2_view_enc_lod_end(now[r], &head, want_key ? &k1 : NULL, &d1, want_kd ? &kd1 : NULL);
            assert_int_equal(r0, r1);
            if (want_key) assert_same_chunk(&k0, &k1);
            assert_same_chunk(&d0, &d1);
            if (want_kd) assert_same_chunk(&kd0, &kd1);
            /* Deltas exactly when the encoder held the previous seq of the same size. */
            bool expect_delta = r0 == 0 && s > 0 && seqs[s] == seqs[s - 1] + 1 && seqs[s] != 6;
            assert_true((d1.buf != NULL) == expect_delta);
            if (want_key) {
                wire2_chunk_free(&k0);
                wire2_chunk_free(&k1);
            }
            wire2_chunk_free(&d0);
            wire2_chunk_free(&d1);
            if (want_kd) {
                wire2_chunk_free(&kd0);
                wire2_chunk_free(&kd1);
            }
        }
        crowd_move(c);
    }
    for (size_t r = 0; r < n_views; r++) {
        wire2_view_enc_free(old[r]);
        wire2_view_enc_free(now[r]);
    }
    wire2_world_free(&q);
}

static void both_paths_agree(crowd_t *c) { views_agree(c, rects, N_RECTS); }

/* The copy in the simulation's order: by bands of y, then x (as grid cells
 * are), so that a block of agents lies close together and most blocks miss
 * most small views (lod_pass skips those). */
static const crowd_t *sorting;
static int band_then_x(const void *pa, const void *pb)
{
    const size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const float band = sorting->height / 50.0f;
    const float ba = floorf(sorting->y[a] / band), bb = floorf(sorting->y[b] / band);
    if (ba != bb) return ba < bb ? -1 : 1;
    return sorting->x[a] < sorting->x[b] ? -1 : sorting->x[a] > sorting->x[b] ? 1 : (a > b) - (a < b);
}

static void crowd_sort(crowd_t *c)
{
    size_t *order = malloc(c->n * sizeof *order);
    crowd_t was = *c;
    float *x = malloc(c->n * sizeof *x), *y = malloc(c->n * sizeof *y), *vx = malloc(c->n * sizeof *vx),
          *vy = malloc(c->n * sizeof *vy);
    uint32_t *id = malloc(c->n * sizeof *id);
    uint8_t *flags = malloc(c->n);
    assert_true(order && x && y && vx && vy && id && flags);
    for (size_t i = 0; i < c->n; i++) order[i] = i;
    sorting = c;
    qsort(order, c->n, sizeof *order, band_then_x);
    for (size_t k = 0; k < c->n; k++) {
        size_t i = order[k];
        x[k] = was.x[i], y[k] = was.y[i], vx[k] = was.vx[i], vy[k] = was.vy[i], id[k] = was.id[i], flags[k] = was.flags[i];
    }
    crowd_free(c);
    c->x = x, c->y = y, c->vx = vx, c->vy = vy, c->id = id, c->flags = flags;
    free(order);
}

/* Many small views over a crowd in the simulation's order: each block is
 * added only to the views its bounding box meets, and every view's bytes
 * are still those of the path through the world by id (blocks straddle
 * the views' edges, every tile of a level-4 grid, and offset rects). */
static void many_small_views_over_a_sorted_crowd_give_the_same_bytes(void **state)
{
    (void)state;
    wire2_rect_t many[256 + N_RECTS];
    size_t n = 0;
    for (uint16_t ty = 0; ty < 16; ty++)
        for (uint16_t tx = 0; tx < 16; tx++) many[n++] = (wire2_rect_t){4, tx, ty, (uint16_t)(tx + 1), (uint16_t)(ty + 1)};
    for (size_t r = 0; r < N_RECTS; r++) many[n++] = rects[r];
    const size_t sizes[] = {65, 4099, 20000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        crowd_t c;
        double scale = sqrt((double)sizes[i] / 2000.0) + 0.05;
        crowd_fill(&c, sizes[i], i, (float)(1600.0 * scale), (float)(900.0 * scale), 77 + i);
        crowd_sort(&c);
        views_agree(&c, many, n);
        crowd_free(&c);
    }
}

static void random_worlds_give_the_same_bytes_both_ways(void **state)
{
    (void)state;
    /* Populations with every block tail (the pass quantizes 64 at a time). */
    const size_t sizes[] = {1, 2, 63, 64, 65, 127, 1000, 4099, 20000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        crowd_t c;
        double scale = sqrt((double)sizes[i] / 2000.0) + 0.05;
        crowd_fill(&c, sizes[i], i % 4 == 0 ? 0 : i % (SIM_MAX_PREDATORS + 1), (float)(1600.0 * scale + i * 0.37),
                   (float)(900.0 * scale + i * 0.11), 1000 + i);
        both_paths_agree(&c);
        crowd_free(&c);
    }
}

static void edge_worlds_give_the_same_bytes_both_ways(void **state)
{
    (void)state;
    const struct {
        size_t n, predators;
        float width, height;
    } worlds[] = {
        {0, 0, 1600, 900},            /* no agents: empty cells, an empty census */
        {0, 3, 1600, 900},            /* only predators */
        {500, SIM_MAX_PREDATORS, 0.01f, 0.01f}, /* one quantum each way */
        {500, 1, 0.3f, 5000.0f},      /* fewer quanta across than the finest tiles */
        {700, 2, 131072.0f, 7.0f},    /* wide and flat */
        {300, 0, 0.0f, 900.0f},       /* no width: no view can be coded, no census */
        {300, 1, 134217728.0f, 134217728.0f}, /* 2^31 quanta a side, the most a chunk codes */
    };
    for (size_t i = 0; i < sizeof worlds / sizeof worlds[0]; i++) {
        crowd_t c;
        crowd_fill(&c, worlds[i].n, worlds[i].predators, worlds[i].width, worlds[i].height, 77 + i);
        both_paths_agree(&c);
        crowd_free(&c);
    }
}

/* Without any view the pass quantizes positions only: the census is the
 * same, and the header fields too. */
static void with_no_view_the_census_is_the_same(void **state)
{
    (void)state;
    crowd_t c;
    crowd_fill(&c, 3001, 5, 2000.5f, 1000.25f, 9);
    snap_view_t v = view_of(&c, 8);
    wire2_world_t q = {0}, head;
    assert_int_equal(wire2_world_quantize(&q, &v, 4), 0);
    count_grid_t a, b;
    count_grid_build(&a, &q);
    memset(&b, 0x5a, sizeof b);
    assert_int_equal(lod_pass(&v, 4, NULL, 0, &b, &head), 0);
    assert_memory_equal(&a, &b, sizeof a);
    size_t total = 0;
    for (size_t k = 0; k < COUNT_GRID_SIDE * COUNT_GRID_SIDE; k++) total += b.cells[k];
    assert_int_equal(total, 3001 + 5);
    assert_null(head.agent);
    assert_int_equal(head.n, q.n);
    wire2_world_free(&q);
    crowd_free(&c);
}

/* A view whose sums were not begun (or begun for another size) makes no
 * chunk and holds nothing, as a failed step. */
static void a_view_not_summed_for_this_world_makes_no_chunk(void **state)
{
    (void)state;
    crowd_t c;
    crowd_fill(&c, 100, 0, 1600, 900, 5);
    snap_view_t v = view_of(&c, 2);
    wire2_view_enc_t *e = wire2_view_enc_new(rects[1], WIRE2_LOD);
    wire2_view_enc_t *detail = wire2_view_enc_new(rects[1], WIRE2_DETAIL);
    count_grid_t g;
    wire2_world_t head;
    assert_int_equal(lod_pass(&v, 1, &e, 1, &g, &head), 0);
    wire2_chunk_t key, delta;
    assert_int_equal(wire2_view_enc_lod_end(e, &head, &key, &delta, NULL), 0);
    assert_non_null(key.buf);
    wire2_chunk_free(&key);
    /* Not begun for seq 2. */
    head.seq = 2;
    assert_int_equal(wire2_view_enc_lod_end(e, &head, &key, &delta, NULL), WIRE2_E_ARG);
    assert_null(key.buf);
    assert_null(delta.buf);
    /* Begun for another size. */
    assert_int_equal(wire2_view_enc_lod_begin(e, head.wq + 1, head.hq), 0);
    assert_int_equal(wire2_view_enc_lod_end(e, &head, &key, NULL, NULL), WIRE2_E_ARG);
    assert_null(key.buf);
    /* A detail view cannot be summed. */
    assert_int_equal(wire2_view_enc_lod_begin(detail, head.wq, head.hq), WIRE2_E_ARG);
    wire2_view_enc_free(e);
    wire2_view_enc_free(detail);
    crowd_free(&c);
}

/* More items than a chunk can count: both ways refuse the snapshot, and
 * the pass leaves no census (nothing is read: the arrays are not there). */
static void too_many_items_are_refused_both_ways(void **state)
{
    (void)state;
    snap_view_t v = {.width = 1600, .height = 900, .n = WIRE2_MAX_COUNT, .n_predators = 1};
    wire2_world_t q = {0}, head;
    count_grid_t g;
    memset(&g, 0x5a, sizeof g);
    assert_int_equal(wire2_world_quantize(&q, &v, 1), WIRE2_E_ARG);
    assert_int_equal(lod_pass(&v, 1, NULL, 0, &g, &head), WIRE2_E_ARG);
    assert_int_equal(g.wq, 0);
    assert_int_equal(count_grid_estimate(&g, rects[0]), 0);
    wire2_world_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_worlds_give_the_same_bytes_both_ways),
        cmocka_unit_test(many_small_views_over_a_sorted_crowd_give_the_same_bytes),
        cmocka_unit_test(edge_worlds_give_the_same_bytes_both_ways),
        cmocka_unit_test(with_no_view_the_census_is_the_same),
        cmocka_unit_test(a_view_not_summed_for_this_world_makes_no_chunk),
        cmocka_unit_test(too_many_items_are_refused_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

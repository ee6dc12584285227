/* The encoder's fast paths against straightforward ones: the quantizer
 * (server/src/protocol/wire2_world.c: blocks of agents in a vectorized loop,
 * heading.h's branch-free heading, the index's tile without integer
 * division) against the one it replaced, written out here as it was: one
 * agent at a time, with branches and 64-bit divisions; and the canonical
 * sort (wire2_canon.c: key and index packed in one word when they fit)
 * against a comparison sort. Same bits for every input, odd ones included (NaN,
 * infinities, positions outside the world, zero and signed-zero velocities,
 * worlds whose size has no quanta), on sizes with tails of every length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/heading.h"
#include "protocol/wire2.h"
#include "protocol/wire2_canon.h"

/* ---- the straightforward quantizer ---- */

static float ref_atan_table[65];

static void ref_init(void)
{
    for (int k = 0; k <= 64; k++) ref_atan_table[k] = (float)atan((double)k / 64);
}

static uint32_t ref_heading(float vx, float vy, uint32_t steps)
{
    const float pi = 3.14159265358979f;
    float ax = fabsf(vx), ay = fabsf(vy);
    bool steep = ay > ax;
    float lo = steep ? ax : ay, hi = steep ? ay : ax;
    if (hi == 0.0f) return 0;
    float a = lo / hi;
    if (!(a <= 1.0f)) return 0;
    int k = (int)(a * 64 + 0.5f);
    float c = (float)k * (1.0f / 64);
    float t = (a - c) / (1.0f + a * c);
    float angle = ref_atan_table[k] + t * (1.0f - t * t * (1.0f / 3.0f));
    if (steep) angle = 0.5f * pi - angle;
    if (vx < 0.0f) angle = pi - angle;
    if (vy < 0.0f) angle = -angle;
    float s = (float)steps;
    float q = angle * (s / (2.0f * pi)) + 0.5f;
    int floor_q = (int)(q + s) - (int)steps;
    return (uint32_t)floor_q & (steps - 1u);
}

static uint32_t ref_pos(float u, uint32_t limit)
{
    double t = (double)u * WIRE2_QUANTA_PER_UNIT + 0.5;
    if (!(t > 0.0)) return 0;
    if (t >= (double)limit) return limit ? limit - 1u : 0u;
    return (uint32_t)t;
}

/* ---- inputs ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static float unit(void) { return (float)rnd() / 4294967296.0f * 2.0f; }

/* A coordinate in [0, size) mostly, else one of the odd values. */
static float odd_or(float ordinary)
{
    static const float odd[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.0f, -1.0f, 1e30f, -1e30f, 1e-40f, 0.03125f,
                                0.09375f, 3.4e38f};
    return rnd() % 8 ? ordinary : odd[rnd() % (sizeof odd / sizeof *odd)];
}

static float velocity(void)
{
    switch (rnd() % 6) {
    case 0: return odd_or((unit() - 1.0f) * 50.0f);
    case 1: return (float)((int)(rnd() % 7) - 3); /* axis-aligned and diagonal directions */
    case 2: return (unit() - 1.0f) * 1e-30f;
    default: return (unit() - 1.0f) * 120.0f;
    }
}

typedef struct world_in {
    float *x, *y, *vx, *vy;
    uint8_t *flags;
    uint32_t *id;
    predator_t predators[3];
} world_in_t;

static void make_world(world_in_t *w, size_t n, float width, float height, snap_view_t *v)
{
    w->x = malloc((n + 1) * sizeof *w->x);
    w->y = malloc((n + 1) * sizeof *w->y);
    w->vx = malloc((n + 1) * sizeof *w->vx);
    w->vy = malloc((n + 1) * sizeof *w->vy);
    w->flags = malloc(n + 1);
    w->id = malloc((n + 1) * sizeof *w->id);
    for (size_t i = 0; i < n; i++) {
        w->x[i] = odd_or(unit() * 0.5f * width);
        w->y[i] = odd_or(unit() * 0.5f * height);
        w->vx[i] = velocity();
        w->vy[i] = velocity();
        w->flags[i] = (uint8_t)rnd();
        w->id[i] = (uint32_t)i;
    }
    for (size_t i = n; i > 1; i--) { /* ids in a random order, as a world sorted by cell has them */
        size_t j = rnd() % i;
        uint32_t t = w->id[i - 1];
        w->id[i - 1] = w->id[j];
        w->id[j] = t;
    }
    for (int k = 0; k < 3; k++)
        w->predators[k] = (predator_t){.x = odd_or(unit() * width), .y = odd_or(unit() * height), .vx = velocity(),
                                       .vy = velocity()};
    *v = (snap_view_t){.tick = 7, .width = width, .height = height, .n = n, .x = w->x, .y = w->y, .vx = w->vx,
                       .vy = w->vy, .flags = w->flags, .id = w->id, .predators = w->predators, .n_predators = 3};
}

static void free_world(world_in_t *w)
{
    free(w->x);
    free(w->y);
    free(w->vx);
    free(w->vy);
    free(w->flags);
    free(w->id);
}

/* ---- tests ---- */

static void headings_are_the_straightforward_ones_for_any_velocity(void **state)
{
    (void)state;
    ref_init();
    static const float odd[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, INFINITY, -INFINITY, 1e-45f, -1e-45f, 3.4e38f, 0.5f};
    size_t n_odd = sizeof odd / sizeof *odd;
    for (size_t i = 0; i < n_odd; i++)
        for (size_t j = 0; j < n_odd; j++)
            for (uint32_t steps = 256; steps <= 1024; steps *= 4)
                assert_int_equal(heading_quantize(odd[i], odd[j], steps), ref_heading(odd[i], odd[j], steps));
    for (int i = 0; i < 2000000; i++) {
        float vx = velocity(), vy = velocity();
        uint32_t steps = i & 1 ? 1024u : 256u;
        assert_int_equal(heading_quantize(vx, vy, steps), ref_heading(vx, vy, steps));
    }
    /* Directions at the edges of the steps and of the table's points. */
    for (int s = 0; s < 4096; s++) {
        double angle = 2.0 * M_PI * s / 4096.0;
        float vx = (float)cos(angle), vy = (float)sin(angle);
        assert_int_equal(heading_quantize(vx, vy, 1024), ref_heading(vx, vy, 1024));
        assert_int_equal(wire2_quantize_heading(vx, vy), ref_heading(vx, vy, 1024));
    }
}

static void a_quantized_world_is_the_straightforward_one_on_every_size_and_tail(void **state)
{
    (void)state;
    ref_init();
    static const size_t sizes[] = {0, 1, 2, 31, 63, 64, 65, 127, 128, 129, 1000, 4097, 70001};
    static const float sides[][2] = {{1600, 900}, {100.03f, 49.99f}, {0.0f, 900}, {NAN, 10}, {1e9f, 3}, {0.01f, 0.01f}};
    wire2_world_t q = {0};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t d = 0; d < sizeof sides / sizeof *sides; d++) {
            world_in_t w;
            snap_view_t v;
            make_world(&w, sizes[s], sides[d][0], sides[d][1], &v);
            assert_int_equal(wire2_world_quantize(&q, &v, 5), 0);
            uint32_t wq = wire2_quanta_of(v.width), hq = wire2_quanta_of(v.height);
            assert_int_equal(q.n, sizes[s] + 3);
            for (size_t i = 0; i < v.n; i++) {
                uint32_t id = w.id[i];
                assert_int_equal(q.agent[id].qx, ref_pos(w.x[i], wq));
                assert_int_equal(q.agent[id].qy, ref_pos(w.y[i], hq));
                assert_int_equal(q.agent[id].h, ref_heading(w.vx[i], w.vy[i], 1024));
                assert_int_equal(q.agent[id].f, w.flags[i]);
            }
            for (size_t k = 0; k < 3; k++) {
                assert_int_equal(q.agent[v.n + k].qx, ref_pos(w.predators[k].x, wq));
                assert_int_equal(q.agent[v.n + k].qy, ref_pos(w.predators[k].y, hq));
                assert_int_equal(q.agent[v.n + k].h, ref_heading(w.predators[k].vx, w.predators[k].vy, 1024));
            }
            /* The index: every id once, in the tile the 64-bit division puts it in, tiles in order. */
            if (wq && hq) {
                bool *seen = calloc(q.n + 1, sizeof *seen);
                for (unsigned t = 0; t < 256; t++)
                    for (uint32_t k = q.tile_start[t]; k < q.tile_start[t + 1]; k++) {
                        uint32_t id = q.by_tile[k];
                        assert_true(id < q.n && !seen[id]);
                        seen[id] = true;
                        unsigned tx = (unsigned)((uint64_t)q.agent[id].qx * 16 / wq);
                        unsigned ty = (unsigned)((uint64_t)q.agent[id].qy * 16 / hq);
                        assert_int_equal(ty * 16 + tx, t);
                    }
                assert_int_equal(q.tile_start[256], q.n);
                free(seen);
            }
            free_world(&w);
        }
    wire2_world_free(&q);
}

static void a_tile_by_double_division_is_the_integer_floor(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 2, 3, 15, 16, 17, 1600, 572432, 65535, 65536, 2147483647u, 2147483648u};
    static const unsigned sides[] = {1, 16, 32, 255, 65536};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t d = 0; d < sizeof sides / sizeof *sides; d++) {
            uint32_t size = sizes[s];
            unsigned side = sides[d];
            /* The quanta at each tile's edges, and random ones. */
            for (unsigned t = 0; t <= side; t++) {
                uint64_t edge = ((uint64_t)t * size + side - 1) / side;
                for (int64_t dv = -1; dv <= 1; dv++) {
                    int64_t v = (int64_t)edge + dv;
                    if (v < 0 || v >= (int64_t)size) continue;
                    assert_int_equal(wire2_scale_floor((uint32_t)v, side, size), (uint64_t)v * side / size);
                }
            }
            for (int i = 0; i < 20000; i++) {
                uint32_t v = (uint32_t)(((uint64_t)rnd() << 16 ^ rnd()) % size);
                assert_int_equal(wire2_scale_floor(v, side, size), (uint64_t)v * side / size);
            }
        }
}

static int by_canonical_order(const void *a, const void *b) { return wire2_item_cmp(a, b); }

static void a_radix_sort_of_any_width_is_the_comparison_sort(void **state)
{
    (void)state;
    /* Widths where key and index fit one word (the packed sort) and where
     * they do not (31 + 31 bits), sizes with odd tails, and few distinct
     * positions (long runs of equal keys) as well as many. Key and index
     * exactly 64 bits and one more: 29 + 29 with 64 and 65 items (6 and 7
     * index bits), 27 + 27 with 1000 (10), 25 + 22 with 70001 (17). */
    static const unsigned widths[][2] = {{13, 13}, {20, 19}, {0, 9}, {31, 31}, {1, 1}, {26, 24}, {29, 29}, {27, 27}, {25, 22}};
    static const size_t sizes[] = {64, 65, 1000, 4097, 70001};
    wire2_sorter_t sorter = {0};
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int few = 0; few < 2; few++) {
                size_t n = sizes[s];
                unsigned bx = widths[w][0], by = widths[w][1];
                uint64_t sx = (uint64_t)1 << bx, sy = (uint64_t)1 << by; /* rx, ry of bx, by bits */
                if (few) sx = sx < 3 ? sx : 3, sy = sy < 3 ? sy : 3;
                wire2_item_t *items = malloc(n * sizeof *items), *expect = malloc(n * sizeof *expect);
                for (size_t i = 0; i < n; i++)
                    items[i] = (wire2_item_t){.ry = (uint32_t)(((uint64_t)rnd() << 16 ^ rnd()) % sy),
                                              .rx = (uint32_t)(((uint64_t)rnd() << 16 ^ rnd()) % sx),
                                              .h = (uint16_t)(rnd() % 3), .f = (uint8_t)(rnd() % 2),
                                              .py = rnd() % 3, .px = rnd() % 3, .id = rnd() % 5};
                memcpy(expect, items, n * sizeof *items);
                qsort(expect, n, sizeof *expect, by_canonical_order);
                assert_int_equal(wire2_sort_items(items, n, bx, by, &sorter), 0);
                for (size_t i = 0; i < n; i++)
                    if (wire2_item_cmp(&items[i], &expect[i])) fail_msg("w %zu n %zu few %d at %zu", w, n, few, i);
                free(items);
                free(expect);
            }
    wire2_sorter_free(&sorter);
}

/* bx and by narrower than the coordinates (no caller passes such, but a
 * mistake must not corrupt the list): still the comparison sort's order,
 * every item once. The packed sort, given these, lost items: ry's bit 28
 * shifted out of the word, digits counted and placed differently. An rx
 * wider than bx but within bx + by ran into ry's bits: the keys misordered
 * the items (232 of 256 out of place at bx 4, by 8, rx of 6 bits). And bit
 * lengths past a coordinate's 32 bits are the same key (no shift of 64). */
static void a_coordinate_wider_than_its_bits_is_still_sorted(void **state)
{
    (void)state;
    enum { N = 256 };
    static const struct {
        unsigned bx, by;
        uint32_t wide_ry, rx_span; /* a bit set in some ry; rx below rx_span */
    } cases[] = {{28, 28, 1u << 28, 7}, {4, 8, 0, 64}, {0, 64, 0, 1}, {64, 0, 0, 1u << 31}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        wire2_item_t items[N], expect[N];
        for (int i = 0; i < N; i++) {
            uint32_t ry = (uint32_t)(N - i) % (cases[c].by < 8 ? 1u : 256u);
            if (i < 40) ry |= cases[c].wide_ry;                   /* above by bits */
            if (i >= 100 && i < 140 && cases[c].by > 27) ry |= 1u << 27; /* within them */
            items[i] = (wire2_item_t){.ry = ry, .rx = rnd() % cases[c].rx_span, .h = (uint16_t)(rnd() % 1024),
                                      .id = (uint32_t)i};
        }
        memcpy(expect, items, sizeof items);
        qsort(expect, N, sizeof *expect, by_canonical_order);
        wire2_sorter_t sorter = {0};
        assert_int_equal(wire2_sort_items(items, N, cases[c].bx, cases[c].by, &sorter), 0);
        for (int i = 0; i < N; i++)
            if (wire2_item_cmp(&items[i], &expect[i]))
                fail_msg("case %zu, item %d: id %u, expected id %u", c, i, items[i].id, expect[i].id);
        wire2_sorter_free(&sorter);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headings_are_the_straightforward_ones_for_any_velocity),
        cmocka_unit_test(a_quantized_world_is_the_straightforward_one_on_every_size_and_tail),
        cmocka_unit_test(a_tile_by_double_division_is_the_integer_floor),
        cmocka_unit_test(a_radix_sort_of_any_width_is_the_comparison_sort),
        cmocka_unit_test(a_coordinate_wider_than_its_bits_is_still_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

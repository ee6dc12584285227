#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/grid.h"
#include "sim/prng.h"

#define N 2000

static float xs[N], ys[N];

static void scatter(float width, float height, uint64_t seed)
{
    prng_t r;
    prng_seed(&r, seed, 1);
    for (int i = 0; i < N; i++) {
        xs[i] = prng_range(&r, 0, width);
        ys[i] = prng_range(&r, 0, height);
    }
}

static float delta(float d, float extent, bool wrap)
{
    if (!wrap) return d;
    if (d > extent / 2) return d - extent;
    if (d < -extent / 2) return d + extent;
    return d;
}

/* For every agent, the grid's 3x3 block must hold exactly the agents a
 * brute-force scan finds within the radius, no more (counted once) and no
 * fewer, including across cell edges and (when wrapping) across the border. */
static void check_against_brute_force(float width, float height, float radius, bool wrap)
{
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, width, height, radius), 0);
    assert_int_equal(grid_reserve(&g, N), 0);
    grid_build(&g, N, xs, ys);
    float r2 = radius * radius;
    for (int i = 0; i < N; i++) {
        int brute = 0;
        for (int j = 0; j < N; j++) {
            float dx = delta(xs[j] - xs[i], width, wrap), dy = delta(ys[j] - ys[i], height, wrap);
            brute += j != i && dx * dx + dy * dy < r2;
        }
        uint32_t cells[9];
        int nc = grid_block(&g, grid_cell_x(&g, xs[i]), grid_cell_y(&g, ys[i]), wrap, cells);
        int found = 0;
        for (int c = 0; c < nc; c++)
            for (uint32_t k = g.cell_start[cells[c]]; k < g.cell_start[cells[c] + 1]; k++) {
                uint32_t j = g.order[k];
                float dx = delta(xs[j] - xs[i], width, wrap), dy = delta(ys[j] - ys[i], height, wrap);
                found += (int)j != i && dx * dx + dy * dy < r2;
            }
        assert_int_equal(found, brute);
    }
    grid_free(&g);
}

static void grid_should_find_every_neighbour_across_cell_edges(void **state)
{
    (void)state;
    scatter(500, 300, 1);
    check_against_brute_force(500, 300, 20, false);
}

static void grid_should_find_neighbours_across_the_border_when_wrapping(void **state)
{
    (void)state;
    scatter(500, 300, 2);
    check_against_brute_force(500, 300, 20, true);
}

static void grid_should_count_each_neighbour_once_when_the_world_is_two_cells_wide(void **state)
{
    (void)state;
    scatter(50, 45, 3); /* radius 20: 2 x 2 cells, the 3x3 block would revisit cells */
    check_against_brute_force(50, 45, 20, true);
    check_against_brute_force(50, 45, 20, false);
}

static void counting_sort_should_group_agents_by_cell_keeping_their_order(void **state)
{
    (void)state;
    scatter(400, 400, 4);
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 400, 400, 25), 0);
    assert_int_equal(grid_reserve(&g, N), 0);
    grid_build(&g, N, xs, ys);
    size_t cells = (size_t)g.nx * (size_t)g.ny;
    assert_int_equal(g.cell_start[0], 0);
    assert_int_equal(g.cell_start[cells], N);
    bool *seen = calloc(N, sizeof *seen);
    for (size_t c = 0; c < cells; c++) {
        assert_true(g.cell_start[c] <= g.cell_start[c + 1]);
        for (uint32_t k = g.cell_start[c]; k < g.cell_start[c + 1]; k++) {
            uint32_t i = g.order[k];
            assert_false(seen[i]);
            seen[i] = true;
            assert_int_equal(grid_cell_y(&g, ys[i]) * g.nx + grid_cell_x(&g, xs[i]), c);
            if (k > g.cell_start[c]) assert_true(g.order[k - 1] < i); /* stable */
        }
    }
    free(seen);
    grid_free(&g);
}

static void cells_should_never_be_smaller_than_asked(void **state)
{
    (void)state;
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 1000, 333, 30), 0);
    assert_true(1000.0f / (float)g.nx >= 30.0f);
    assert_true(333.0f / (float)g.ny >= 30.0f);
    assert_int_equal(g.nx, 33);
    assert_int_equal(g.ny, 11);
    grid_free(&g);
}

static void grid_should_bound_its_cell_count_for_tiny_cells(void **state)
{
    (void)state;
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 1e6f, 1e6f, 1), 0);
    assert_true((size_t)g.nx * (size_t)g.ny <= GRID_MAX_CELLS);
    grid_free(&g);
}

static void positions_outside_the_world_should_clamp_to_edge_cells(void **state)
{
    (void)state;
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 100, 100, 10), 0);
    assert_int_equal(grid_cell_x(&g, -5), 0);
    assert_int_equal(grid_cell_x(&g, 100), g.nx - 1);
    assert_int_equal(grid_cell_y(&g, 1e9f), g.ny - 1);
    grid_free(&g);
}

/* Half the agents scattered, half crowded into a corner square (across
 * the wrapped edges of the world) and the middle: blocks of every size. */
static void scatter_with_crowds(float width, float height, uint64_t seed)
{
    prng_t r;
    prng_seed(&r, seed, 1);
    for (int i = 0; i < N; i++) {
        int kind = i % 4;
        if (kind < 2) {
            xs[i] = prng_range(&r, 0, width);
            ys[i] = prng_range(&r, 0, height);
        } else if (kind == 2) { /* 30 u square round the corner (0, 0) */
            xs[i] = fmodf(width - 15.0f + prng_range(&r, 0, 30), width);
            ys[i] = fmodf(height - 15.0f + prng_range(&r, 0, 30), height);
        } else {
            xs[i] = width / 2 + prng_range(&r, 0, 30);
            ys[i] = height / 2 + prng_range(&r, 0, 30);
        }
    }
}

/* Which of the block's runs (grid_runs) holds agent k with this shift. */
static bool in_block(const grid_run_t *runs, int n_runs, uint32_t k, float shift_x, float shift_y)
{
    for (int r = 0; r < n_runs; r++)
        if (k >= runs[r].begin && k < runs[r].end && runs[r].shift_x == shift_x && runs[r].shift_y == shift_y) return true;
    return false;
}

/* For every cell whose block holds more than want: the sample holds
 * exactly want distinct agents of the block (with the block's shifts),
 * each cell of the block gives a share within one of proportional, and
 * the cell's own agents are found where they are in the sample (or not
 * at all when left out). */
static void check_block_samples(float width, float height, float radius, bool wrap, uint32_t want, uint64_t seed)
{
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, width, height, radius), 0);
    assert_int_equal(grid_reserve(&g, N), 0);
    grid_build(&g, N, xs, ys);
    int sampled_blocks = 0;
    uint32_t *place = malloc(N * sizeof *place); /* each agent's place in the sample, or UINT32_MAX */
    assert_non_null(place);
    for (int cy = 0; cy < g.ny; cy++)
        for (int cx = 0; cx < g.nx; cx++) {
            grid_run_t runs[GRID_MAX_RUNS], sample[GRID_MAX_SAMPLE_RUNS];
            bool pair_wrap;
            int n_runs = grid_runs(&g, cx, cy, wrap, runs, &pair_wrap);
            uint32_t total = 0;
            for (int r = 0; r < n_runs; r++) total += runs[r].end - runs[r].begin;
            if (total <= want) continue;
            sampled_blocks++;
            grid_own_t own[2];
            int n_own = -1;
            int n = grid_sample_block(&g, cx, cy, wrap, want, seed + (uint64_t)cx, sample, own, &n_own);
            assert_true(n > 0 && n <= GRID_MAX_SAMPLE_RUNS);
            assert_true(n_own >= 0 && n_own <= 2);
            for (int k = 0; k < N; k++) place[k] = UINT32_MAX;
            uint32_t at = 0;
            for (int r = 0; r < n; r++)
                for (uint32_t k = sample[r].begin; k < sample[r].end; k++, at++) {
                    assert_true(in_block(runs, n_runs, k, sample[r].shift_x, sample[r].shift_y));
                    assert_int_equal(place[k], UINT32_MAX); /* each agent once */
                    place[k] = at;
                }
            assert_int_equal(at, want);
            /* Each cell's share: count the sampled agents of every cell of the block. */
            uint32_t cells[9];
            int nc = grid_block(&g, cx, cy, wrap, cells);
            for (int c = 0; c < nc; c++) {
                uint32_t len = g.cell_start[cells[c] + 1] - g.cell_start[cells[c]], got = 0;
                for (uint32_t k = g.cell_start[cells[c]]; k < g.cell_start[cells[c] + 1]; k++) got += place[k] != UINT32_MAX;
                double fair = (double)want * len / total;
                assert_true(got >= floor(fair) && got <= ceil(fair));
            }
            /* The cell's own agents. */
            uint32_t self = (uint32_t)(cy * g.nx + cx);
            for (uint32_t i = g.cell_start[self]; i < g.cell_start[self + 1]; i++) {
                uint32_t found = UINT32_MAX;
                for (int o = 0; o < n_own; o++)
                    if (i >= own[o].begin && i < own[o].end) found = own[o].at + (i - own[o].begin);
                assert_int_equal(found, place[i]);
            }
        }
    assert_true(sampled_blocks > 0); /* the crowds did overfill some blocks */
    free(place);
    grid_free(&g);
}

static void a_block_sample_should_take_a_fair_share_of_each_cell_and_know_where_each_agent_is(void **state)
{
    (void)state;
    scatter_with_crowds(500, 300, 5);
    for (uint64_t seed = 0; seed < 3; seed++) {
        check_block_samples(500, 300, 20, false, 16, seed);
        check_block_samples(500, 300, 20, true, 16, seed);
        check_block_samples(500, 300, 20, true, 100, seed);
    }
    scatter_with_crowds(50, 45, 6); /* 2 x 2 cells: the block is its cells, no shifts */
    check_block_samples(50, 45, 20, true, 64, 1);
    check_block_samples(50, 45, 20, false, 64, 1);
}

static void a_crowded_cell_should_be_sampled_alike_over_ticks(void **state)
{
    (void)state;
    for (int i = 0; i < N; i++) xs[i] = 105.0f + (float)(i % 40), ys[i] = 105.0f + (float)(i / 40) * 0.5f;
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 1000, 1000, 50), 0);
    assert_int_equal(grid_reserve(&g, N), 0);
    grid_build(&g, N, xs, ys); /* all in cell (2, 2) */
    static int seen[N];
    const int ticks = 1000;
    const uint32_t want = 200; /* a tenth */
    for (int t = 0; t < ticks; t++) {
        grid_run_t sample[GRID_MAX_SAMPLE_RUNS];
        grid_own_t own[2];
        int n_own;
        int n = grid_sample_block(&g, 2, 2, false, want, prng_mix((uint64_t)t), sample, own, &n_own);
        for (int r = 0; r < n; r++)
            for (uint32_t k = sample[r].begin; k < sample[r].end; k++) seen[k]++;
    }
    /* Each agent in about a tenth of the samples (100 expected). */
    for (int k = 0; k < N; k++) assert_in_range(seen[k], 60, 140);
    grid_free(&g);
}

/* A build in parts, on any number of parts, counted in any order, places
 * every agent where the whole build's order does, through each part's
 * cursors (agents of one cell keep their order). */
static void a_build_in_parts_should_equal_the_whole_build(void **state)
{
    (void)state;
    enum { AGENTS = 5000 };
    static float x[AGENTS], y[AGENTS];
    static uint32_t placed[AGENTS];
    prng_t rng;
    prng_seed(&rng, 4, 1);
    for (int i = 0; i < AGENTS; i++) x[i] = prng_range(&rng, 0.0f, 300.0f), y[i] = prng_range(&rng, 0.0f, 200.0f);
    x[7] = -5.0f, y[9] = 250.0f; /* outside: the edge cells */
    grid_t whole;
    grid_init(&whole);
    assert_int_equal(grid_configure(&whole, 300, 200, 10), 0);
    assert_int_equal(grid_reserve(&whole, AGENTS), 0);
    grid_build(&whole, AGENTS, x, y);
    for (int parts = 2; parts <= 5; parts++) {
        grid_t g;
        grid_init(&g);
        assert_int_equal(grid_set_parts(&g, parts), 0);
        assert_int_equal(grid_configure(&g, 300, 200, 10), 0);
        assert_int_equal(grid_reserve(&g, AGENTS), 0);
        assert_true(grid_in_parts(&g));
        for (int p = parts - 1; p >= 0; p--) grid_count_part(&g, AGENTS, x, y, p); /* any order */
        grid_sum_parts(&g);
        memset(placed, 0xff, sizeof placed);
        for (int p = parts - 1; p >= 0; p--) { /* any order */
            uint32_t *cursor = grid_part_cursor(&g, p);
            for (size_t i = grid_part_begin(&g, AGENTS, p); i < grid_part_begin(&g, AGENTS, p + 1); i++)
                placed[cursor[g.cell_of[i]]++] = (uint32_t)i;
        }
        const size_t cells = (size_t)g.nx * (size_t)g.ny;
        assert_memory_equal(g.cell_start, whole.cell_start, (cells + 1) * sizeof *g.cell_start);
        assert_memory_equal(placed, whole.order, sizeof placed);
        grid_free(&g);
    }
    grid_free(&whole);
}

/* grid_bin gives a caller that moves the agents itself (the world's
 * re-sort) the places grid_build's order gives: agent i to
 * cursor[cell_of[i]]++. */
static void cursors_should_place_agents_where_the_order_puts_them(void **state)
{
    (void)state;
    enum { AGENTS = 3000 };
    static float x[AGENTS], y[AGENTS];
    static uint32_t placed[AGENTS];
    prng_t rng;
    prng_seed(&rng, 9, 1);
    for (int i = 0; i < AGENTS; i++) x[i] = prng_range(&rng, 0.0f, 300.0f), y[i] = prng_range(&rng, 0.0f, 200.0f);
    grid_t whole;
    grid_init(&whole);
    assert_int_equal(grid_configure(&whole, 300, 200, 10), 0);
    assert_int_equal(grid_reserve(&whole, AGENTS), 0);
    grid_build(&whole, AGENTS, x, y);
    grid_t g;
    grid_init(&g);
    assert_int_equal(grid_configure(&g, 300, 200, 10), 0);
    assert_int_equal(grid_reserve(&g, AGENTS), 0);
    grid_bin(&g, AGENTS, x, y);
    memset(placed, 0xff, sizeof placed);
    for (uint32_t i = 0; i < AGENTS; i++) placed[g.cursor[g.cell_of[i]]++] = i;
    assert_memory_equal(placed, whole.order, sizeof placed);
    const size_t cells = (size_t)g.nx * (size_t)g.ny;
    assert_memory_equal(g.cell_start, whole.cell_start, (cells + 1) * sizeof *g.cell_start);
    grid_free(&g);
    grid_free(&whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cursors_should_place_agents_where_the_order_puts_them),
        cmocka_unit_test(a_build_in_parts_should_equal_the_whole_build),
        cmocka_unit_test(grid_should_find_every_neighbour_across_cell_edges),
        cmocka_unit_test(grid_should_find_neighbours_across_the_border_when_wrapping),
        cmocka_unit_test(grid_should_count_each_neighbour_once_when_the_world_is_two_cells_wide),
        cmocka_unit_test(counting_sort_should_group_agents_by_cell_keeping_their_order),
        cmocka_unit_test(cells_should_never_be_smaller_than_asked),
        cmocka_unit_test(grid_should_bound_its_cell_count_for_tiny_cells),
        cmocka_unit_test(positions_outside_the_world_should_clamp_to_edge_cells),
        cmocka_unit_test(a_block_sample_should_take_a_fair_share_of_each_cell_and_know_where_each_agent_is),
        cmocka_unit_test(a_crowded_cell_should_be_sampled_alike_over_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

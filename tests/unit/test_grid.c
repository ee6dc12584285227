#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_should_find_every_neighbour_across_cell_edges),
        cmocka_unit_test(grid_should_find_neighbours_across_the_border_when_wrapping),
        cmocka_unit_test(grid_should_count_each_neighbour_once_when_the_world_is_two_cells_wide),
        cmocka_unit_test(counting_sort_should_group_agents_by_cell_keeping_their_order),
        cmocka_unit_test(cells_should_never_be_smaller_than_asked),
        cmocka_unit_test(grid_should_bound_its_cell_count_for_tiny_cells),
        cmocka_unit_test(positions_outside_the_world_should_clamp_to_edge_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

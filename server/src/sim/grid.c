#include "sim/grid.h"

#include "sim/prng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void grid_init(grid_t *g) { memset(g, 0, sizeof *g); }

void grid_free(grid_t *g)
{
    free(g->cell_start);
    free(g->cursor);
    free(g->cell_of);
    free(g->order);
    free(g->part_counts);
    grid_init(g);
}

static int size_part_counts(grid_t *g);

static int axis_cells(float extent, float min_cell)
{
    double n = floor((double)extent / (double)min_cell);
    return n < 1 ? 1 : (n > 65536 ? 65536 : (int)n);
}

int grid_configure(grid_t *g, float width, float height, float min_cell)
{
    int nx = axis_cells(width, min_cell), ny = axis_cells(height, min_cell);
    while ((size_t)nx * (size_t)ny > GRID_MAX_CELLS) {
        nx = nx > 1 ? nx / 2 : 1;
        ny = ny > 1 ? ny / 2 : 1;
    }
    size_t cells = (size_t)nx * (size_t)ny;
    if (cells > g->cells_cap) {
        uint32_t *start = realloc(g->cell_start, (cells + 1) * sizeof *start);
        if (!start) return -1;
        g->cell_start = start;
        uint32_t *cursor = realloc(g->cursor, cells * sizeof *cursor);
        if (!cursor) return -1;
        g->cursor = cursor;
        g->cells_cap = cells;
    }
    g->width = width;
    g->height = height;
    g->nx = nx;
    g->ny = ny;
    g->inv_cell_w = (float)nx / width;
    g->inv_cell_h = (float)ny / height;
    return size_part_counts(g);
}

/* Room for parts × cells counts, or none (whole builds) past the bound. */
static int size_part_counts(grid_t *g)
{
    const size_t want = (size_t)g->parts * (size_t)g->nx * (size_t)g->ny;
    if (g->parts <= 1 || want > GRID_MAX_PART_COUNTS) return 0;
    if (want <= g->part_counts_cap) return 0;
    uint32_t *counts = realloc(g->part_counts, want * sizeof *counts);
    if (!counts) return -1;
    g->part_counts = counts;
    g->part_counts_cap = want;
    return 0;
}

int grid_set_parts(grid_t *g, int parts)
{
    g->parts = parts;
    return size_part_counts(g);
}

bool grid_in_parts(const grid_t *g)
{
    return g->parts > 1 && g->part_counts && (size_t)g->parts * (size_t)g->nx * (size_t)g->ny <= g->part_counts_cap;
}

int grid_reserve(grid_t *g, size_t n)
{
    if (n <= g->agents_cap) return 0;
    uint32_t *cell_of = realloc(g->cell_of, n * sizeof *cell_of);
    if (!cell_of) return -1;
    g->cell_of = cell_of;
    uint32_t *order = realloc(g->order, n * sizeof *order);
    if (!order) return -1;
    g->order = order;
    g->agents_cap = n;
    return 0;
}

void grid_bin(grid_t *g, size_t n, const float *restrict x, const float *restrict y)
{
    /* Locals, so that the stores below cannot be taken for changes to the
     * grid's fields (an int and a uint32_t may alias). */
    const size_t cells = (size_t)g->nx * (size_t)g->ny;
    uint32_t *restrict cursor = g->cursor, *restrict cell_of = g->cell_of, *restrict start = g->cell_start;
    const grid_t shape = *g;
    memset(cursor, 0, cells * sizeof *cursor);
    for (size_t i = 0; i < n; i++) {
        uint32_t c = (uint32_t)(grid_cell_y(&shape, y[i]) * shape.nx + grid_cell_x(&shape, x[i]));
        cell_of[i] = c;
        cursor[c]++;
    }
    uint32_t sum = 0;
    for (size_t c = 0; c < cells; c++) {
        uint32_t count = cursor[c];
        start[c] = sum;
        cursor[c] = sum;
        sum += count;
    }
    start[cells] = sum;
}

void grid_build(grid_t *g, size_t n, const float *restrict x, const float *restrict y)
{
    grid_bin(g, n, x, y);
    uint32_t *restrict cursor = g->cursor, *restrict order = g->order;
    const uint32_t *restrict cell_of = g->cell_of;
    /* Stable: agents keep their relative order within a cell, so the same
     * input always gives the same permutation. */
    for (size_t i = 0; i < n; i++) order[cursor[cell_of[i]]++] = (uint32_t)i;
}

uint32_t *grid_part_cursor(grid_t *g, int part)
{
    return g->part_counts + (size_t)part * (size_t)g->nx * (size_t)g->ny;
}

size_t grid_part_begin(const grid_t *g, size_t n, int part) { return n * (size_t)part / (size_t)g->parts; }

void grid_count_part(grid_t *g, size_t n, const float *restrict x, const float *restrict y, int part)
{
    const size_t cells = (size_t)g->nx * (size_t)g->ny;
    uint32_t *restrict counts = g->part_counts + (size_t)part * cells, *restrict cell_of = g->cell_of;
    const grid_t shape = *g;
    memset(counts, 0, cells * sizeof *counts);
    for (size_t i = grid_part_begin(g, n, part), end = grid_part_begin(g, n, part + 1); i < end; i++) {
        uint32_t c = (uint32_t)(grid_cell_y(&shape, y[i]) * shape.nx + grid_cell_x(&shape, x[i]));
        cell_of[i] = c;
        counts[c]++;
    }
}

void grid_sum_parts(grid_t *g)
{
    const size_t cells = (size_t)g->nx * (size_t)g->ny;
    uint32_t *restrict start = g->cell_start, *restrict counts = g->part_counts;
    uint32_t sum = 0;
    for (size_t c = 0; c < cells; c++) {
        start[c] = sum;
        for (int p = 0; p < g->parts; p++) { /* each part's count becomes its cursor */
            const uint32_t count = counts[(size_t)p * cells + c];
            counts[(size_t)p * cells + c] = sum;
            sum += count;
        }
    }
    start[cells] = sum;
}

int grid_block(const grid_t *g, int cx, int cy, bool wrap, uint32_t cells[9])
{
    int xs[3], ys[3], nxs = 0, nys = 0;
    for (int d = -1; d <= 1; d++) {
        int x = cx + d;
        if (x < 0 || x >= g->nx) {
            if (!wrap) continue;
            x = (x + g->nx) % g->nx;
        }
        bool seen = false;
        for (int k = 0; k < nxs; k++) seen |= xs[k] == x;
        if (!seen) xs[nxs++] = x;
    }
    for (int d = -1; d <= 1; d++) {
        int y = cy + d;
        if (y < 0 || y >= g->ny) {
            if (!wrap) continue;
            y = (y + g->ny) % g->ny;
        }
        bool seen = false;
        for (int k = 0; k < nys; k++) seen |= ys[k] == y;
        if (!seen) ys[nys++] = y;
    }
    int count = 0;
    for (int j = 0; j < nys; j++)
        for (int i = 0; i < nxs; i++) cells[count++] = (uint32_t)(ys[j] * g->nx + xs[i]);
    return count;
}

int grid_runs(const grid_t *g, int cx, int cy, bool wrap, grid_run_t runs[GRID_MAX_RUNS], bool *pair_wrap)
{
    const uint32_t *start = g->cell_start;
    int count = 0;
    if (cx > 0 && cy > 0 && cx < g->nx - 1 && cy < g->ny - 1) { /* inside: three plain rows */
        *pair_wrap = false;
        for (int row = cy - 1; row <= cy + 1; row++) {
            const uint32_t *row_start = start + (size_t)row * (size_t)g->nx;
            const uint32_t begin = row_start[cx - 1], end = row_start[cx + 2];
            if (begin < end) runs[count++] = (grid_run_t){begin, end, 0.0f, 0.0f};
        }
        return count;
    }
    *pair_wrap = wrap && (g->nx < 3 || g->ny < 3);
    if (*pair_wrap) {
        uint32_t cells[9];
        int n = grid_block(g, cx, cy, wrap, cells);
        for (int k = 0; k < n; k++)
            if (start[cells[k]] < start[cells[k] + 1])
                runs[count++] = (grid_run_t){start[cells[k]], start[cells[k] + 1], 0.0f, 0.0f};
        return count;
    }
    for (int dy = -1; dy <= 1; dy++) {
        int row = cy + dy;
        float shift_y = 0.0f;
        if (row < 0 || row >= g->ny) {
            if (!wrap) continue;
            shift_y = row < 0 ? -g->height : g->height;
            row = row < 0 ? g->ny - 1 : 0;
        }
        const uint32_t *row_start = start + (size_t)row * (size_t)g->nx;
        int x0 = cx - 1, x1 = cx + 1; /* inclusive */
        if (x0 < 0) {
            if (wrap) runs[count++] = (grid_run_t){row_start[g->nx - 1], row_start[g->nx], -g->width, shift_y};
            x0 = 0;
        }
        bool right_wraps = x1 >= g->nx;
        if (right_wraps) x1 = g->nx - 1;
        runs[count++] = (grid_run_t){row_start[x0], row_start[x1 + 1], 0.0f, shift_y};
        if (right_wraps && wrap) runs[count++] = (grid_run_t){row_start[0], row_start[1], g->width, shift_y};
    }
    /* Drop empty runs: they cost a loop set-up each. */
    int kept = 0;
    for (int k = 0; k < count; k++)
        if (runs[k].begin < runs[k].end) runs[kept++] = runs[k];
    return kept;
}

/* The block around (cx, cy) cell by cell: each non-empty cell as a run
 * (with the shift grid_runs gives its row; none in its pair_wrap case) and
 * its index. Returns how many (at most 9). */
static int block_cells(const grid_t *g, int cx, int cy, bool wrap, grid_run_t runs[9], uint32_t cells[9])
{
    const uint32_t *start = g->cell_start;
    uint32_t ids[9];
    float shift_x[9] = {0}, shift_y[9] = {0};
    int n = 0;
    if (wrap && (g->nx < 3 || g->ny < 3)) { /* grid_runs' pair_wrap case: distinct cells, no shifts */
        n = grid_block(g, cx, cy, wrap, ids);
    } else {
        for (int dy = -1; dy <= 1; dy++) {
            int row = cy + dy;
            float sy = 0.0f;
            if (row < 0 || row >= g->ny) {
                if (!wrap) continue;
                sy = row < 0 ? -g->height : g->height;
                row = row < 0 ? g->ny - 1 : 0;
            }
            for (int dx = -1; dx <= 1; dx++) {
                int col = cx + dx;
                float sx = 0.0f;
                if (col < 0 || col >= g->nx) {
                    if (!wrap) continue;
                    sx = col < 0 ? -g->width : g->width;
                    col = col < 0 ? g->nx - 1 : 0;
                }
                ids[n] = (uint32_t)(row * g->nx + col);
                shift_x[n] = sx;
                shift_y[n] = sy;
                n++;
            }
        }
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
        if (start[ids[k]] == start[ids[k] + 1]) continue;
        runs[kept] = (grid_run_t){start[ids[k]], start[ids[k] + 1], shift_x[k], shift_y[k]};
        cells[kept++] = ids[k];
    }
    return kept;
}

/* The order of agents inside a cell is arbitrary (whatever order they
 * were in before the sort), so a contiguous slice is a fair sample, and a
 * slice is what the kernel copies fastest. Its start moves with the seed
 * (the kernel draws one per tick), so that over ticks every agent of a
 * crowded cell is seen alike, not always the same few. */
int grid_sample_block(const grid_t *g, int cx, int cy, bool wrap, uint32_t want, uint64_t seed, grid_run_t *runs,
                      grid_own_t *own, int *n_own)
{
    grid_run_t cells[9];
    uint32_t ids[9];
    const int n = block_cells(g, cx, cy, wrap, cells, ids);
    const uint32_t self = (uint32_t)(cy * g->nx + cx);
    uint64_t total = 0;
    for (int k = 0; k < n; k++) total += cells[k].end - cells[k].begin;
    if (want > total) want = (uint32_t)total;
    /* Cumulative rounding: cell k's share is what the running total of
     * proportional shares gains in whole agents at k, so the shares add
     * up to want exactly and each is within one of want·len/total (never
     * above len, since want ≤ total). */
    uint64_t before = 0;
    uint32_t taken = 0;
    int count = 0;
    *n_own = 0;
    for (int k = 0; k < n; k++) {
        const uint32_t begin = cells[k].begin, len = cells[k].end - begin;
        const uint32_t share = (uint32_t)((uint64_t)want * (before + len) / total - (uint64_t)want * before / total);
        before += len;
        if (!share) continue;
        const uint32_t first = (uint32_t)(prng_mix(seed ^ (ids[k] * 0x9e3779b97f4a7c15ull)) % len);
        const uint32_t head = share < len - first ? share : len - first; /* up to the cell's end, */
        const grid_run_t pieces[2] = {{begin + first, begin + first + head, cells[k].shift_x, cells[k].shift_y},
                                      {begin, begin + (share - head), cells[k].shift_x, cells[k].shift_y}};
        for (int p = 0; p < 2; p++) { /* then on from its start */
            if (pieces[p].begin == pieces[p].end) continue;
            runs[count++] = pieces[p];
            if (ids[k] == self) own[(*n_own)++] = (grid_own_t){pieces[p].begin, pieces[p].end, taken};
            taken += pieces[p].end - pieces[p].begin;
        }
    }
    return count;
}

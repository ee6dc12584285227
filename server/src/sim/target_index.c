#include "sim/target_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/motion.h"

int target_index_init(target_index_t *t, size_t max_targets)
{
    memset(t, 0, sizeof *t);
    t->xs = malloc((max_targets + 8) * sizeof *t->xs);
    t->ys = malloc((max_targets + 8) * sizeof *t->ys);
    if (!t->xs || !t->ys) {
        target_index_free(t);
        return -1;
    }
    t->cap = max_targets;
    if (max_targets < TARGET_INDEX_FROM) return 0; /* never binned: no cells */
    t->start = calloc(max_targets + 1, sizeof *t->start);
    t->entries = calloc(max_targets, sizeof *t->entries);
    t->outside = calloc(max_targets, sizeof *t->outside);
    if (!t->start || !t->entries || !t->outside) {
        target_index_free(t);
        return -1;
    }
    return 0;
}

void target_index_free(target_index_t *t)
{
    free(t->start);
    free(t->entries);
    free(t->outside);
    free(t->xs);
    free(t->ys);
    memset(t, 0, sizeof *t);
}

static bool inside(const target_index_t *t, float x, float y)
{
    return x >= 0.0f && x < t->width && y >= 0.0f && y < t->height; /* false for NaN too */
}

static int cell_x(const target_index_t *t, float x)
{
    int c = (int)(x * t->inv_w);
    return c < 0 ? 0 : (c >= t->nx ? t->nx - 1 : c);
}

static int cell_y(const target_index_t *t, float y)
{
    int c = (int)(y * t->inv_h);
    return c < 0 ? 0 : (c >= t->ny ? t->ny - 1 : c);
}

void target_index_build(target_index_t *t, const target_t *targets, size_t n, float width, float height, bool wrap)
{
    t->valid = false;
    t->builds++;
    t->places = n <= t->cap;
    if (t->places) {
        for (size_t k = 0; k < n; k++) t->xs[k] = targets[k].x, t->ys[k] = targets[k].y;
        for (size_t k = n; k < n + 8; k++) t->xs[k] = t->ys[k] = NAN; /* never nearest */
        t->n_places = n;
        t->box = true;
        t->min_x = t->min_y = INFINITY, t->max_x = t->max_y = -INFINITY;
        /* Compares, not fminf and fmaxf (library calls): the box is used
         * only when every place is finite, where both agree. */
        float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        bool finite = true;
        for (size_t k = 0; k < n; k++) {
            const float x = t->xs[k], y = t->ys[k];
            finite &= isfinite(x) && isfinite(y);
            x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
        }
        t->box = finite, t->min_x = x0, t->max_x = x1, t->min_y = y0, t->max_y = y1;
    }
    if (n < TARGET_INDEX_FROM || !t->start || n > t->cap || !(width > 0.0f) || !(height > 0.0f)) return;
    /* About one target per cell, the cells about square. */
    int nx = (int)lround(sqrt((double)n * (double)width / (double)height));
    nx = nx < 1 ? 1 : (nx > (int)n ? (int)n : nx);
    int ny = (int)(n / (size_t)nx);
    ny = ny < 1 ? 1 : ny;
    t->nx = nx, t->ny = ny, t->wrap = wrap;
    t->width = width, t->height = height;
    t->inv_w = (float)nx / width, t->inv_h = (float)ny / height;
    const double cw = (double)width / nx, ch = (double)height / ny;
    t->min_cell = cw < ch ? cw : ch;
    /* A point or target may be binned a rounding off its cell, and a
     * displacement's float operations are off by a few units in the last
     * place of the world's size: far more than both. */
    t->slack = 1e-3 * t->min_cell + 1e-5 * ((double)width + (double)height);

    const size_t cells = (size_t)nx * (size_t)ny;
    memset(t->start, 0, (cells + 1) * sizeof *t->start);
    t->n_outside = 0;
    for (size_t k = 0; k < n; k++)
        if (inside(t, targets[k].x, targets[k].y))
            t->start[(size_t)cell_y(t, targets[k].y) * (size_t)nx + (size_t)cell_x(t, targets[k].x) + 1]++;
    for (size_t c = 0; c < cells; c++) t->start[c + 1] += t->start[c];
    /* Fill in table order, so that each cell lists its targets ascending;
     * start[c] serves as the cursor and is restored after. */
    for (size_t k = 0; k < n; k++) {
        if (!inside(t, targets[k].x, targets[k].y)) {
            t->outside[t->n_outside++] = (uint32_t)k;
            continue;
        }
        const size_t c = (size_t)cell_y(t, targets[k].y) * (size_t)nx + (size_t)cell_x(t, targets[k].x);
        t->entries[t->start[c]++] = (uint32_t)k;
    }
    for (size_t c = cells; c > 0; c--) t->start[c] = t->start[c - 1];
    t->start[0] = 0;
    t->valid = true;
}

/* The best so far: the least squared distance, then the lowest index. */
typedef struct best {
    float d2, dx, dy;
    long k;
} best_t;

static inline void consider(const target_index_t *t, const target_t *targets, uint32_t k, float px, float py,
                            best_t *b)
{
    /* As motion_nearest_target's scan computes it, operation for operation. */
    float dx = targets[k].x - px, dy = targets[k].y - py;
    if (t->wrap) {
        dx = motion_wrap_delta(dx, t->width);
        dy = motion_wrap_delta(dy, t->height);
    }
    const float d2 = dx * dx + dy * dy;
    if (d2 < b->d2 || (d2 == b->d2 && b->k >= 0 && (long)k < b->k)) *b = (best_t){d2, dx, dy, (long)k};
}

static inline void visit_cell(const target_index_t *t, const target_t *targets, int col, int row, float px,
                              float py, best_t *b, size_t *seen)
{
    if (t->wrap) { /* a ring may reach past either edge, by several grids where one axis has few cells */
        while (col < 0) col += t->nx;
        while (col >= t->nx) col -= t->nx;
        while (row < 0) row += t->ny;
        while (row >= t->ny) row -= t->ny;
    } else if (col < 0 || col >= t->nx || row < 0 || row >= t->ny) {
        return;
    }
    const size_t c = (size_t)row * (size_t)t->nx + (size_t)col;
    *seen += TARGET_INDEX_CELL_COST + t->start[c + 1] - t->start[c]; /* the cell, then its targets */
    for (uint32_t e = t->start[c]; e < t->start[c + 1]; e++) consider(t, targets, t->entries[e], px, py, b);
}

long target_index_nearest(const target_index_t *t, const target_t *targets, float px, float py, float *dx,
                          float *dy, size_t *budget)
{
    best_t b = {INFINITY, 0.0f, 0.0f, -1};
    size_t seen = t->n_outside;
    for (size_t k = 0; k < t->n_outside; k++) consider(t, targets, t->outside[k], px, py, &b);
    const int cx = cell_x(t, px), cy = cell_y(t, py);
    const int rings = t->nx > t->ny ? t->nx : t->ny; /* by then every cell was seen */
    for (int r = 0; r <= rings; r++) {
        if (seen > *budget) {
            *budget = 0;
            return TARGET_INDEX_GAVE_UP;
        }
        /* Every target not yet seen lies in a cell r or more cells away
         * along some axis (the shorter way round when wrapping), so at
         * least r − 1 whole cells from the point. */
        if (b.k >= 0 && r >= 2) {
            const double reach = (double)(r - 1) * t->min_cell - t->slack;
            if (reach > 0.0 && reach * reach > (double)b.d2) break;
        }
        if (r == 0) {
            visit_cell(t, targets, cx, cy, px, py, &b, &seen);
            continue;
        }
        for (int col = cx - r; col <= cx + r; col++) { /* the ring's top and bottom rows */
            visit_cell(t, targets, col, cy - r, px, py, &b, &seen);
            visit_cell(t, targets, col, cy + r, px, py, &b, &seen);
        }
        for (int row = cy - r + 1; row <= cy + r - 1; row++) { /* and its sides */
            visit_cell(t, targets, cx - r, row, px, py, &b, &seen);
            visit_cell(t, targets, cx + r, row, px, py, &b, &seen);
        }
    }
    if (seen > *budget) {
        *budget = 0;
        return TARGET_INDEX_GAVE_UP;
    }
    *budget -= seen;
    if (b.k >= 0) *dx = b.dx, *dy = b.dy;
    return b.k;
}

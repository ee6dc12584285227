#include "stream/count_grid.h"

#include <string.h>

#include "sim/clones.h"

void count_grid_begin(count_grid_t *g, uint32_t wq, uint32_t hq)
{
    memset(g->cells, 0, sizeof g->cells);
    g->wq = wq;
    g->hq = hq;
}

/* Items a block at a time: a fixed count, so that the compiler vectorizes
 * the cells' computation. */
#define CENSUS_BLOCK 64

/* wire2_scale_floor's operations, clamped to the last cell (qx < wq ≤
 * 2^31: its double taken through int32, as AVX2 converts signed lanes only). */
KERNEL_CLONES static void census_cells(const uint32_t *restrict qx, const uint32_t *restrict qy, uint32_t wq,
                                       uint32_t hq, uint32_t *restrict cell)
{
    const double side = COUNT_GRID_SIDE, w = (double)wq, h = (double)hq;
    for (int i = 0; i < CENSUS_BLOCK; i++) {
        uint32_t cx = (uint32_t)(int32_t)((double)(int32_t)qx[i] * side / w);
        uint32_t cy = (uint32_t)(int32_t)((double)(int32_t)qy[i] * side / h);
        cx = cx < COUNT_GRID_SIDE - 1 ? cx : COUNT_GRID_SIDE - 1;
        cy = cy < COUNT_GRID_SIDE - 1 ? cy : COUNT_GRID_SIDE - 1;
        cell[i] = cy * COUNT_GRID_SIDE + cx;
    }
}

void count_grid_add(count_grid_t *g, const uint32_t *qx, const uint32_t *qy, size_t n)
{
    if (!g->wq || !g->hq) return;
    uint32_t cell[CENSUS_BLOCK];
    for (size_t start = 0; start < n; start += CENSUS_BLOCK) {
        size_t count = n - start < CENSUS_BLOCK ? n - start : CENSUS_BLOCK;
        if (count == CENSUS_BLOCK) {
            census_cells(qx + start, qy + start, g->wq, g->hq, cell);
        } else {
            uint32_t tx[CENSUS_BLOCK] = {0}, ty[CENSUS_BLOCK] = {0};
            memcpy(tx, qx + start, count * sizeof *tx);
            memcpy(ty, qy + start, count * sizeof *ty);
            census_cells(tx, ty, g->wq, g->hq, cell);
        }
        for (size_t i = 0; i < count; i++) g->cells[cell[i]]++;
    }
}

void count_grid_build(count_grid_t *g, const wire2_world_t *q)
{
    count_grid_begin(g, q->wq, q->hq);
    if (!q->wq || !q->hq) return;
    for (size_t i = 0; i < q->n; i++) {
        uint32_t cx = wire2_scale_floor(q->agent[i].qx, COUNT_GRID_SIDE, q->wq);
        uint32_t cy = wire2_scale_floor(q->agent[i].qy, COUNT_GRID_SIDE, q->hq);
        if (cx >= COUNT_GRID_SIDE) cx = COUNT_GRID_SIDE - 1;
        if (cy >= COUNT_GRID_SIDE) cy = COUNT_GRID_SIDE - 1;
        g->cells[cy * COUNT_GRID_SIDE + cx]++;
    }
}

/* Length of [a0, a1) ∩ [b0, b1). */
static double overlap(double a0, double a1, double b0, double b1)
{
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

double count_grid_estimate(const count_grid_t *g, wire2_rect_t r)
{
    if (!g->wq || !g->hq) return 0;
    /* The rect in cell units. */
    double side = (double)(1u << r.level), scale = COUNT_GRID_SIDE / side;
    double x0 = r.x0 * scale, x1 = r.x1 * scale, y0 = r.y0 * scale, y1 = r.y1 * scale;
    double sum = 0;
    for (uint32_t cy = (uint32_t)y0; cy < COUNT_GRID_SIDE && cy < y1; cy++) {
        double fy = overlap(cy, cy + 1.0, y0, y1);
        for (uint32_t cx = (uint32_t)x0; cx < COUNT_GRID_SIDE && cx < x1; cx++)
            sum += g->cells[cy * COUNT_GRID_SIDE + cx] * fy * overlap(cx, cx + 1.0, x0, x1);
    }
    return sum;
}

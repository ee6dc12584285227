#include "stream/count_grid.h"

#include <string.h>

void count_grid_begin(count_grid_t *g, uint32_t wq, uint32_t hq)
{
    memset(g->cells, 0, sizeof g->cells);
    g->wq = wq;
    g->hq = hq;
}

void count_grid_add(count_grid_t *g, const uint32_t *qx, const uint32_t *qy, size_t n)
{
    if (!g->wq || !g->hq) return;
    for (size_t i = 0; i < n; i++) {
        uint32_t cx = wire2_scale_floor(qx[i], COUNT_GRID_SIDE, g->wq);
        uint32_t cy = wire2_scale_floor(qy[i], COUNT_GRID_SIDE, g->hq);
        if (cx >= COUNT_GRID_SIDE) cx = COUNT_GRID_SIDE - 1;
        if (cy >= COUNT_GRID_SIDE) cy = COUNT_GRID_SIDE - 1;
        g->cells[cy * COUNT_GRID_SIDE + cx]++;
    }
}

void count_grid_build(count_grid_t *g, const wire2_world_t *q)
{
    count_grid_begin(g, q->wq, q->hq);
    if (!q->wq || !q->hq) return;
    for (size_t i = 0; i < q->n; i++) count_grid_add(g, &q->agent[i].qx, &q->agent[i].qy, 1);
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

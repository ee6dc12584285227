#include "stream/lod_pass.h"

typedef struct pass {
    wire2_view_enc_t *const *lods;
    size_t n_lods;
    count_grid_t *grid;
} pass_t;

/* A block of agents into the census and into every view it meets. The copy
 * is in the simulation's order, by grid cell, so a block's agents lie close
 * together: with many small views (a crowd of viewers zoomed in on a large
 * world) each block goes to the few views its bounding box meets, not to
 * every view (256 one-tile views at a million agents: 480 ms a snapshot
 * without this test, docs/BENCHMARKS.md). */
static void add_block(void *user, const uint32_t *qx, const uint32_t *qy, const uint16_t *h, size_t n)
{
    const pass_t *p = user;
    count_grid_add(p->grid, qx, qy, n);
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (size_t k = 0; k < n; k++) {
        x0 = qx[k] < x0 ? qx[k] : x0, x1 = qx[k] > x1 ? qx[k] : x1;
        y0 = qy[k] < y0 ? qy[k] : y0, y1 = qy[k] > y1 ? qy[k] : y1;
    }
    for (size_t i = 0; i < p->n_lods; i++)
        if (p->lods[i] && wire2_view_enc_lod_meets(p->lods[i], x0, y0, x1, y1))
            wire2_view_enc_lod_add(p->lods[i], qx, qy, h, n);
}

int lod_pass(const snap_view_t *v, uint32_t seq, wire2_view_enc_t *const *lods, size_t n_lods, count_grid_t *grid,
             wire2_world_t *head)
{
    uint32_t wq = wire2_quanta_of(v->width), hq = wire2_quanta_of(v->height);
    count_grid_begin(grid, wq, hq);
    bool headings = false;
    for (size_t i = 0; i < n_lods; i++)
        /* A view that cannot begin adds nothing; its end reports it. */
        if (lods[i] && wire2_view_enc_lod_begin(lods[i], wq, hq) == 0) headings = true;
    pass_t p = {lods, n_lods, grid};
    int rc = wire2_world_blocks(head, v, seq, headings, add_block, &p);
    if (rc < 0) count_grid_begin(grid, 0, 0);
    return rc;
}

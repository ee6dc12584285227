#include "stream/lod_pass.h"

typedef struct pass {
    wire2_view_enc_t *const *lods;
    size_t n_lods;
    count_grid_t *grid;
} pass_t;

static void add_block(void *user, const uint32_t *qx, const uint32_t *qy, const uint16_t *h, size_t n)
{
    const pass_t *p = user;
    count_grid_add(p->grid, qx, qy, n);
    for (size_t i = 0; i < p->n_lods; i++)
        if (p->lods[i]) wire2_view_enc_lod_add(p->lods[i], qx, qy, h, n);
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

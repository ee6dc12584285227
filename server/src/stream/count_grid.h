/* count_grid: a coarse census of where the items are (COUNT_GRID_SIDE²
 * cells over the world), made by the encoder worker from each quantized
 * snapshot, so that the loop thread can estimate how many agents a viewport
 * would show (detail or LOD) without touching the world. */
#ifndef SWARMCAST_COUNT_GRID_H
#define SWARMCAST_COUNT_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"

#define COUNT_GRID_SIDE 32u

typedef struct count_grid {
    uint32_t wq, hq; /* world size in quanta; 0: no census yet */
    uint32_t cells[COUNT_GRID_SIDE * COUNT_GRID_SIDE];
} count_grid_t;

void count_grid_build(count_grid_t *g, const wire2_world_t *q);
/* The same census made a block at a time (counts: any order gives the
 * same cells): begin for a world of wq × hq quanta, then add the items. */
void count_grid_begin(count_grid_t *g, uint32_t wq, uint32_t hq);
void count_grid_add(count_grid_t *g, const uint32_t *qx, const uint32_t *qy, size_t n);
/* Items estimated in a tile rect: each cell counts by the share of its
 * area inside the rect (items assumed spread evenly within a cell). */
double count_grid_estimate(const count_grid_t *g, wire2_rect_t r);

#endif

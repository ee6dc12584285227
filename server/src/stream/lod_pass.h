/* lod_pass: a snapshot of a room with no detail view, in one sequential
 * pass over the snapshot's copy. A detail view needs the world by agent id
 * (its items are matched by id from one snapshot to the next) and the tile
 * index; a LOD view's cells and the census are integer sums over the
 * agents, the same bytes in any order. So a room whose views are all LOD
 * views (the default viewer of a large room) or that has no view at all
 * (no client) skips the scatter by id and the index: each block of agents
 * is quantized and added at once to the census and to every LOD view
 * its bounding box meets.
 * With no LOD view the headings are not quantized either (the census
 * needs positions only). docs/BENCHMARKS.md, "LOD-only rooms from the
 * snapshot copy". */
#ifndef SWARMCAST_LOD_PASS_H
#define SWARMCAST_LOD_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "stream/count_grid.h"

/* Begins every view of lods (LOD encoders; a NULL one is skipped), sums
 * them and the census from v, and fills head (wire2_world_blocks). The
 * caller then ends each view with wire2_view_enc_lod_end(lods[i], head, …),
 * which reports a view whose sums could not be begun (out of memory).
 * 0, or WIRE2_E_ARG for a world of more than WIRE2_MAX_COUNT items (no
 * census then: grid holds no cells). */
int lod_pass(const snap_view_t *v, uint32_t seq, wire2_view_enc_t *const *lods, size_t n_lods, count_grid_t *grid,
             wire2_world_t *head);

#endif

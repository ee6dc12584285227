/* target_index: the world's targets (one per client: hundreds) binned in a
 * coarse grid, so that an agent finds its nearest target by looking at the
 * few cells round it rather than at every target. Without it every agent
 * scanned the whole table every tick, and the population limit was costed
 * for 512 targets (issue 25).
 *
 * It answers exactly what a scan of the table answers: the same
 * displacement (the same float operations: target − point, then the
 * torus's shortest way when the border wraps) of the same target, the
 * first in table order among the equally near. The search widens ring by
 * ring of cells until no unseen cell can hold a target as near as the
 * best found; targets outside the world (where the rings' bound does not
 * hold) are always looked at. */
#ifndef SWARMCAST_TARGET_INDEX_H
#define SWARMCAST_TARGET_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct target; /* world.h */

/* Below this many targets a scan is as cheap as the rings: no index. */
#define TARGET_INDEX_FROM 16

typedef struct target_index {
    bool valid;           /* built for the current targets (during a step) */
    uint64_t builds;      /* how many times it was built: tells one build's look-ups from another's */
    bool wrap;
    int nx, ny;
    float width, height;
    float inv_w, inv_h;   /* cells per unit */
    double min_cell;      /* the narrower side of a cell */
    double slack;         /* what rounding may take off a distance */
    uint32_t *start;      /* nx·ny + 1: targets of cell c are entries[start[c] … start[c + 1]) */
    uint32_t *entries;    /* table indices, ascending within each cell */
    uint32_t *outside;    /* table indices of targets outside the world */
    size_t n_outside;
    size_t cap;           /* targets (and cells) there is room for */
    /* The targets' places side by side (padded with NaN to a whole vector),
     * for scans a vector at a time; n_places of them, valid with places. */
    float *xs, *ys;
    size_t n_places;
    bool places;
    /* The box round the places (box: all finite), to tell when no
     * displacement to them can wrap (motion_targets_wrap). */
    bool box;
    float min_x, max_x, min_y, max_y;
} target_index_t;

/* Room for up to max_targets targets. 0, or -1 when out of memory. */
int target_index_init(target_index_t *t, size_t max_targets);
void target_index_free(target_index_t *t);

/* Bins n targets of a width × height world; wrap: the border wraps.
 * Allocates nothing. Leaves the index invalid (callers scan) when there
 * are fewer than TARGET_INDEX_FROM; the places are copied whatever n. */
void target_index_build(target_index_t *t, const struct target *targets, size_t n, float width, float height,
                        bool wrap);

/* What a look-up counts for each cell it visits, in targets looked at. */
#define TARGET_INDEX_CELL_COST 4
/* What target_index_nearest returns when it gave up. */
#define TARGET_INDEX_GAVE_UP (-2)

/* The index in the table of the target nearest to (px, py) and, in *dx,
 * *dy, the displacement to it; −1 when there is none. Only for a valid
 * index and a point inside the world (callers scan otherwise).
 *
 * Targets all about as far from the point (a ring of them round a crowd)
 * leave the rings nothing to skip: it would look at all of them one by
 * one, dearer than a scan's vectors. So it gives up (TARGET_INDEX_GAVE_UP,
 * and the caller scans) once it has looked at more than *budget targets,
 * and takes what it looked at off *budget: a caller asking for several
 * points shares one budget among them. */
long target_index_nearest(const target_index_t *t, const struct target *targets, float px, float py, float *dx,
                          float *dy, size_t *budget);

/* Whether target_index_nearest may be asked about (px, py). */
static inline bool target_index_covers(const target_index_t *t, float px, float py)
{
    return t->valid && px >= 0.0f && px < t->width && py >= 0.0f && py < t->height;
}

#endif

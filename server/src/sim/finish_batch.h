/* finish_batch: the ends of up to LANES consecutive agents' steps, handed
 * to motion_finish_lanes together. A model that decides one agent at a
 * time (Olfati-Saber) writes its agent's new position
 * and velocity here instead of calling motion_finish: a batch of one
 * reloads the four values it just stored as vectors, which waits for the
 * stores to land (store forwarding fails), and that wait cost more than
 * the rest of the border. Each agent's result is the same either way
 * (motion_finish_lanes works lane by lane). */
#ifndef SWARMCAST_FINISH_BATCH_H
#define SWARMCAST_FINISH_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "sim/lanes.h"
#include "sim/motion.h"
#include "sim/world.h"

typedef struct finish_batch {
    size_t first; /* agents first … first + count − 1 */
    int count;
    float x[LANES], y[LANES], vx[LANES], vy[LANES];
    uint8_t flags[LANES];
} finish_batch_t;

/* Writes the batch's agents into w->next; the batch is then empty. */
static inline void finish_batch_flush(const world_t *w, finish_batch_t *b)
{
    if (b->count) motion_finish_lanes(w, b->first, b->count, b->x, b->y, b->vx, b->vy, b->flags);
    b->count = 0;
}

/* Agent i's new position, velocity and flags, as motion_finish takes them.
 * Agents come in order; one that does not follow the batch's last starts
 * a new batch. */
static inline void finish_batch_add(const world_t *w, finish_batch_t *b, size_t i, float x, float y, float vx, float vy,
                                    uint8_t flags)
{
    if (b->count && i != b->first + (size_t)b->count) finish_batch_flush(w, b);
    if (!b->count) b->first = i;
    const int k = b->count++;
    b->x[k] = x, b->y[k] = y, b->vx[k] = vx, b->vy[k] = vy, b->flags[k] = flags;
    if (b->count == LANES) finish_batch_flush(w, b);
}

#endif

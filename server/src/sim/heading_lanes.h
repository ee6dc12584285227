/* heading_lanes: the two ends of a constant-speed heading rule (the
 * unicycle's, Couzin's) for eight consecutive agents, one per vector lane:
 * where they are and which way they face, then the heading rotated by a
 * turn and the move at the agent's speed. Lane by lane the same IEEE
 * operations as one agent at a time. */
#ifndef SWARMCAST_HEADING_LANES_H
#define SWARMCAST_HEADING_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "sim/angles.h"
#include "sim/lanes.h"
#include "sim/motion.h"
#include "sim/world.h"

typedef struct heading_lanes {
    lanes_f px, py, vx, vy; /* position and velocity */
    lanes_f hx, hy;         /* unit heading; one at rest (only ever placed so) faces along x */
} heading_lanes_t;

/* Agents i0 … i0 + LANES − 1 of w->cur (lanes past the population read
 * the arrays' padding; their results are not stored). */
LANES_INLINE heading_lanes_t heading_lanes_load(const world_t *w, size_t i0)
{
    const agents_t *a = &w->cur;
    const lanes_f one = (lanes_f){0} + 1.0f;
    heading_lanes_t h = {.px = lanes_load(a->x + i0), .py = lanes_load(a->y + i0), .vx = lanes_load(a->vx + i0),
                         .vy = lanes_load(a->vy + i0)};
    const lanes_f v = lanes_sqrt(h.vx * h.vx + h.vy * h.vy);
    const lanes_i moving = v > 0.0f;
    h.hx = lanes_select(moving, h.vx / lanes_select(moving, v, one), one);
    h.hy = lanes_keep(moving, h.vy / lanes_select(moving, v, one));
    return h;
}

/* The first count agents' headings rotated by turn (radians), their
 * velocities speed along them and their moves written into w->next. */
LANES_INLINE void heading_lanes_turn(const world_t *w, const heading_lanes_t *h, size_t i0, int count, lanes_f turn,
                                     lanes_f speed, const uint8_t flags[LANES])
{
    lanes_f sin_t, cos_t;
    angle_sincos_lanes(turn, &sin_t, &cos_t);
    const lanes_f nvx = speed * (h->hx * cos_t - h->hy * sin_t), nvy = speed * (h->hx * sin_t + h->hy * cos_t);
    float x[LANES], y[LANES], vx[LANES], vy[LANES];
    lanes_store(x, h->px + nvx * w->dt);
    lanes_store(y, h->py + nvy * w->dt);
    lanes_store(vx, nvx);
    lanes_store(vy, nvy);
    motion_finish_lanes(w, i0, count, x, y, vx, vy, flags);
}

#endif

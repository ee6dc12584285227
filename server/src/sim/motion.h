/* motion: what every model does around its own rules — find the nearest
 * target, steer around obstacles ahead, keep agents out of obstacles, apply
 * the world's border and store the agent's new state. */
#ifndef SWARMCAST_MOTION_H
#define SWARMCAST_MOTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/lanes.h"
#include "sim/world.h"

typedef struct {
    float x, y;
} vec2;

/* Shortest displacement on a torus of the given extent. */
static inline float motion_wrap_delta(float d, float extent)
{
    if (d > 0.5f * extent) return d - extent;
    if (d < -0.5f * extent) return d + extent;
    return d;
}

/* The squared distance from (px, py) to eight places (x, y), and the
 * displacement to each in *dx, *dy: the shortest way round when the world
 * wraps (motion_wrap_delta, lane by lane). */
LANES_INLINE lanes_f motion_d2_lanes_wrapping(const world_t *w, bool wrap, lanes_f x, lanes_f y, lanes_f px,
                                              lanes_f py, lanes_f *dx, lanes_f *dy)
{
    *dx = x - px, *dy = y - py;
    if (wrap) {
        const lanes_f W = (lanes_f){0} + w->width, H = (lanes_f){0} + w->height;
        *dx = lanes_select(*dx > 0.5f * W, *dx - W, lanes_select(*dx < -0.5f * W, *dx + W, *dx));
        *dy = lanes_select(*dy > 0.5f * H, *dy - H, lanes_select(*dy < -0.5f * H, *dy + H, *dy));
    }
    return *dx * *dx + *dy * *dy;
}

LANES_INLINE lanes_f motion_d2_lanes(const world_t *w, lanes_f x, lanes_f y, lanes_f px, lanes_f py, lanes_f *dx,
                                     lanes_f *dy)
{
    return motion_d2_lanes_wrapping(w, w->params.border == BORDER_WRAP, x, y, px, py, dx, dy);
}

/* Whether a displacement from a point in [x0, x1] × [y0, y1] to a target
 * may take the wrapped way (false: the plain difference is already the
 * shortest, bit for bit, for every target), by the box round the targets'
 * places during a step. */
static inline bool motion_targets_wrap(const world_t *w, float x0, float x1, float y0, float y1)
{
    const target_index_t *t = &w->target_index;
    if (w->params.border != BORDER_WRAP) return false;
    if (!t->places || !t->box) return true;
    /* A difference is monotone in each operand, rounding included. */
    return !(t->max_x - x0 <= 0.5f * w->width && t->min_x - x1 >= -0.5f * w->width &&
             t->max_y - y0 <= 0.5f * w->height && t->min_y - y1 >= -0.5f * w->height);
}

/* Copies the obstacles' places for the lane-wise looks at them (world.h's
 * step_places_t), valid until w->places.valid is cleared: the
 * world does at the start of a step, and clears it at the end (commands
 * between steps move obstacles). The answers are the same either way. */
void motion_copy_places(world_t *w);

/* Displacement from (x, y) to the nearest target; NULL if there is none. */
const target_t *motion_nearest_target(const world_t *w, float x, float y, vec2 *delta);

/* motion_nearest_target for points 0 … count − 1 of the arrays (count ≤
 * LANES), eight at a time: found[k] is −1 where point k has a nearest
 * target, (tx[k], ty[k]) the displacement to it (the same bits); 0 and
 * (0, 0) where none and in the lanes from count on. */
void motion_nearest_target_agents(const world_t *w, int count, const float x[LANES], const float y[LANES],
                                  float tx[LANES], float ty[LANES], int32_t found[LANES]);
/* The same, with which[k] the index of point k's nearest target in
 * w->targets (the one motion_nearest_target returns), −1 where none. */
void motion_nearest_target_index_agents(const world_t *w, int count, const float x[LANES], const float y[LANES],
                                        float tx[LANES], float ty[LANES], int32_t which[LANES]);

/* Look-ahead avoidance (Reynolds 1999): of the obstacles whose buffered
 * circle the straight path enters within the look-ahead, the nearest hit
 * gives a steer of length max_force across the heading, to the side the
 * circle's normal at the would-be intersection points (straight out when
 * already inside the buffer). False when nothing is in the way. */
bool motion_avoid(const world_t *w, float x, float y, float vx, float vy, vec2 *steer);

/* motion_avoid for agents 0 … count − 1 of the arrays (count ≤ LANES):
 * steers[k] is −1 where agent k's answer is true, with its steer in
 * (sx[k], sy[k]); 0 and (0, 0) where false and in the lanes from count on.
 * During a step, eight agents at a time (the same bits as one by one). */
void motion_avoid_agents(const world_t *w, int count, const float x[LANES], const float y[LANES],
                         const float vx[LANES], const float vy[LANES], float sx[LANES], float sy[LANES],
                         int32_t steers[LANES]);

/* Evasion (Reynolds' flee from a predicted position): the direction away
 * from every predator within fear_radius, each taken where it will be when
 * it could arrive, nearer ones counting more. False when none is near. */
bool motion_evade(const world_t *w, float x, float y, vec2 *away);

/* motion_evade for agents 0 … count − 1 of the arrays (count ≤ LANES):
 * fled[k] is −1 where agent k's answer is true, (ax[k], ay[k]) its
 * direction away as motion_evade gives it; 0 in the lanes from count on.
 * During a step, eight agents at a time (the same bits as one by one). */
void motion_evade_agents(const world_t *w, int count, const float x[LANES], const float y[LANES], float ax[LANES],
                         float ay[LANES], int32_t fled[LANES]);

/* Wander: moves agent id's point on its wander circle (the angle drifts by
 * at most wander_jitter·dt, drawn per agent and steer; ·√k dt with
 * staggered steering, world_steer_drift_dt) and returns the
 * displacement from the agent to that point: wander_distance ahead along the
 * heading, then wander_radius toward the point's angle. Updates only the
 * agent's own entry. */
vec2 motion_wander(const world_t *w, uint32_t id, float vx, float vy);
/* motion_wander for the agents ids[k] of the lanes k < count with
 * wanders[k] set (their points moved, their directions in dx, dy; the
 * other lanes untouched), the same bits: the draws, the angles and the
 * direction side by side, libm's atan2f, cosf and sinf lane by lane. */
void motion_wander_agents(const world_t *w, int count, const uint32_t ids[LANES], const float vx[LANES],
                          const float vy[LANES], const int32_t wanders[LANES], float dx[LANES], float dy[LANES]);

/* Ends agent i's step from its new position and velocity: out of any
 * obstacle it ended inside, through the border, into w->next. */
void motion_finish(const world_t *w, size_t i, float x, float y, float vx, float vy, uint8_t flags);

/* motion_finish for agents first … first + count − 1 (count ≤ LANES), from
 * arrays of their new positions and velocities (LANES entries each, used
 * as scratch) and flags: the border and the stores a vector at a time. */
void motion_finish_lanes(const world_t *w, size_t first, int count, float x[LANES], float y[LANES], float vx[LANES],
                         float vy[LANES], const uint8_t flags[LANES]);

/* Staggered steering: agents [first, end) of w->cur, whose row does not
 * steer this tick, coast into w->next: the same velocity, p += v·dt, then
 * what motion_finish_lanes does to every agent's step (out of obstacles,
 * the border); each keeps its leader flag. Where nothing but a wrapping
 * or bouncing border applies (no obstacles), a vector at a time straight
 * into w->next, with no copies on the way. */
void motion_coast(const world_t *w, size_t first, size_t end);

#endif

/* escape: the push-out's second chance. motion.c pushes an agent that
 * ended a step inside an obstacle out along the ray from that obstacle's
 * centre, fast, in float, eight agents at a time; that way out can fail:
 * on a torus an obstacle wider than half the world covers the ray's exit
 * (the exit is inside another image of it), at a bounded world's edge the
 * exit lies over the edge (and the border puts the agent back in), and far
 * from the origin a float's step is coarser than the push's margin. The few
 * agents still inside after the push and the border escape here on their
 * turn (escape_turn), one at a time, in double: along the nearest of 17
 * ways out. */
#ifndef SWARMCAST_ESCAPE_H
#define SWARMCAST_ESCAPE_H

#include <stdbool.h>

#include "sim/world.h"

/* Ticks between an agent's turns to escape: an agent the push-out leaves
 * inside escapes only on ticks with (id + tick) mod ESCAPE_EVERY = 0
 * (escape_turn), so it is out within ESCAPE_EVERY ticks where there is
 * room, and an agent with no way out (obstacles covering the world) costs
 * a step 1/ESCAPE_EVERY of a whole escape budget a tick, not all of it.
 * The turn depends on the agent's id and the tick only: the same on any
 * number of threads, in a replay and after time travel, with no state of
 * its own. 32 by measurement: a step on a torus obstacles cover cost
 * 1.3 times main's with 32, 1.5 with 16 (docs/BENCHMARKS.md). */
#ifndef ESCAPE_EVERY
#define ESCAPE_EVERY 32
#endif

/* Whether the agent with this id may escape on the world's tick. */
static inline bool escape_turn(const world_t *w, uint32_t id)
{
    return ((uint64_t)id + w->tick) % ESCAPE_EVERY == 0;
}

/* Attempts escape_obstacle may take, each after the border: the last
 * one's result stands (where obstacles leave no room on any of its ways,
 * the agent stays where it is, inside). */
#define ESCAPE_ATTEMPTS 4

/* The compass directions escape_obstacle tries besides straight out. */
#define ESCAPE_WAYS 16

/* Obstacle tests (in double) one escape_obstacle may make, over all its
 * ways (a way tests every obstacle once per obstacle it crosses, and
 * those that are not tried for want of budget count as blocked). Where
 * obstacles cover the world every agent is inside every tick and every
 * way is blocked: this bounds what an escape costs (about 1.3 µs an
 * agent, 8 times a normal step's; ESCAPE_EVERY divides that by 32),
 * against a tenth of that for 32 tests that leave agents inside in worlds
 * of a dozen obstacles that have room. */
#ifndef ESCAPE_BUDGET
#define ESCAPE_BUDGET 128
#endif

/* When (*x, *y) is inside an obstacle (the measure of the metrics'
 * `penetrations`: the displacement from its centre, the shortest way round
 * on a torus, in float, shorter than its radius), moves it out along the
 * shortest of the straight ways that leave every obstacle they cross (and,
 * in a bounded world, end inside it): straight out from the first (in
 * table order) obstacle holding it, then ESCAPE_WAYS compass directions
 * (the axes, the diagonals, the rest; ties go to the first in this order)
 * while ESCAPE_BUDGET lasts, by a margin
 * widening with the attempt (1, 2, …), on a torus wrapped back into the
 * world; its velocity loses the part against that way. True when it moved
 * it. */
bool escape_obstacle(const world_t *w, float *x, float *y, float *vx, float *vy, int attempt);

#endif

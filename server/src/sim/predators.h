/* predators: a handful of hunters (the `predators` parameter), kept apart
 * from the flock's arrays and listed after the agents in snapshots. */
#ifndef SWARMCAST_PREDATORS_H
#define SWARMCAST_PREDATORS_H

#include "sim/world.h"

/* Matches the number of predators to the parameter (between steps). */
void predators_configure(world_t *w);

/* Moves every predator after the flock's step: each pursues the agent
 * nearest to it. Serial: there are at most SIM_MAX_PREDATORS. */
void predators_hunt(world_t *w);

/* The agent nearest to (x, y) within a few rings of grid cells (the
 * first in the scan's order among the equally near), or -1: the prey. The
 * grid is the one the step was sorted with; agents have moved a little
 * since, which is close enough for choosing prey. */
long predators_nearest_agent(const world_t *w, float x, float y);

#endif

/* inspect: one agent's view of the world, for a viewer who selected it —
 * which neighbours fall in each zone (separation, alignment, cohesion),
 * and what each rule asks of it. It re-derives what the step kernel senses
 * with plain scalar code over every agent, so that a viewer sees the model's
 * definition (zone radius, field of view, own species only), not the
 * kernel's shortcuts: in a crowd denser than max_candidates the kernel
 * senses a sample, and with delayed feedback it sees past positions; the
 * inspection shows the agents that are in the zones now. Reads the world
 * only; costs O(agents) per call, run a few times a second per selection. */
#ifndef SWARMCAST_INSPECT_H
#define SWARMCAST_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/world.h"

/* Neighbours listed per zone at most (the counts are exact). */
#define INSPECT_MAX_LISTED 64
/* An inspect point picks the nearest agent within this distance. */
#define INSPECT_PICK_RADIUS 20.0f

enum { INSPECT_SEP, INSPECT_ALI, INSPECT_COH, INSPECT_TARGET, INSPECT_RULES };

typedef struct inspect {
    uint32_t id;
    float x, y, vx, vy;
    uint8_t flags;
    int model;                 /* model_t */
    bool zoned;                /* Reynolds-like zones apply (reynolds, unicycle); else one range (olfati) */
    float radius[3], fov[3];   /* per zone: radius (u), field of view (deg) */
    size_t count[3];           /* neighbours in each zone */
    size_t listed[3];          /* … of which the first listed (≤ INSPECT_MAX_LISTED) */
    float pos[3][INSPECT_MAX_LISTED][2];
    bool has_steering;         /* reynolds: the rules' parts below */
    float steer[INSPECT_RULES][2]; /* each rule's part of this tick's acceleration (u/s²) */
    uint32_t steer_every;      /* staggered steering: the agents steer every steer_every ticks */
    uint32_t steers_in;        /* steps until this agent next senses and steers: 0 on the coming one */
} inspect_t;

/* The index (in w->cur) of the agent nearest to (x, y) within max_dist
 * (predators are not agents here), or -1. */
long inspect_pick(const world_t *w, float x, float y, float max_dist);
/* The index of the agent with this id, or -1 (it is gone). */
long inspect_find(const world_t *w, uint32_t id);
/* Fills out for agent index i (0 ≤ i < w->n). */
void inspect_agent(const world_t *w, size_t i, inspect_t *out);

#endif

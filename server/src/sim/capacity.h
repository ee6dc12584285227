/* capacity: how many agents a server takes when its operator does not say
 * (--max-agents): the smaller of
 *
 *  - an area bound, one agent per CAPACITY_AREA_PER_AGENT square units: the
 *    viewer draws an agent as a 10 x 5.5 u triangle (about 27 u²), so at
 *    one per 16 u² the agents already cover the world about twice over;
 *    more add no visible flock, only work and bandwidth (6 bytes per agent
 *    in every snapshot: 540 kB for 1600 x 900 u at this bound);
 *  - a time bound: the agents this machine (and build) steps within half a
 *    tick in the dearest case anyone can set up — a crowd in which every
 *    agent senses the largest sample (max_candidates 1024) with the dearest
 *    model and options — measured at start in a short calibration. The
 *    other half of the tick is for commands, snapshots, metrics and jitter.
 *
 * The calibration (capacity_measure) takes about 50-150 ms; what follows
 * from its figures (capacity_of) is plain arithmetic, so that a caller (or
 * a test) can ask for several world sizes, tick rates and thread counts. */
#ifndef SWARMCAST_CAPACITY_H
#define SWARMCAST_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>

#define CAPACITY_AREA_PER_AGENT 16.0
/* What each thread beyond the first is counted as: the re-sort's binning
 * runs on one thread, and the threads share caches and memory bandwidth. */
#define CAPACITY_THREAD_SHARE 0.8

/* One thread's cost of a step, in ns per agent. */
typedef struct capacity_costs {
    double worst_ns;          /* the dearest crowd */
    const char *worst_case;   /* which one (static text) */
    double worst_neighbours;  /* neighbours each agent sensed in it */
    double reynolds_ns;       /* the same crowd with Reynolds' default parameters */
    double normal_ns;         /* a flock of normal density (about ten neighbours), default parameters */
    int candidates;           /* max_candidates in the crowds: its largest value */
} capacity_costs_t;

typedef struct capacity {
    capacity_costs_t costs;
    float width, height;
    double tick_hz;
    int threads;
    size_t area_agents; /* the area bound */
    size_t time_agents; /* the time bound */
    size_t max_agents;  /* the smaller: the population limit */
} capacity_t;

/* Steps small calibration worlds (a saturated crowd per dearest case, a
 * normal flock) on the calling thread and fills costs. targets: how many
 * client targets the crowds steer by (every agent looks for the nearest;
 * pass the client limit). 0, or -1 when a world cannot be made. */
int capacity_measure(size_t targets, capacity_costs_t *costs);

/* The bounds that follow from costs for a world, tick rate and threads.
 * Never fewer agents for a larger world, more threads or a lower tick
 * rate; at least 1. */
void capacity_of(const capacity_costs_t *costs, float width, float height, double tick_hz, int threads,
                 capacity_t *out);

/* Both: measure, then the bounds. 0, or -1 when the calibration failed. */
int capacity_estimate(float width, float height, double tick_hz, int threads, size_t targets, capacity_t *out);

/* One line for the server's start-up message: "max agents 3,791 (time
 * bound; the area bound is 90,000): with max_candidates at 1024 a crowd
 * costs at worst 3,956 ns per agent-step (olfati3 with every option but
 * species), so 2 threads step 3,791 agents in half a 16.7 ms tick;
 * Reynolds' default crowd 686 ns, a normal flock 66 ns; area bound: one
 * agent per 16 u² of 1600 x 900 u". Returns what snprintf returns. */
int capacity_describe(const capacity_t *c, char *buf, size_t len);

#endif

/* capacity: how many agents a server takes when its operator does not say
 * (--max-agents): the smaller of
 *
 *  - an area bound, one agent per CAPACITY_AREA_PER_AGENT square units: the
 *    viewer draws an agent as a 10 x 5.5 u triangle (about 27 u²), so at
 *    one per 16 u² the agents already cover the world about twice over;
 *    more add no visible flock, only work and bandwidth (6 bytes per agent
 *    in every snapshot: 540 kB for 1600 x 900 u at this bound);
 *  - a time bound: the most agents N for which this machine (and build)
 *     - steps the dearest crowd anyone can set up within one period
 *       (CAPACITY_CROWD_SHARE): a crowd in which every agent senses the
 *       largest sample it may (max_candidates 1024, but in a population
 *       over 20,480 at most SIM_CANDIDATE_BUDGET / N, never below
 *       SIM_CANDIDATE_FLOOR: world.h) with the dearest model and options
 *       and every client's target round it. A tick of it then overruns
 *       by what else the tick does (commands, the snapshot's copy, metrics
 *       within their 5 %), which is far less than one period: no sequence
 *       of commands overruns a tick by more than one period (issue 25);
 *     - and steps a flock of normal density (about ten neighbours, the
 *       default parameters) within half a period (CAPACITY_NORMAL_SHARE),
 *       so that the ordinary world keeps half of every tick to spare.
 *    Both are measured at start in a short calibration: each figure the
 *    median of CAPACITY_ROUNDS rounds. The crowds are set up as the
 *    dearest commands can set them up (capacity_dress_crowd): the
 *    obstacles laid over the crowd, the predators in it, every client's
 *    target on a ring round it. swarmcast-bench --limit checks the result
 *    by stepping that many agents so set up on the bench's threads.
 *
 * The arithmetic (capacity_of), for a period P = 1 / tick_hz and threads
 * counted as f = 1 + CAPACITY_THREAD_SHARE·(threads − 1):
 *
 *    cap(N)   = min(1024, max(SIM_CANDIDATE_FLOOR, SIM_CANDIDATE_BUDGET / N))
 *    crowd(c) = the dearest crowd's ns per agent-step at c candidates: the
 *               straight line through its figures at SIM_CANDIDATE_FLOOR
 *               and at 1024 (the dearest case at each end: the line lies
 *               above every case in between, each being about linear in c)
 *    N fits  ⇔  N·crowd(cap(N)) ≤ CAPACITY_CROWD_SHARE·P·f
 *               and N·normal ≤ CAPACITY_NORMAL_SHARE·P·f
 *
 * N·crowd(cap(N)) grows with N, so the largest N that fits is found by
 * bisection. Past SIM_CANDIDATE_BUDGET / SIM_CANDIDATE_FLOOR = 40,960
 * agents every crowd costs its floor figure: at 60 Hz on two threads, the
 * limit reaches 50,000 when the dearest crowd at 128 candidates costs at
 * most 16.67 ms · 1.8 / 50,000 = 600 ns per agent-step on one thread.
 *
 * The calibration (capacity_measure) takes about 0.2-0.5 s; what follows
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
/* The share of a period the dearest crowd may take, and a normal flock. */
#define CAPACITY_CROWD_SHARE 1.0
#define CAPACITY_NORMAL_SHARE 0.5

/* The calibration's crowd cases (capacity.c). */
#define CAPACITY_CASES 5
/* Rounds of the calibration: each figure is the median of its rounds. */
#define CAPACITY_ROUNDS 5
/* The radius of the obstacles laid over a crowd (capacity_dress_crowd):
 * of 5, 10, 20, 40 and 100 u, the dearest (every agent inside them all). */
#define CAPACITY_OBSTACLE_RADIUS 20.0f

/* One case's figures, ns per agent-step on one thread. */
typedef struct capacity_case {
    const char *name; /* static text */
    double ns_max;    /* at max_candidates 1024 */
    double ns_floor;  /* at SIM_CANDIDATE_FLOOR */
} capacity_case_t;

/* One thread's cost of a step, in ns per agent. */
typedef struct capacity_costs {
    double worst_ns;          /* the dearest crowd at the largest sample (max_candidates 1024) */
    const char *worst_case;   /* which one (static text) */
    double worst_neighbours;  /* neighbours each agent sensed in it */
    double floor_ns;          /* the dearest crowd at SIM_CANDIDATE_FLOOR candidates */
    const char *floor_case;   /* which one */
    double floor_neighbours;
    double reynolds_ns;       /* the same crowd with Reynolds' default parameters */
    double normal_ns;         /* a flock of normal density (about ten neighbours), default parameters */
    int candidates;           /* max_candidates in the crowds: its largest value */
    capacity_case_t cases[CAPACITY_CASES]; /* every case's figures (the worst are above) */
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

struct world; /* world.h */

/* The calibration's crowds, for a check that steps one at a population of
 * its own (swarmcast-bench --limit): */
/* The name of crowd case k (0 … CAPACITY_CASES − 1), or NULL. */
const char *capacity_case_name(int crowd_case);
/* Sets w up as case k: its parameters, its obstacles over a crowd in the
 * side × side square centred on (cx, cy), and `targets` clients' targets on
 * a ring of 100 u round it. 0, or -1 when the world refuses one. */
int capacity_dress_crowd(struct world *w, int crowd_case, float cx, float cy, float side, size_t targets);
/* Puts every agent of w (and every predator) into that square, flying
 * every which way, the same for the same ids. */
void capacity_pack_crowd(struct world *w, float cx, float cy, float side);

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

/* One line for the server's start-up message: "max agents 62,876 (time
 * bound; the area bound is 90,000): the dearest crowd costs 1,580 ns per
 * agent-step at 1024 candidates (unicycle with every option) and 477 ns at
 * 128 (Reynolds with every option); 62,876 agents sense at most 128 each,
 * so 2 threads step them within a 16.7 ms period; Reynolds' default crowd
 * 649 ns, a normal flock 65 ns (within half a period); area bound: one
 * agent per 16 u² of 1600 x 900 u" (AVX2 kernels, issue 25).
 * Returns what snprintf returns. */
int capacity_describe(const capacity_t *c, char *buf, size_t len);

#endif

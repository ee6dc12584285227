/* world: the state of one simulation — agents in struct-of-arrays form,
 * obstacles, every client's target, the parameters, the tick and the PRNG.
 * A world is stepped with a fixed dt; the same seed and the same commands at
 * the same ticks give a bit-identical world. No I/O happens here. */
#ifndef SWARMCAST_WORLD_H
#define SWARMCAST_WORLD_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/grid.h"
#include "sim/neighbours.h"
#include "sim/params.h"
#include "sim/prng.h"
#include "sim/target_index.h"
#include "sim/workers.h"

#define SIM_MAX_OBSTACLES 64
#define SIM_OBSTACLE_MIN_RADIUS 1.0f
#define SIM_OBSTACLE_MAX_RADIUS 500.0f
#define SIM_OBSTACLE_MAX_SPEED 1000.0f
#define SIM_MAX_ADD_AGENTS 10000
#define SIM_SPAWN_RADIUS 50.0f

/* Agent flag bits, as they travel in the snapshot. */
#define AGENT_LEADER 0x01u
#define AGENT_PREDATOR 0x08u
#define AGENT_SPECIES_SHIFT 1
#define AGENT_SPECIES_MASK 0x06u

typedef struct obstacle {
    uint32_t id;
    float x, y, r;
    float vx, vy; /* moving obstacles bounce inside the world; 0 for static ones */
    uint32_t owner; /* client id of the visitor who made it (it goes when they leave); 0: nobody's, the
                       operator's, the scenario's or the state file's */
} obstacle_t;

/* The obstacles' and predators' places side by side, copied at the start
 * of a step for the lane-wise looks at every one of them (motion.c);
 * lanes past the count hold NaN, which no test passes. */
typedef struct places {
    float x[SIM_MAX_OBSTACLES], y[SIM_MAX_OBSTACLES], r[SIM_MAX_OBSTACLES];
    size_t n;
    float pred_x[SIM_MAX_PREDATORS], pred_y[SIM_MAX_PREDATORS], pred_vx[SIM_MAX_PREDATORS],
        pred_vy[SIM_MAX_PREDATORS];
    size_t n_predators;
    bool valid; /* during a step */
} step_places_t;

typedef struct target {
    uint32_t client_id;
    float x, y;
    float vx, vy;        /* estimated from its last moves (Olfati-Saber's p_r); 0 when still */
    uint64_t moved_tick; /* when it last moved */
} target_t;

typedef struct predator {
    float x, y, vx, vy;
} predator_t;

typedef struct world_config {
    float width, height;
    float dt;            /* seconds per tick */
    uint32_t seed;
    size_t agents;       /* initial population */
    size_t max_agents;
    size_t max_targets;  /* one per client */
    int threads;         /* threads that step the world (0 or 1: the caller alone) */
} world_config_t;

/* One agent population: parallel arrays, one entry per agent. */
typedef struct agents {
    float *x, *y, *vx, *vy;
    uint32_t *id;
    uint8_t *flags;
} agents_t;

typedef struct world {
    sim_params_t params;                           /* global, and species 0's */
    sim_params_t species_params[SIM_MAX_SPECIES]; /* each species' own ([0] mirrors params) */
    float width, height, dt;

    size_t n, cap, max_agents;
    agents_t cur;  /* the state; sorted by grid cell at the start of each step */
    agents_t next; /* written by the step, then swapped with cur */
    /* Optional per-agent arrays, present only while their feature is on
     * (keep them together and in this order: world.c walks them). */
    float *head_x, *head_y; /* unit headings of cur, for alignment by heading */
    float *radius_ali, *radius_coh; /* density-dependent perception: each agent's radii, by id */
    float *wander;          /* wander: each agent's angle on its wander circle, by id */
    float *history;         /* delayed feedback: frames of x, y, vx, vy by id, (cap + pad) each */
    size_t history_frames;  /* delay_ticks + 1; 0 when off */
    grid_t grid;
    float grid_cell; /* the radius the grid is configured for */

    obstacle_t obstacles[SIM_MAX_OBSTACLES];
    size_t n_obstacles;
    step_places_t places;
    uint32_t next_obstacle_id;

    target_t *targets; /* sorted by client_id */
    size_t n_targets, max_targets;
    target_index_t target_index; /* the targets by place, valid during a step (target_index.h) */
    float gamma_x, gamma_y; /* Olfati-Saber's virtual reference when no client has a target */
    predator_t predators[SIM_MAX_PREDATORS];
    size_t n_predators;

    workers_t *pool;     /* threads of a step; NULL when single-threaded */
    int threads;
    sense_scratch_t *scratch; /* the kernel's working spans, two per thread */
    uint64_t *task_pairs;     /* per task of a step: neighbour pairs seen */
    double mean_neighbours;   /* of the last step, over all agents (pairs sensed: with staggered steering only the rows that steered sensed) */
    size_t stepped_n;         /* agents the last step moved: next holds their state before it,
                                 at the same index (0 after a reset) */

    uint64_t tick;
    uint32_t seed;
    prng_t rng;
    bool paused;
} world_t;

/* What a viewer is told about a world: its size, limits and parameters. A
 * copy, so that it can be handed to another thread. */
typedef struct world_info {
    float width, height;
    size_t max_agents;
    sim_params_t params;
    sim_params_t species_params[SIM_MAX_SPECIES];
} world_info_t;

/* Frees one population's arrays and zeroes it. */
void agents_free(agents_t *a);
/* Copies the first n entries of every array of src into dst (both hold n). */
void agents_copy(agents_t *dst, const agents_t *src, size_t n);

int world_init(world_t *w, const world_config_t *cfg);
world_info_t world_info(const world_t *w);
void world_free(world_t *w);

/* Restart at tick 0 with n agents drawn from seed; obstacles are removed,
 * targets and parameters kept. */
int world_reset(world_t *w, uint32_t seed, size_t n);
/* Appends count agents (ids n … n+count−1) with random headings: scattered
 * within SIM_SPAWN_RADIUS of (x, y) when at_point, else over the world. */
int world_add_agents(world_t *w, size_t count, bool at_point, float x, float y);
/* Applies a parameter change, reconfiguring the grid if a radius grew. */
int world_set_param(world_t *w, size_t index, double value, char *msg, size_t msg_len);
/* Sets a parameter for one species only (0 … SIM_MAX_SPECIES − 1);
 * SIM_E_OUT_OF_RANGE, nothing changed, for a world-only parameter
 * (params_world_only), whatever the species. */
int world_set_species_param(world_t *w, int species, size_t index, double value, char *msg, size_t msg_len);

/* The parameters that govern an agent with these flags: its species'. */
static inline const sim_params_t *world_params_for(const world_t *w, uint8_t flags)
{
    unsigned s = (flags & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT;
    return s ? &w->species_params[s] : &w->params;
}

/* Staggered steering (steer_every, the world's value): how many ticks one
 * steer stands for, 1 when every agent steers every tick. */
static inline int world_steer_every(const world_t *w)
{
    const int k = w->params.steer_every;
    return k < 1 ? 1 : k > SIM_MAX_STEER_EVERY ? SIM_MAX_STEER_EVERY : k;
}

/* The time a steer's change of velocity (or heading, or any other rate a
 * rule applies once per steer) stands for: dt, or steer_every·dt when the
 * agents steer only every steer_every ticks, so that the rates per second
 * stay what the parameters say. The move is still v·dt every tick. At
 * steer_every 1 this is dt to the bit (a product by 1 is exact). */
static inline float world_steer_dt(const world_t *w) { return w->dt * (float)world_steer_every(w); }

/* What a random drift drawn once per steer is scaled by: dt·√steer_every.
 * A drift of independent draws (wandering's) spreads as the square root of
 * their number, so one draw standing for k ticks is √k ticks' worth: the
 * same spread per second as k draws of a tick each (k ticks' worth would
 * spread it √k times as fast). dt to the bit at steer_every 1. */
static inline float world_steer_drift_dt(const world_t *w)
{
    return w->dt * sqrtf((float)world_steer_every(w));
}

/* Grid row `row`'s turn among the steer_every rows of its block (rows
 * [b·k, b·k + k)): a permutation of 0 … k − 1 drawn from the block's
 * number, the same on every tick and thread. Not the row itself: with
 * turns (row + tick) mod k an agent crossing into the next row shifted its
 * turn by one, always the same way, so agents flying along y steered more
 * or less often by their direction, and an agent crossing m rows a tick
 * with m + 1 a multiple of k (one row a tick at k = 2, in cells of 5 u at
 * 300 u/s) never steered again, coasting straight on. Drawn turns shift
 * by a different amount at each crossing, either way alike. */
static inline uint32_t world_row_turn(uint32_t row, uint32_t k)
{
    uint64_t h = ((uint64_t)(row / k) + 1) * 0x9E3779B97F4A7C15ull; /* splitmix64's finish */
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    uint8_t turn[SIM_MAX_STEER_EVERY];
    for (uint32_t j = 0; j < k; j++) turn[j] = (uint8_t)j;
    for (uint32_t j = k - 1; j > 0; j--) { /* Fisher-Yates: 8! < 2^64 */
        const uint32_t other = (uint32_t)(h % (j + 1));
        h /= j + 1;
        const uint8_t t = turn[j];
        turn[j] = turn[other], turn[other] = t;
    }
    return turn[row % k];
}

/* How many steps from now the agents of grid row `row` next sense and
 * steer: 0 on the coming step (always at steer_every 1), up to
 * steer_every − 1. Rows take turns: a row steers when (turn + tick) mod
 * steer_every = 0, with its turn from world_row_turn, so each row steers
 * once every steer_every ticks and in each block of steer_every rows
 * exactly one row a tick (the work stays even from tick to tick). By the
 * cell, not the thread: the same agents whatever the split. */
static inline uint32_t world_row_steers_in(const world_t *w, uint32_t row)
{
    const uint32_t k = (uint32_t)world_steer_every(w);
    return k == 1 ? 0 : (k - (world_row_turn(row, k) + w->tick % k) % k) % k;
}

/* Whether the agents of grid row `row` sense and steer on this tick. */
static inline bool world_row_steers(const world_t *w, uint32_t row) { return world_row_steers_in(w, row) == 0; }

int world_set_target(world_t *w, uint32_t client_id, float x, float y);
void world_clear_target(world_t *w, uint32_t client_id);
/* Obstacles: 0, or SIM_E_LIMIT when SIM_MAX_OBSTACLES exist. Each gets a
 * fresh id (ids are not reused until a reset). */
int world_add_obstacle(world_t *w, float x, float y, float r, uint32_t *id_out);
/* An obstacle moving at (vx, vy), bouncing off the world's edges. */
int world_add_moving_obstacle(world_t *w, float x, float y, float r, float vx, float vy, uint32_t *id_out);
/* As world_add_moving_obstacle, owned by a client (0: nobody). */
int world_add_owned_obstacle(world_t *w, float x, float y, float r, float vx, float vy, uint32_t owner,
                             uint32_t *id_out);
/* The obstacle with this id, or NULL. */
const obstacle_t *world_find_obstacle(const world_t *w, uint32_t id);
/* How many obstacles this client owns (owner 0: how many are nobody's). */
size_t world_count_owned_obstacles(const world_t *w, uint32_t owner);
/* Removes every obstacle this client owns, keeping the others in order;
 * returns how many went. Owner 0 removes nothing: nobody's obstacles are
 * not anyone's to take away. */
size_t world_remove_owned_obstacles(world_t *w, uint32_t owner);
int world_remove_obstacle(world_t *w, uint32_t id);
/* Puts an obstacle somewhere else (a client drags it); its velocity stays. */
int world_move_obstacle(world_t *w, uint32_t id, float x, float y);

/* The recorded state (x, y, vx, vy blocks of cap + SENSE_LANES floats, by
 * agent id) of `ago` ticks before the current one; needs history. */
const float *world_history_frame(const world_t *w, uint64_t ago);

/* A kernel scratch span of the given capacity (zeroed). */
int scratch_init(sense_scratch_t *s, uint32_t cap);
void scratch_free(sense_scratch_t *s);

/* Bytes the world holds (agents, grid, scratch, tables), for reports. */
size_t world_memory_bytes(const world_t *w);

/* Call after writing agents' positions or velocities by hand (a scenario's
 * agent list): state derived from them, the delayed-feedback history,
 * starts again from the present. 0, or SIM_E_LIMIT when out of memory. */
int world_agents_placed(world_t *w);

/* One fixed time step: re-sort by cell, steer, integrate, apply borders. */
void world_step(world_t *w);

/* The work bound of a large crowd (issue 25). max_candidates bounds what
 * one agent senses; in a large population that alone would let a crowd
 * cost N·max_candidates pair tests, and the population limit is costed
 * for the dearest crowd anyone can set up. So all agents together sense at
 * most about SIM_CANDIDATE_BUDGET candidates a step: each at most
 * max_candidates, and at most SIM_CANDIDATE_BUDGET / N — but never fewer
 * than SIM_CANDIDATE_FLOOR, more than a flock of normal density holds in
 * its 3x3 block (about 34 at ten neighbours, the benchmark's flock), so a
 * normal flock is never sampled whatever its size. The budget is 20,480
 * agents at the default 256: below that nothing changes; 50,000 agents
 * sense at most 128 each. A constant, not a measurement, so that a world
 * steps alike on every machine. */
#define SIM_CANDIDATE_BUDGET 5242880u
#define SIM_CANDIDATE_FLOOR 128u

/* How many candidates each agent of w senses at most in its next step. */
uint32_t world_candidate_cap(const world_t *w);

/* The same for a population of n under max_candidates. */
uint32_t world_candidate_cap_of(size_t n, uint32_t max_candidates);

/* The smallest population whose step runs on the world's threads when the
 * last step saw this many neighbours per agent (fewer run on the calling
 * thread alone: waking the others would cost more than it saves). */
size_t world_parallel_from(double mean_neighbours);

/* Sensing, steering and integration of agents [agent_begin, agent_end)
 * of the cell-sorted state, into w->next, by the world's model (kernel.c).
 * Reads only w->cur, so agent ranges are independent (a range may start or
 * end inside a cell). scratch: two spans of the calling thread (one cell's
 * candidates are copied into one while the other's are sensed). Returns
 * the number of (agent, neighbour) pairs seen. */
uint64_t step_agents(world_t *w, uint32_t agent_begin, uint32_t agent_end, sense_scratch_t scratch[2]);

#endif

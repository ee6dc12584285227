#include "sim/capacity.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/params.h"
#include "sim/prng.h"
#include "sim/world.h"

/* The crowd: more agents than the largest sample, packed into 20 x 20 u
 * (a cell or four), so that every agent's block is over the cap. */
#define CROWD_AGENTS 1200
#define CROWD_SIDE 20.0f
#define CROWD_WORLD 400.0f
/* The normal flock: the benchmark's density, about ten neighbours within
 * 50 u (one agent per 654.5 u²). */
#define FLOCK_AGENTS 4096
#define FLOCK_AREA_PER_AGENT 654.5f
/* Steps before timing (caches, lazily touched memory), then timed ones. */
#define WARM_UP_STEPS 1
#define TIMED_STEPS 3

typedef struct setting {
    const char *name;
    double value;
} setting_t;

/* What a crowd is stepped with besides max_candidates at its largest.
 * "Every option" turns on what makes an agent's step dearer: species (the
 * candidates' kinds copied and tested), delayed positions (the history
 * read by id, pairs wrapped one by one), density-dependent radii, the
 * leader rule "front", fields of view that differ per zone (the generic
 * sensing loop), wander, the most predators, and (crowd_case_t.obstacles)
 * the most obstacles, all of which every agent looks at. */
typedef struct crowd_case {
    const char *name;
    setting_t settings[12]; /* up to the first without a name */
    bool obstacles;
} crowd_case_t;

#define EVERY_OPTION                                                                                         \
    {"species", SIM_MAX_SPECIES}, {"delay_ticks", SIM_MAX_DELAY_TICKS}, {"delay_mode", DELAY_POSITIONS},      \
        {"leader_rule", LEADER_FRONT}, {"fov_sep", 200}, {"fov_coh", 120}, {"predators", SIM_MAX_PREDATORS}

static const crowd_case_t crowd_cases[] = {
    {"Reynolds with default parameters", {{NULL, 0}}, false},
    {"Reynolds with every option", {EVERY_OPTION, {"density_radii", 1}, {"w_wander", 1}, {NULL, 0}}, true},
    {"unicycle with every option", {{"model", MODEL_UNICYCLE}, EVERY_OPTION, {NULL, 0}}, true},
    {"couzin with every option", {{"model", MODEL_COUZIN}, EVERY_OPTION, {NULL, 0}}, true},
    /* One species: its pairs' dear part (a cosine each) runs only for
     * neighbours of the agent's own kind. */
    {"olfati3 with every option but species",
     {{"model", MODEL_OLFATI3}, {"delay_ticks", SIM_MAX_DELAY_TICKS}, {"delay_mode", DELAY_POSITIONS},
      {"predators", SIM_MAX_PREDATORS}, {NULL, 0}},
     true},
};

/* CPU time of the calling thread: what the step costs, whatever else the
 * machine is doing meanwhile (the world steps on this thread alone). */
static double thread_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int set(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    return index >= 0 && world_set_param(w, (size_t)index, value, msg, sizeof msg) == SIM_OK ? 0 : -1;
}

/* Puts every agent back into the crowd (by id, whatever order the last
 * step sorted them into), flying every which way: each timed step starts
 * from the same saturated state. */
static void pack_crowd(world_t *w)
{
    const float x0 = 0.5f * (CROWD_WORLD - CROWD_SIDE);
    for (size_t i = 0; i < w->n; i++) {
        const uint32_t id = w->cur.id[i];
        const float heading = 6.28318531f * prng_hash_unit(1, 2, id, 0);
        const float speed = 50.0f + 100.0f * prng_hash_unit(1, 3, id, 0);
        w->cur.x[i] = x0 + CROWD_SIDE * prng_hash_unit(1, 0, id, 0);
        w->cur.y[i] = x0 + CROWD_SIDE * prng_hash_unit(1, 1, id, 0);
        w->cur.vx[i] = speed * cosf(heading);
        w->cur.vy[i] = speed * sinf(heading);
    }
    world_agents_placed(w);
}

/* Median ns per agent-step; prepare (may be NULL) runs before every step. */
static double time_steps(world_t *w, void (*prepare)(world_t *))
{
    double t[TIMED_STEPS];
    for (int s = 0; s < WARM_UP_STEPS + TIMED_STEPS; s++) {
        if (prepare) prepare(w);
        const double t0 = thread_ns();
        world_step(w);
        if (s >= WARM_UP_STEPS) t[s - WARM_UP_STEPS] = (thread_ns() - t0) / (double)w->n;
    }
    qsort(t, TIMED_STEPS, sizeof *t, by_value);
    return t[TIMED_STEPS / 2];
}

/* One crowd case at a sample of `candidates`: ns per agent-step and the
 * neighbours each sensed. */
static int time_crowd(const crowd_case_t *c, int candidates, size_t targets, double *ns, double *neighbours)
{
    world_config_t cfg = {.width = CROWD_WORLD, .height = CROWD_WORLD, .dt = 1.0f / 60.0f, .seed = 1,
                          .agents = CROWD_AGENTS, .max_agents = CROWD_AGENTS, .max_targets = targets, .threads = 1};
    world_t w;
    if (world_init(&w, &cfg)) return -1;
    int rc = set(&w, "max_candidates", candidates);
    for (const setting_t *s = c->settings; !rc && s->name; s++) rc = set(&w, s->name, s->value);
    const float centre = 0.5f * CROWD_WORLD;
    /* Obstacles on a ring round the crowd: looked at, never entered. */
    for (int k = 0; !rc && c->obstacles && k < SIM_MAX_OBSTACLES; k++) {
        const float a = 6.28318531f * (float)k / SIM_MAX_OBSTACLES;
        rc = world_add_obstacle(&w, centre + 150.0f * cosf(a), centre + 150.0f * sinf(a), 5.0f, NULL);
    }
    /* Every client's target round the crowd: every agent looks for the nearest. */
    for (size_t k = 0; !rc && k < targets; k++) {
        const float a = 6.28318531f * (float)k / (float)targets;
        rc = world_set_target(&w, (uint32_t)k + 1, centre + 100.0f * cosf(a), centre + 100.0f * sinf(a));
    }
    if (!rc) {
        *ns = time_steps(&w, pack_crowd);
        *neighbours = w.mean_neighbours;
    }
    world_free(&w);
    return rc ? -1 : 0;
}

static int time_flock(double *ns)
{
    const float side = sqrtf((float)FLOCK_AGENTS * FLOCK_AREA_PER_AGENT);
    world_config_t cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1,
                          .agents = FLOCK_AGENTS, .max_agents = FLOCK_AGENTS, .max_targets = 1, .threads = 1};
    world_t w;
    if (world_init(&w, &cfg)) return -1;
    *ns = time_steps(&w, NULL);
    world_free(&w);
    return 0;
}

int capacity_measure(size_t targets, capacity_costs_t *costs)
{
    *costs = (capacity_costs_t){.worst_case = crowd_cases[0].name, .floor_case = crowd_cases[0].name,
                                .candidates = SIM_MAX_CANDIDATES};
    /* The calibration crowd is small enough that the candidate budget
     * leaves it the sample it asks for (world.h). */
    _Static_assert(CROWD_AGENTS * SIM_MAX_CANDIDATES <= SIM_CANDIDATE_BUDGET, "the crowd must get its whole sample");
    _Static_assert(sizeof crowd_cases / sizeof crowd_cases[0] == CAPACITY_CASES, "every case has its figures");
    for (size_t c = 0; c < sizeof crowd_cases / sizeof crowd_cases[0]; c++) {
        double ns, neighbours;
        if (time_crowd(&crowd_cases[c], SIM_MAX_CANDIDATES, targets, &ns, &neighbours)) return -1;
        costs->cases[c].name = crowd_cases[c].name;
        costs->cases[c].ns_max = ns;
        if (c == 0) costs->reynolds_ns = ns;
        if (ns > costs->worst_ns) {
            costs->worst_ns = ns;
            costs->worst_case = crowd_cases[c].name;
            costs->worst_neighbours = neighbours;
        }
        if (time_crowd(&crowd_cases[c], SIM_CANDIDATE_FLOOR, targets, &ns, &neighbours)) return -1;
        costs->cases[c].ns_floor = ns;
        if (ns > costs->floor_ns) {
            costs->floor_ns = ns;
            costs->floor_case = crowd_cases[c].name;
            costs->floor_neighbours = neighbours;
        }
    }
    return time_flock(&costs->normal_ns);
}

/* x rounded down to a count, within [1, 1e12]. */
static size_t count_of(double x)
{
    if (!(x >= 1.0)) return 1;
    return x > 1e12 ? (size_t)1e12 : (size_t)x;
}

/* The dearest crowd's ns per agent-step at c candidates: the line through
 * its figures at the floor and at the largest sample (capacity.h). */
static double crowd_ns(const capacity_costs_t *costs, double c)
{
    const double lo = (double)SIM_CANDIDATE_FLOOR, hi = (double)SIM_MAX_CANDIDATES;
    const double at_lo = costs->floor_ns > 0.0 ? costs->floor_ns : costs->worst_ns;
    const double slope = (costs->worst_ns - at_lo) / (hi - lo);
    const double ns = at_lo + slope * (c - lo);
    return ns > 1e-3 ? ns : 1e-3;
}

/* Does a population of n fit a period of period_ns on f threads' worth? */
static bool fits(const capacity_costs_t *costs, double n, double period_ns, double f)
{
    const double cap = (double)world_candidate_cap_of(n < 1e12 ? (size_t)n : (size_t)1e12, SIM_MAX_CANDIDATES);
    return n * crowd_ns(costs, cap) <= CAPACITY_CROWD_SHARE * period_ns * f &&
           n * costs->normal_ns <= CAPACITY_NORMAL_SHARE * period_ns * f;
}

/* The largest population that fits, by bisection (the work grows with n). */
static double largest_fitting(const capacity_costs_t *costs, double period_ns, double f)
{
    double lo = 1.0, hi = 1e12;
    if (!fits(costs, lo, period_ns, f)) return 1.0;
    if (fits(costs, hi, period_ns, f)) return hi;
    while (hi - lo > 0.5) {
        const double mid = floor(0.5 * (lo + hi));
        if (mid <= lo) break;
        if (fits(costs, mid, period_ns, f))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void capacity_of(const capacity_costs_t *costs, float width, float height, double tick_hz, int threads,
                 capacity_t *out)
{
    if (threads < 1) threads = 1;
    *out = (capacity_t){.costs = *costs, .width = width, .height = height, .tick_hz = tick_hz, .threads = threads};
    out->area_agents = count_of((double)width * (double)height / CAPACITY_AREA_PER_AGENT);
    /* One thread's bound, then all threads' — but a step runs on all
     * threads only from world_parallel_from agents on: if one thread
     * cannot step that many, fewer is the bound. The crowd with fewer
     * neighbours goes parallel later: that one decides. */
    const double period_ns = 1e9 / tick_hz;
    const double one = largest_fitting(costs, period_ns, 1.0);
    const double all = largest_fitting(costs, period_ns, 1.0 + CAPACITY_THREAD_SHARE * (double)(threads - 1));
    const double neighbours = costs->floor_neighbours > 0.0 && costs->floor_neighbours < costs->worst_neighbours
                                  ? costs->floor_neighbours
                                  : costs->worst_neighbours;
    const bool parallel = threads > 1 && one + 1.0 >= (double)world_parallel_from(neighbours);
    out->time_agents = count_of(parallel ? all : one);
    out->max_agents = out->time_agents < out->area_agents ? out->time_agents : out->area_agents;
}

int capacity_estimate(float width, float height, double tick_hz, int threads, size_t targets, capacity_t *out)
{
    capacity_costs_t costs;
    if (capacity_measure(targets, &costs)) return -1;
    capacity_of(&costs, width, height, tick_hz, threads, out);
    return 0;
}

/* v with thousands separators: 84000 → "84,000". */
static const char *grouped(size_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%zu", v), k = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

int capacity_describe(const capacity_t *c, char *buf, size_t len)
{
    char max[32], area[32], time_bound[32], worst[32], at_floor[32];
    const bool by_time = c->time_agents <= c->area_agents;
    const uint32_t cap = world_candidate_cap_of(c->time_agents, SIM_MAX_CANDIDATES);
    return snprintf(buf, len,
                    "max agents %s (%s bound; the %s bound is %s): the dearest crowd costs %s ns per agent-step at "
                    "%d candidates (%s) and %s ns at %u (%s); %s agents sense at most %u each, so %d thread%s "
                    "step them within a %.1f ms period; Reynolds' default crowd %.0f ns, a normal flock %.0f ns "
                    "(within half a period); area bound: one agent per %.0f u² of %.0f x %.0f u",
                    grouped(c->max_agents, max), by_time ? "time" : "area", by_time ? "area" : "time",
                    grouped(by_time ? c->area_agents : c->time_agents, area),
                    grouped(count_of(c->costs.worst_ns), worst), c->costs.candidates, c->costs.worst_case,
                    grouped(count_of(c->costs.floor_ns), at_floor), SIM_CANDIDATE_FLOOR, c->costs.floor_case,
                    grouped(c->time_agents, time_bound), cap, c->threads, c->threads == 1 ? "" : "s",
                    1e3 / c->tick_hz, c->costs.reynolds_ns, c->costs.normal_ns, CAPACITY_AREA_PER_AGENT,
                    (double)c->width, (double)c->height);
}

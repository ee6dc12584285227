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
/* The calibration is CAPACITY_ROUNDS rounds; each round steps every case
 * once (after one step to warm its world up), and each figure is the
 * median of its rounds: a burst of load on a shared machine, which
 * inflates even a thread's CPU time (caches, a sibling hyperthread, the
 * clock), falls on a round or two and is outvoted. One round alone once
 * gave 21,775 agents where others gave about 38,000 (issue 25). */
#define WARM_UP_STEPS 1

typedef struct setting {
    const char *name;
    double value;
} setting_t;

/* What a crowd is stepped with besides its sample of candidates. "Every
 * option" turns on what makes an agent's step dearer: species (the
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

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int set(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    return index >= 0 && world_set_param(w, (size_t)index, value, msg, sizeof msg) == SIM_OK ? 0 : -1;
}

void capacity_pack_crowd(world_t *w, float cx, float cy, float side)
{
    const float x0 = cx - 0.5f * side, y0 = cy - 0.5f * side;
    for (size_t i = 0; i < w->n; i++) {
        const uint32_t id = w->cur.id[i];
        const float heading = 6.28318531f * prng_hash_unit(1, 2, id, 0);
        const float speed = 50.0f + 100.0f * prng_hash_unit(1, 3, id, 0);
        w->cur.x[i] = x0 + side * prng_hash_unit(1, 0, id, 0);
        w->cur.y[i] = y0 + side * prng_hash_unit(1, 1, id, 0);
        w->cur.vx[i] = speed * cosf(heading);
        w->cur.vy[i] = speed * sinf(heading);
    }
    /* The predators (their number is a parameter; they appear at random)
     * in the crowd, spread over it: every agent flees every one. */
    for (size_t k = 0; k < w->n_predators; k++) {
        w->predators[k].x = x0 + side * ((float)(k % 4) + 0.5f) / 4.0f;
        w->predators[k].y = y0 + side * ((float)(k / 4 % 4) + 0.5f) / 4.0f;
    }
    world_agents_placed(w);
}

int capacity_dress_crowd(world_t *w, int crowd_case, float cx, float cy, float side, size_t targets)
{
    if (crowd_case < 0 || crowd_case >= CAPACITY_CASES) return -1;
    const crowd_case_t *c = &crowd_cases[crowd_case];
    int rc = 0;
    for (const setting_t *s = c->settings; !rc && s->name; s++) rc = set(w, s->name, s->value);
    /* The obstacles over the crowd, overlapping (an 8 x 8 lattice 1/8 of
     * the crowd's side apart, each of radius CAPACITY_OBSTACLE_RADIUS):
     * every agent is in the buffer of each, ends its step inside them and
     * is pushed out through all of them — the dearest place for them
     * (obstacles round the crowd, merely looked at, cost a third). */
    for (int k = 0; !rc && c->obstacles && k < SIM_MAX_OBSTACLES; k++) {
        const float gx = (float)(k % 8) + 0.5f, gy = (float)(k / 8 % 8) + 0.5f;
        rc = world_add_obstacle(w, cx - 0.5f * side + side * gx / 8.0f, cy - 0.5f * side + side * gy / 8.0f,
                                CAPACITY_OBSTACLE_RADIUS, NULL);
    }
    /* Every client's target on a ring round the crowd: every agent is
     * about as far from each, the target index's worst case. */
    for (size_t k = 0; !rc && k < targets; k++) {
        const float a = 6.28318531f * (float)k / (float)targets;
        rc = world_set_target(w, (uint32_t)k + 1, cx + 100.0f * cosf(a), cy + 100.0f * sinf(a));
    }
    return rc ? -1 : 0;
}

const char *capacity_case_name(int crowd_case)
{
    return crowd_case >= 0 && crowd_case < CAPACITY_CASES ? crowd_cases[crowd_case].name : NULL;
}

/* One world the calibration steps again and again. */
typedef struct timed_world {
    world_t w;
    bool live;
    bool crowd; /* repacked before every step */
    double ns[CAPACITY_ROUNDS];
} timed_world_t;

/* ns per agent-step of one step of tw (repacked first if a crowd). */
static double time_step(timed_world_t *tw)
{
    if (tw->crowd) capacity_pack_crowd(&tw->w, 0.5f * CROWD_WORLD, 0.5f * CROWD_WORLD, CROWD_SIDE);
    const double t0 = thread_ns();
    world_step(&tw->w);
    return (thread_ns() - t0) / (double)tw->w.n;
}

static int make_crowd(timed_world_t *tw, int crowd_case, int candidates, size_t targets)
{
    world_config_t cfg = {.width = CROWD_WORLD, .height = CROWD_WORLD, .dt = 1.0f / 60.0f, .seed = 1,
                          .agents = CROWD_AGENTS, .max_agents = CROWD_AGENTS, .max_targets = targets, .threads = 1};
    if (world_init(&tw->w, &cfg)) return -1;
    tw->live = tw->crowd = true;
    if (set(&tw->w, "max_candidates", candidates)) return -1;
    return capacity_dress_crowd(&tw->w, crowd_case, 0.5f * CROWD_WORLD, 0.5f * CROWD_WORLD, CROWD_SIDE, targets);
}

static int make_flock(timed_world_t *tw)
{
    const float side = sqrtf((float)FLOCK_AGENTS * FLOCK_AREA_PER_AGENT);
    world_config_t cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1,
                          .agents = FLOCK_AGENTS, .max_agents = FLOCK_AGENTS, .max_targets = 1, .threads = 1};
    if (world_init(&tw->w, &cfg)) return -1;
    tw->live = true;
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
    /* Each case at its largest sample and at the floor, then the flock. */
    enum { WORLDS = 2 * CAPACITY_CASES + 1 };
    static const int samples[2] = {SIM_MAX_CANDIDATES, SIM_CANDIDATE_FLOOR};
    timed_world_t *tw = calloc(WORLDS, sizeof *tw);
    if (!tw) return -1;
    int rc = 0;
    for (int k = 0; !rc && k < WORLDS; k++)
        rc = k < 2 * CAPACITY_CASES ? make_crowd(&tw[k], k / 2, samples[k % 2], targets) : make_flock(&tw[k]);
    for (int s = 0; !rc && s < WARM_UP_STEPS; s++)
        for (int k = 0; k < WORLDS; k++) time_step(&tw[k]);
    for (int r = 0; !rc && r < CAPACITY_ROUNDS; r++)
        for (int k = 0; k < WORLDS; k++) tw[k].ns[r] = time_step(&tw[k]);
    for (int k = 0; !rc && k < 2 * CAPACITY_CASES; k++) {
        const int c = k / 2;
        const double ns = median_of(tw[k].ns, CAPACITY_ROUNDS), neighbours = tw[k].w.mean_neighbours;
        costs->cases[c].name = crowd_cases[c].name;
        if (k % 2 == 0) {
            costs->cases[c].ns_max = ns;
            if (c == 0) costs->reynolds_ns = ns;
            if (ns > costs->worst_ns)
                costs->worst_ns = ns, costs->worst_case = crowd_cases[c].name, costs->worst_neighbours = neighbours;
        } else {
            costs->cases[c].ns_floor = ns;
            if (ns > costs->floor_ns)
                costs->floor_ns = ns, costs->floor_case = crowd_cases[c].name, costs->floor_neighbours = neighbours;
        }
    }
    if (!rc) costs->normal_ns = median_of(tw[WORLDS - 1].ns, CAPACITY_ROUNDS);
    for (int k = 0; k < WORLDS; k++)
        if (tw[k].live) world_free(&tw[k].w);
    free(tw);
    return rc;
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

#include "capacity_rows.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"
#include "sim/capacity.h"
#include "sim/params.h"
#include "sim/world.h"
#include "stream/capture.h"

/* What the server defaults to (config.c): the limit is derived for them. */
#define DEFAULT_WIDTH 1600
#define DEFAULT_HEIGHT 900
#define DEFAULT_TICK_HZ 60
#define DEFAULT_CLIENTS 512

#define MILLION 1000000
#define MILLION_WARM_UP 3
#define MILLION_SAMPLES 7


/* CPU time of the whole process (every thread), ms. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Ticks the check steps each crowd for: first as the commands left it
 * (the crowd then spreads), then repacked before every tick, as the
 * calibration steps it (the state held: the dearest). */
#define CHECK_TICKS 8

/* The check: steps the limit's population, on the bench's threads in the
 * default world, as each calibration crowd at the calibration's density
 * (1,200 agents per 20 x 20 u) with the largest sample anyone may ask for
 * (max_candidates 1024, cut by the candidate budget), its obstacles over
 * the crowd, the predators in it, every client's target round it: what a
 * sequence of commands (set_param, add_obstacle, each client's target,
 * agents added or placed by a scenario) can set up. Prints each tick's
 * wall time against the period; the bound is honest when no tick takes
 * more than two periods (late by at most one). 0, or 1 on failure. */
static int limit_check(const capacity_t *cap, int threads)
{
    const double period_ms = 1e3 / DEFAULT_TICK_HZ;
    const size_t n = cap->max_agents;
    const float side = 20.0f * sqrtf((float)n / 1200.0f);
    const float cx = 0.5f * DEFAULT_WIDTH, cy = 0.5f * DEFAULT_HEIGHT;
    printf("\nThe check: %zu agents in %.0f x %.0f u (the calibration's density), %d threads, %d x %d u, "
           "%d clients' targets; wall ms per tick over %d ticks, as the commands left the crowd, then repacked "
           "before every tick. Period %.1f ms; honest when no tick takes over %.1f ms (late by one period):\n\n"
           "| crowd | as left: median | max | repacked: median | max | max / period | repacked: CPU ms (all threads) | CPU ns per agent |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|\n",
           n, (double)side, (double)side, threads, DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_CLIENTS, CHECK_TICKS,
           period_ms, 2.0 * period_ms);
    double worst = 0.0, worst_cpu = 0.0;
    for (int k = 0; k < CAPACITY_CASES; k++) {
        world_config_t cfg = {.width = DEFAULT_WIDTH, .height = DEFAULT_HEIGHT, .dt = 1.0f / DEFAULT_TICK_HZ,
                              .seed = 1, .agents = n, .max_agents = n, .max_targets = DEFAULT_CLIENTS,
                              .threads = threads};
        world_t w;
        if (world_init(&w, &cfg)) return 1;
        char msg[160];
        if (world_set_param(&w, (size_t)params_find("max_candidates"), SIM_MAX_CANDIDATES, msg, sizeof msg) ||
            capacity_dress_crowd(&w, k, cx, cy, side, DEFAULT_CLIENTS)) {
            world_free(&w);
            return 1;
        }
        capacity_pack_crowd(&w, cx, cy, side);
        world_step(&w); /* the threads and memory warm */
        double ms[2][CHECK_TICKS], cpu[2][CHECK_TICKS], most[2] = {0.0, 0.0};
        for (int repack = 0; repack < 2; repack++) {
            capacity_pack_crowd(&w, cx, cy, side);
            for (int t = 0; t < CHECK_TICKS; t++) {
                if (repack) capacity_pack_crowd(&w, cx, cy, side);
                const double t0 = now_ms(), c0 = cpu_ms();
                world_step(&w);
                ms[repack][t] = now_ms() - t0;
                cpu[repack][t] = cpu_ms() - c0;
                if (ms[repack][t] > most[repack]) most[repack] = ms[repack][t];
            }
        }
        const double m = most[0] > most[1] ? most[0] : most[1], c = median(cpu[1], CHECK_TICKS);
        if (m > worst) worst = m;
        if (c > worst_cpu) worst_cpu = c;
        printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.0f |\n", capacity_case_name(k),
               median(ms[0], CHECK_TICKS), most[0], median(ms[1], CHECK_TICKS), most[1], m / period_ms, c,
               1e6 * c / (double)n);
        fflush(stdout);
        world_free(&w);
    }
    /* On a shared machine the wall time is also the others' (load above
     * the cores: the threads wait for a core); the CPU time over the
     * threads, at the calibration's worth of a second thread, is what the
     * tick would take with the cores to itself. */
    double load[1] = {0.0};
    if (getloadavg(load, 1) != 1) load[0] = -1.0;
    const double f = 1.0 + CAPACITY_THREAD_SHARE * (double)(threads - 1);
    printf("\ncheck: the dearest tick took %.1f ms of wall time, %.2f periods (load average %.1f): %s; "
           "its crowd's median CPU time over the threads / %.1f: %.1f ms, %.2f periods: %s\n",
           worst, worst / period_ms, load[0],
           worst <= 2.0 * period_ms ? "late by at most one period" : "LATE BY MORE THAN ONE PERIOD", f,
           worst_cpu / f, worst_cpu / f / period_ms,
           worst_cpu / f <= 2.0 * period_ms ? "late by at most one period" : "LATE BY MORE THAN ONE PERIOD");
    return 0;
}

int bench_limit_row(int threads)
{
    capacity_t cap;
    if (capacity_estimate(DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_TICK_HZ, threads, DEFAULT_CLIENTS, &cap)) return 1;
    char line[700];
    capacity_describe(&cap, line, sizeof line);
    printf("\nThe calibration's crowds (1,200 agents in 20 x 20 u, %d targets round them, the obstacles over them, "
           "the predators in them), one thread, median of %d rounds:\n\n"
           "| crowd | ns/agent-step at 1024 candidates | at %u |\n|---|---:|---:|\n",
           DEFAULT_CLIENTS, CAPACITY_ROUNDS, SIM_CANDIDATE_FLOOR);
    for (int k = 0; k < CAPACITY_CASES; k++)
        printf("| %s | %.0f | %.0f |\n", cap.costs.cases[k].name, cap.costs.cases[k].ns_max, cap.costs.cases[k].ns_floor);
    printf("\nDefault population limit (sim/capacity.h) for %d x %d u at %d Hz on %d threads, %d clients' targets:\n"
           "limit: %zu agents\n%s\n",
           DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_TICK_HZ, threads, DEFAULT_CLIENTS, cap.max_agents, line);
    fflush(stdout);
    return limit_check(&cap, threads);
}

/* Staggered steering (steer_every, issue 25 goal 3): the million row's
 * world stepped with each agent sensing and steering only every k ticks
 * (the rows of cells taking turns), the others coasting. Not the same
 * dynamics: a work bound, opt in. Prints one row per k. */
static int staggered_rows(int threads)
{
    const float side = sqrtf((float)MILLION * 654.5f);
    world_config_t cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1, .agents = MILLION,
                          .max_agents = MILLION, .max_targets = 1, .threads = threads};
    world_t w;
    if (world_init(&w, &cfg)) return 1;
    printf("\nStaggered steering (steer_every k: each agent senses and steers every k ticks, the rows of cells "
           "taking turns, and coasts in between; NOT the same dynamics), the same seed and density, %d threads; median of "
           "%d steps of each:\n\n"
           "| staggered steering (not the same dynamics) | agents | threads | ms/step | CPU ms/step (all threads) |\n"
           "|---|---:|---:|---:|---:|\n",
           threads, 3 * MILLION_SAMPLES);
    for (int k = 2; k <= 3; k++) {
        char msg[160];
        if (world_set_param(&w, (size_t)params_find("steer_every"), k, msg, sizeof msg)) return 1;
        for (int s = 0; s < MILLION_WARM_UP; s++) world_step(&w);
        double step[3 * MILLION_SAMPLES], cpu[3 * MILLION_SAMPLES];
        for (int s = 0; s < 3 * MILLION_SAMPLES; s++) {
            const double t0 = now_ms(), c0 = cpu_ms();
            world_step(&w);
            step[s] = now_ms() - t0;
            cpu[s] = cpu_ms() - c0;
        }
        /* The row starts with its label, not the population: a reader of
         * the million row (which starts "| 1000000 |") finds only that. */
        printf("| steer_every %d | %d | %d | %.1f | %.1f |\n", k, MILLION, threads, median(step, 3 * MILLION_SAMPLES),
               median(cpu, 3 * MILLION_SAMPLES));
        fflush(stdout);
    }
    world_free(&w);
    return 0;
}

/* Pairs of ticks the snapshot row times. */
#define SNAPSHOT_PAIRS 9

/* A snapshot's copy on a thread of its own: the encoder's copier. */
typedef struct million_copy {
    capture_t *c;
    const world_t *w;
    int rc;
} million_copy_t;

static void *copy_world(void *arg)
{
    million_copy_t *job = arg;
    job->rc = capture_world(job->c, job->w);
    return NULL;
}

/* Pairs of ticks with a snapshot after the first of each (the server's
 * default 60 Hz ticks, 30 Hz snapshots), the way the server takes it when
 * the step overruns the tick: the copier copies while the simulation
 * thread goes on to its next tick, which waits for the copy before its
 * commands and step (stream/encoder.c, app/sim_thread.c). The median
 * pair's wall and CPU ms per tick; -1 on failure. */
static int snapshot_ticks(world_t *w, capture_t *c, double *wall_ms, double *cpu_ms_tick)
{
    double wall[SNAPSHOT_PAIRS], cpu[SNAPSHOT_PAIRS];
    for (int p = 0; p < SNAPSHOT_PAIRS; p++) {
        const double t0 = now_ms(), c0 = cpu_ms();
        world_step(w);
        million_copy_t job = {c, w, 0};
        pthread_t copier;
        if (pthread_create(&copier, NULL, copy_world, &job)) return -1;
        pthread_join(copier, NULL);
        if (job.rc) return -1;
        world_step(w);
        wall[p] = (now_ms() - t0) / 2;
        cpu[p] = (cpu_ms() - c0) / 2;
    }
    *wall_ms = median(wall, SNAPSHOT_PAIRS);
    *cpu_ms_tick = median(cpu, SNAPSHOT_PAIRS);
    return 0;
}

int bench_million_row(int threads)
{
    /* The model table's density: about ten neighbours within 50 u. */
    const float side = sqrtf((float)MILLION * 654.5f);
    world_config_t cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1, .agents = MILLION,
                          .max_agents = MILLION, .max_targets = 1, .threads = threads};
    world_t w;
    if (world_init(&w, &cfg)) return 1;
    for (int s = 0; s < MILLION_WARM_UP; s++) world_step(&w);
    double step[MILLION_SAMPLES], cpu[MILLION_SAMPLES], copy[MILLION_SAMPLES];
    capture_t c;
    memset(&c, 0, sizeof c);
    for (int s = 0; s < MILLION_SAMPLES; s++) {
        double t0 = now_ms(), c0 = cpu_ms();
        world_step(&w);
        step[s] = now_ms() - t0;
        cpu[s] = cpu_ms() - c0;
        t0 = now_ms();
        if (capture_world(&c, &w)) return 1;
        copy[s] = now_ms() - t0;
    }
    const double step_ms = median(step, MILLION_SAMPLES), copy_ms = median(copy, MILLION_SAMPLES);
    const double cpu_step_ms = median(cpu, MILLION_SAMPLES);
    double tick_ms, tick_cpu;
    if (snapshot_ticks(&w, &c, &tick_ms, &tick_cpu)) return 1;
    printf("\nA million Reynolds agents (default parameters, the model table's density: %.1f neighbours each), "
           "%d threads; median of %d steps; then pairs of ticks with a snapshot after the first, copied as the "
           "server does when the step overruns, the median of %d:\n\n"
           "| agents | threads | ms/step | CPU ms/step (all threads; the threads' spinning between phases counts) | "
           "snapshot copy ms (simulation thread, after the step) | ms/tick with a snapshot every 2nd tick, "
           "wall / CPU |\n"
           "|---:|---:|---:|---:|---:|---:|\n"
           "| 1000000 | %d | %.1f | %.1f | %.1f | %.1f / %.1f |\n",
           w.mean_neighbours, threads, MILLION_SAMPLES, SNAPSHOT_PAIRS, threads, step_ms, cpu_step_ms, copy_ms,
           tick_ms, tick_cpu);
    fflush(stdout);
    free(c.x), free(c.y), free(c.vx), free(c.vy), free(c.id), free(c.flags), free(c.targets);
    world_free(&w);
    return staggered_rows(threads);
}

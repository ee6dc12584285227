#include "capacity_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"
#include "sim/capacity.h"
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


int bench_limit_row(int threads)
{
    capacity_t cap;
    if (capacity_estimate(DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_TICK_HZ, threads, DEFAULT_CLIENTS, &cap)) return 1;
    char line[700];
    capacity_describe(&cap, line, sizeof line);
    printf("\nThe calibration's crowds (1,200 agents in 20 x 20 u, %d targets round them), one thread:\n\n"
           "| crowd | ns/agent-step at 1024 candidates | at %u |\n|---|---:|---:|\n",
           DEFAULT_CLIENTS, SIM_CANDIDATE_FLOOR);
    for (int k = 0; k < CAPACITY_CASES; k++)
        printf("| %s | %.0f | %.0f |\n", cap.costs.cases[k].name, cap.costs.cases[k].ns_max, cap.costs.cases[k].ns_floor);
    printf("\nDefault population limit (sim/capacity.h) for %d x %d u at %d Hz on %d threads, %d clients' targets:\n"
           "limit: %zu agents\n%s\n",
           DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_TICK_HZ, threads, DEFAULT_CLIENTS, cap.max_agents, line);
    fflush(stdout);
    return 0;
}

/* CPU time of the whole process (every thread), ms. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
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
    printf("\nA million Reynolds agents (default parameters, the model table's density: %.1f neighbours each), "
           "%d threads; median of %d steps:\n\n"
           "| agents | threads | ms/step | CPU ms/step (all threads; the threads' spinning between phases counts) | "
           "snapshot copy ms (simulation thread, after the step) |\n"
           "|---:|---:|---:|---:|---:|\n"
           "| 1000000 | %d | %.1f | %.1f | %.1f |\n",
           w.mean_neighbours, threads, MILLION_SAMPLES, threads, step_ms, cpu_step_ms, copy_ms);
    fflush(stdout);
    free(c.x), free(c.y), free(c.vx), free(c.vy), free(c.id), free(c.flags), free(c.targets);
    world_free(&w);
    return 0;
}

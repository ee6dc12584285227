/* swarmcast-model-cpu: one model against Reynolds on one thread, timed by
 * the thread's CPU clock rather than the wall clock, for a machine too
 * busy for swarmcast-bench's wall-clock ratios (a step descheduled
 * half-way counts only what it ran). The same worlds as swarmcast-bench
 * --vs-reynolds: a normal flock of 100,000 at the default density, or the
 * crowd of 20,000 in 40 x 40 u with max_candidates 256. Reynolds and the
 * model are stepped alternately, ROUNDS times STEPS steps each; it prints
 * the fastest step (the least disturbed by other processes sharing the
 * caches) and the median, per agent-step and per neighbour pair.
 *
 *   swarmcast-model-cpu MODEL flock|crowd [ROUNDS]     (MODEL 1–5, as params.h)
 * swarmcast-model-cpu-avx2 is the same on the kernels' AVX2 build. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"
#include "sim/capacity.h"
#include "sim/params.h"
#include "sim/world.h"

#define FLOCK_AGENTS 100000
#define CROWD_AGENTS 20000
#define CROWD_SIDE 40.0f
#define STEPS 8

static int make_world(world_t *w, int model, bool crowd)
{
    const size_t n = crowd ? CROWD_AGENTS : FLOCK_AGENTS;
    const float side = sqrtf((float)n * 654.5f); /* swarmcast-bench's default density */
    world_config_t cfg = {.width = crowd ? 1600.0f : side, .height = crowd ? 900.0f : side, .dt = 1.0f / 60.0f,
                          .seed = 1, .agents = n, .max_agents = n, .max_targets = 1, .threads = 1};
    char msg[160];
    if (world_init(w, &cfg)) return -1;
    world_set_param(w, (size_t)params_find("model"), model, msg, sizeof msg);
    if (crowd) world_set_param(w, (size_t)params_find("max_candidates"), 256, msg, sizeof msg);
    return 0;
}

int main(int argc, char **argv)
{
    const int model = argc > 2 ? atoi(argv[1]) : 0, rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (argc < 3 || argc > 4 || model < 1 || model > 5 || rounds < 1 || rounds > 50 ||
        (strcmp(argv[2], "flock") && strcmp(argv[2], "crowd"))) {
        fprintf(stderr, "usage: swarmcast-model-cpu MODEL(1-5) flock|crowd [ROUNDS(1-50)]\n");
        return 2;
    }
    const bool crowd = !strcmp(argv[2], "crowd");
    world_t w[2];
    if (make_world(&w[0], MODEL_REYNOLDS, crowd) || make_world(&w[1], model, crowd)) return 1;
    double t[2][50 * STEPS];
    for (int k = 0; k < 2; k++) { /* warm-up */
        if (crowd) capacity_pack_crowd(&w[k], 0.5f * w[k].width, 0.5f * w[k].height, CROWD_SIDE);
        world_step(&w[k]);
    }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++)
            for (int s = 0; s < STEPS; s++) {
                if (crowd) capacity_pack_crowd(&w[k], 0.5f * w[k].width, 0.5f * w[k].height, CROWD_SIDE);
                const double t0 = thread_cpu_ms();
                world_step(&w[k]);
                t[k][r * STEPS + s] = thread_cpu_ms() - t0;
            }
    double best[2], mid[2], nb[2];
    for (int k = 0; k < 2; k++) {
        const double per = 1e6 / (double)w[k].n;
        mid[k] = median(t[k], rounds * STEPS) * per; /* sorts: [0] is the fastest */
        best[k] = t[k][0] * per;
        nb[k] = w[k].mean_neighbours;
    }
    printf("model %d, %s, one thread, thread CPU time, %d rounds of %d steps each, alternately\n", model, argv[2],
           rounds, STEPS);
    printf("| | neighbours | fastest ns/agent | median ns/agent | fastest ns/pair |\n|---|---:|---:|---:|---:|\n");
    for (int k = 0; k < 2; k++)
        printf("| %s | %.1f | %.1f | %.1f | %.3f |\n", k ? "model" : "Reynolds", nb[k], best[k], mid[k], best[k] / nb[k]);
    printf("× Reynolds per agent-step: %.2f (fastest), %.2f (median); per pair: %.2f (fastest), %.2f (median)\n",
           best[1] / best[0], mid[1] / mid[0], best[1] / nb[1] / (best[0] / nb[0]), mid[1] / nb[1] / (mid[0] / nb[0]));
    world_free(&w[0]);
    world_free(&w[1]);
    return 0;
}

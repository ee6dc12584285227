/* swarmcast-bench: how fast the simulation steps, against the plain
 * reference implementation in reference.c, in one run on one machine.
 *
 * For each population it builds a world whose density gives about ten
 * neighbours per agent, steps it single-threaded and with every thread, steps
 * the reference from the same initial state, and encodes a snapshot. Each
 * figure is the median of several timed steps: the single-threaded ones
 * (the world and the reference, stepped alternately) in the thread's CPU
 * time, so that their ratio holds on a busy machine, the others in wall
 * time. It prints a Markdown table
 * (docs/BENCHMARKS.md shows one) and checks that the single- and multi-
 * threaded worlds ended bit-identical. A second table steps a dense crowd
 * (every agent's 3x3 block far over max_candidates) with the cap at 256 and
 * at its largest, 1024, against a flock of normal density, and the last
 * line is the default population limit (sim/capacity.h) for the default
 * world on this machine. The last tables set every model against Reynolds
 * (issue 25): the two stepped alternately on one thread, in a normal flock
 * and in the crowd, with the ratios. It is not a test: it asserts nothing
 * about speed.
 *
 * The header names the kernels' instruction set. `--isa avx2` runs the
 * same benchmark on the kernels' AVX2 build (swarmcast-bench-avx2, built
 * beside this one; sim/clones.h), so that an AVX-512 machine measures both. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>

#include "machine.h"
#include "protocol/snapshot.h"
#include "bench_time.h"
#include "capacity_rows.h"
#include "reference.h"
#include "sim/capacity.h"
#include "sim/clones.h"
#include "sim/kernel_isa.h"
#include "sim/world.h"

#define MAX_SAMPLES 64


/* Steps needed for a stable median without taking all day. */
static int samples_for(size_t n) { return n >= 1000000 ? 7 : (n >= 100000 ? 15 : 41); }

static void step_world(void *w) { world_step(w); }
static void step_reference(void *r) { ref_step(r); }

/* Median wall time of one step over `samples` timed steps. */
static double time_steps(void (*step)(void *), void *what, int samples)
{
    double t[MAX_SAMPLES];
    for (int s = 0; s < samples; s++) {
        double t0 = now_ms();
        step(what);
        t[s] = now_ms() - t0;
    }
    return median(t, samples);
}

/* Median CPU time of one step of a and one of b, stepped alternately on
 * this thread (b only every other round when b_every is 2: the reference
 * is slow), so that both see the same machine: on a shared machine the
 * ratio of the two stays honest where wall times drift with the load. */
static void time_alternating(void (*step_a)(void *), void *a, void (*step_b)(void *), void *b, int samples,
                             int b_every, double *t_a, double *t_b)
{
    double ta[MAX_SAMPLES], tb[MAX_SAMPLES];
    int nb = 0;
    for (int s = 0; s < samples; s++) {
        double t0 = thread_cpu_ms();
        step_a(a);
        ta[s] = thread_cpu_ms() - t0;
        if (!step_b || s % b_every) continue;
        t0 = thread_cpu_ms();
        step_b(b);
        tb[nb++] = thread_cpu_ms() - t0;
    }
    *t_a = median(ta, samples);
    *t_b = nb ? median(tb, nb) : 0.0;
}

static double time_snapshot(const world_t *w, uint8_t *buf, size_t cap, size_t *bytes, int samples)
{
    double t[MAX_SAMPLES];
    snap_view_t v;
    snap_view_of_world(w, &v);
    for (int s = 0; s < samples; s++) {
        double t0 = now_ms();
        *bytes = snap_encode(&v, buf, cap);
        t[s] = now_ms() - t0;
    }
    return median(t, samples);
}

static bool same_state(const world_t *a, const world_t *b)
{
    size_t f = a->n * sizeof(float);
    return a->n == b->n && a->tick == b->tick && !memcmp(a->cur.x, b->cur.x, f) && !memcmp(a->cur.y, b->cur.y, f) &&
           !memcmp(a->cur.vx, b->cur.vx, f) && !memcmp(a->cur.vy, b->cur.vy, f) &&
           !memcmp(a->cur.id, b->cur.id, a->n * sizeof(uint32_t)) && !memcmp(a->cur.flags, b->cur.flags, a->n);
}

static void usage(void)
{
    printf("usage: swarmcast-bench [--isa avx512|avx2] [--threads N] [--sizes N,N,...]\n"
           "                       [--crowd | --vs-reynolds | --limit | --million]\n"
           "  --isa SET       the kernels' build to run: avx512 (this binary on an AVX-512 CPU) or avx2\n"
           "                  (swarmcast-bench-avx2, beside it: the kernels without their AVX-512 version)\n"
           "  --threads N     threads for the parallel runs (default: the machine's cores)\n"
           "  --sizes LIST    populations (default 1000,10000,100000,1000000)\n"
           "  --crowd         only the dense crowd table, every model against Reynolds and the population limit\n"
           "  --vs-reynolds   only every model against Reynolds\n"
           "  --limit         only the population limit\n"
           "  --million       only the million Reynolds agents' row\n");
}

/* The crowd: CROWD_AGENTS in a CROWD_SIDE square in the middle of the
 * default world; every agent's block holds all of them. */
#define CROWD_AGENTS 20000
#define CROWD_SIDE 40.0f
#define CROWD_SAMPLES 9

/* Every agent (by id) back into the crowd, flying every which way, so that
 * each timed step starts from the same state (a crowd disperses). */
static void pack_crowd(world_t *w) { capacity_pack_crowd(w, 0.5f * w->width, 0.5f * w->height, CROWD_SIDE); }

/* Median ms of a crowd's step, packed again before each. */
static double time_crowd_steps(world_t *w)
{
    double t[CROWD_SAMPLES];
    pack_crowd(w);
    world_step(w); /* warm-up; also tells the world the crowd is dense (it goes parallel) */
    for (int s = 0; s < CROWD_SAMPLES; s++) {
        pack_crowd(w);
        double t0 = now_ms();
        world_step(w);
        t[s] = now_ms() - t0;
    }
    return median(t, CROWD_SAMPLES);
}

/* Every model against Reynolds (issue 25's goal: each within 1.5× per
 * agent-step, and Couzin per neighbour pair). */
#define VERSUS_AGENTS 100000 /* the normal flock */
#define VERSUS_SAMPLES 15
#define CROWD_CAP 256

static const char *const model_names[] = {"reynolds", "olfati1", "olfati2", "olfati3", "unicycle", "couzin"};
#define N_MODELS ((int)(sizeof model_names / sizeof model_names[0]))

/* A one-thread world of n agents running `model`: a normal flock at the
 * default density times `density` (wrap borders), or the crowd. */
static int versus_world(world_t *w, int model, size_t n, bool crowd, float density)
{
    const float side = sqrtf((float)n * 654.5f / density);
    world_config_t cfg = {.width = crowd ? 1600.0f : side, .height = crowd ? 900.0f : side, .dt = 1.0f / 60.0f,
                          .seed = 1, .agents = n, .max_agents = n, .max_targets = 1, .threads = 1};
    char msg[160];
    if (world_init(w, &cfg)) return -1;
    world_set_param(w, (size_t)params_find("model"), model, msg, sizeof msg);
    if (crowd) world_set_param(w, (size_t)params_find("max_candidates"), CROWD_CAP, msg, sizeof msg);
    return 0;
}

/* The median ns per agent-step, the fastest step's and the mean
 * neighbours of Reynolds ([0]) and of `model` ([1]), their worlds stepped
 * alternately, so that a change of the machine's load falls on both
 * alike. On a busy machine the fastest steps are the least disturbed. */
typedef struct versus {
    double ns[2], fastest[2], neighbours[2];
} versus_t;

static int versus_reynolds(int model, size_t n, bool crowd, float density, versus_t *out)
{
    world_t w[2];
    if (versus_world(&w[0], MODEL_REYNOLDS, n, crowd, 1.0f)) return -1;
    if (versus_world(&w[1], model, n, crowd, density)) {
        world_free(&w[0]);
        return -1;
    }
    const int samples = crowd ? CROWD_SAMPLES : VERSUS_SAMPLES;
    double t[2][MAX_SAMPLES];
    for (int s = -2; s < samples; s++) /* two warm-up steps each */
        for (int k = 0; k < 2; k++) {
            if (crowd) pack_crowd(&w[k]);
            const double t0 = thread_cpu_ms(); /* a one-thread world steps on this thread */
            world_step(&w[k]);
            if (s >= 0) t[k][s] = thread_cpu_ms() - t0;
        }
    for (int k = 0; k < 2; k++) {
        out->ns[k] = median(t[k], samples) * 1e6 / (double)n; /* sorts t[k] */
        out->fastest[k] = t[k][0] * 1e6 / (double)n;
        out->neighbours[k] = w[k].mean_neighbours;
        world_free(&w[k]);
    }
    return 0;
}

/* The density at which `model` has as many neighbours as Reynolds at the
 * default one (its zones are another size): from one step of each. */
static int equal_neighbours_density(int model, size_t n, float *density)
{
    double nb[2];
    for (int k = 0; k < 2; k++) {
        world_t w;
        if (versus_world(&w, k ? model : MODEL_REYNOLDS, n, false, 1.0f)) return -1;
        for (int s = 0; s < 3; s++) world_step(&w);
        nb[k] = w.mean_neighbours;
        world_free(&w);
    }
    *density = nb[1] > 0.0 ? (float)(nb[0] / nb[1]) : 1.0f;
    return 0;
}

static void versus_row(const char *model, const char *density, const versus_t *v)
{
    const double pair[2] = {v->ns[0] / v->neighbours[0], v->ns[1] / v->neighbours[1]};
    printf("| %s | %s | %.1f | %.0f | %.0f | %.2f× | %.2f× | %.2f | %.2f | %.2f× |\n", model, density, v->neighbours[1],
           v->ns[1], v->ns[0], v->ns[1] / v->ns[0], v->fastest[1] / v->fastest[0], pair[1], pair[0], pair[1] / pair[0]);
    fflush(stdout);
}

static void versus_header(void)
{
    printf("| model | density | neighbours | ns/agent | Reynolds ns/agent | × Reynolds | × Reynolds, fastest steps | "
           "ns/neighbour pair | Reynolds ns/pair | × Reynolds per pair |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static int versus_tables(void)
{
    printf("\nEvery model against Reynolds, one thread, kernels %s. Each row steps Reynolds and the model\n"
           "alternately, timed in the thread's CPU time (medians of %d steps each; also the ratio of the fastest step\n"
           "of each), so that neither a change of load nor waiting for a core falls on one side. Normal flock: %d\n"
           "agents, wrap borders, at the default density (about ten Reynolds neighbours) and at the density where\n"
           "the model has as many neighbours as Reynolds; Reynolds always at the default density.\n\n",
           kernel_isa(), VERSUS_SAMPLES, VERSUS_AGENTS);
    versus_header();
    for (int m = 1; m < N_MODELS; m++) {
        versus_t v;
        float density;
        if (versus_reynolds(m, VERSUS_AGENTS, false, 1.0f, &v)) return 1;
        versus_row(model_names[m], "default", &v);
        if (equal_neighbours_density(m, VERSUS_AGENTS, &density)) return 1;
        if (versus_reynolds(m, VERSUS_AGENTS, false, density, &v)) return 1;
        char label[48];
        snprintf(label, sizeof label, "equal neighbours (×%.2f)", (double)density);
        versus_row(model_names[m], label, &v);
    }
    printf("\nThe crowd (%d agents in %.0f x %.0f u, max_candidates %d: every model senses as many candidates),\n"
           "one thread, kernels %s, medians of %d steps each, alternately.\n\n",
           CROWD_AGENTS, (double)CROWD_SIDE, (double)CROWD_SIDE, CROWD_CAP, kernel_isa(), CROWD_SAMPLES);
    versus_header();
    for (int m = 1; m < N_MODELS; m++) {
        versus_t v;
        if (versus_reynolds(m, CROWD_AGENTS, true, 1.0f, &v)) return 1;
        versus_row(model_names[m], "crowd", &v);
    }
    return 0;
}

static int crowd_table(int threads)
{
    printf("\nA crowd: %d agents packed into %.0f x %.0f u of the default 1600 x 900 u world (repacked before each\n"
           "step), so that every agent's 3x3 block holds them all; median of %d steps. The normal flock: as many\n"
           "agents at the density of the table above (about ten neighbours each), same model, one thread.\n\n",
           CROWD_AGENTS, (double)CROWD_SIDE, (double)CROWD_SIDE, CROWD_SAMPLES);
    printf("| model | max_candidates | mean neighbours | 1 thread ns/agent | %d threads ns/agent | %d threads ms/step | "
           "normal flock ns/agent |\n",
           threads, threads);
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    static const char *const *const models = model_names;
    const int caps[] = {256, 1024};
    for (int m = 0; m < N_MODELS; m++) {
        const float side = sqrtf((float)CROWD_AGENTS * 654.5f);
        world_config_t flock_cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1, .agents = CROWD_AGENTS,
                                    .max_agents = CROWD_AGENTS, .max_targets = 1, .threads = 1};
        world_t flock;
        char msg[160];
        if (world_init(&flock, &flock_cfg)) return 1;
        world_set_param(&flock, (size_t)params_find("model"), m, msg, sizeof msg);
        for (int s = 0; s < 3; s++) world_step(&flock);
        const double t_flock = time_steps(step_world, &flock, 15);
        world_free(&flock);
        for (int c = 0; c < 2; c++) {
            double t[2], neighbours = 0;
            for (int k = 0; k < 2; k++) {
                world_config_t cfg = {.width = 1600, .height = 900, .dt = 1.0f / 60.0f, .seed = 1, .agents = CROWD_AGENTS,
                                      .max_agents = CROWD_AGENTS, .max_targets = 1, .threads = k ? threads : 1};
                world_t w;
                if (world_init(&w, &cfg)) return 1;
                world_set_param(&w, (size_t)params_find("model"), m, msg, sizeof msg);
                world_set_param(&w, (size_t)params_find("max_candidates"), caps[c], msg, sizeof msg);
                t[k] = time_crowd_steps(&w);
                neighbours = w.mean_neighbours;
                world_free(&w);
            }
            const double ns = 1e6 / CROWD_AGENTS;
            printf("| %s | %d | %.0f | %.0f | %.0f | %.1f | %.0f |\n", models[m], caps[c], neighbours, t[0] * ns, t[1] * ns,
                   t[1], t_flock * 1e6 / CROWD_AGENTS);
            fflush(stdout);
        }
    }
    if (versus_tables()) return 1;
    return bench_limit_row(threads);
}

/* --isa: the kernels this run must use. This binary's own build when it
 * has them on this CPU; the AVX2 build is a sibling binary, run in this
 * one's place with the other arguments. Returns only on an error. */
static int run_isa(const char *isa, int argc, char **argv, bool *ok)
{
    *ok = false;
    __builtin_cpu_init();
    if (!strcmp(isa, "avx512")) {
        if (KERNEL_TOP_LEVEL < 4) return fprintf(stderr, "swarmcast-bench: this is the kernels' AVX2 build\n"), 2;
        if (!__builtin_cpu_supports("x86-64-v4")) return fprintf(stderr, "swarmcast-bench: this CPU has no AVX-512\n"), 2;
        *ok = true;
        return 0;
    }
    if (strcmp(isa, "avx2")) return usage(), 2;
    if (!__builtin_cpu_supports("x86-64-v3")) return fprintf(stderr, "swarmcast-bench: this CPU has no AVX2\n"), 2;
    if (KERNEL_TOP_LEVEL == 3) {
        *ok = true;
        return 0;
    }
    char self[PATH_MAX], sibling[PATH_MAX + 32];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return perror("swarmcast-bench: /proc/self/exe"), 2;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(sibling, sizeof sibling, "%s/swarmcast-bench-avx2", slash ? self : ".");
    char *args[64];
    int n = 0;
    args[n++] = sibling;
    for (int a = 1; a < argc && n < 63; a++) {
        if (!strcmp(argv[a], "--isa")) {
            a++;
            continue;
        }
        args[n++] = argv[a];
    }
    args[n] = NULL;
    fflush(stdout);
    execv(sibling, args);
    fprintf(stderr, "swarmcast-bench: cannot run %s (the kernels' AVX2 build): %s\n", sibling, strerror(errno));
    return 2;
}

int main(int argc, char **argv)
{
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t sizes[16] = {1000, 10000, 100000, 1000000};
    int n_sizes = 4;
    bool crowd_only = false, versus_only = false, limit_only = false, million_only = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            bool ok;
            const int rc = run_isa(argv[++a], argc, argv, &ok);
            if (!ok) return rc;
        } else if (!strcmp(argv[a], "--vs-reynolds")) {
            versus_only = true;
        } else if (!strcmp(argv[a], "--limit")) {
            limit_only = true;
        } else if (!strcmp(argv[a], "--million")) {
            million_only = true;
        } else if (!strcmp(argv[a], "--crowd")) {
            crowd_only = true;
        } else if (!strcmp(argv[a], "--threads") && a + 1 < argc) {
            threads = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
            n_sizes = 0;
            for (char *tok = strtok(argv[++a], ","); tok && n_sizes < 16; tok = strtok(NULL, ","))
                sizes[n_sizes++] = (size_t)strtoull(tok, NULL, 10);
        } else {
            usage();
            return strcmp(argv[a], "--help") ? 2 : 0;
        }
    }
    if (threads < 1) threads = 1;

    char cpu[128];
    machine_cpu_name(cpu, sizeof cpu);
    printf("swarmcast-bench: %s (%s), %ld cores, kernels %s, compiler %s\n", cpu, machine_instruction_set(),
           sysconf(_SC_NPROCESSORS_ONLN), kernel_isa(), __VERSION__);
    if (versus_only) return versus_tables();
    if (limit_only || million_only)
        return (limit_only && bench_limit_row(threads)) || (million_only && bench_million_row(threads));
    if (crowd_only) return crowd_table(threads);
    printf("Every model with its default parameters (Reynolds zones 25/50/50 u, field of view 300°;\n"
           "Olfati-Saber d = 25 u, r = 30 u), wrap borders, density set for about ten neighbours per\n"
           "agent within 50 u; medians of timed steps. The reference implements Reynolds only. One thread:\n"
           "the thread's CPU time, the world and the reference stepped alternately; %d threads: wall time.\n\n",
           threads);
    printf("| model | agents | world (u) | mean neighbours | reference ns/agent | 1 thread ns/agent | speed-up | "
           "%d threads ms/step | %d threads ns/agent | snapshot encode ms | snapshot bytes | world bytes/agent | "
           "1 vs %d threads |\n",
           threads, threads, threads);
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");

    static const char *const *const models = model_names;
    const int model_param = params_find("model");
    char msg[160];
    for (int m = 0; m < N_MODELS; m++) {
        for (int k = 0; k < n_sizes; k++) {
            size_t n = sizes[k];
            /* 10 neighbours in a 50 u disc seen over 300°: one agent per 654 u². */
            float side = sqrtf((float)n * 654.5f);
            world_config_t cfg = {.width = side, .height = side, .dt = 1.0f / 60.0f, .seed = 1, .agents = n,
                                  .max_agents = n, .max_targets = 1, .threads = 1};
            world_t one, many;
            if (world_init(&one, &cfg)) return 1;
            cfg.threads = threads;
            if (world_init(&many, &cfg)) return 1;
            world_set_param(&one, (size_t)model_param, m, msg, sizeof msg);
            world_set_param(&many, (size_t)model_param, m, msg, sizeof msg);
            bool reynolds = m == MODEL_REYNOLDS;
            ref_world_t ref;
            if (reynolds && ref_init(&ref, n, one.cur.x, one.cur.y, one.cur.vx, one.cur.vy, side, side, cfg.dt)) return 1;

            int samples = samples_for(n);
            for (int s = 0; s < 3; s++) { /* warm up */
                world_step(&one), world_step(&many);
                if (reynolds) ref_step(&ref);
            }
            double t_one, t_ref;
            time_alternating(step_world, &one, reynolds ? step_reference : NULL, &ref, samples, samples < 9 ? 1 : 2,
                             &t_one, &t_ref);
            double t_many = time_steps(step_world, &many, samples);
            bool identical = same_state(&one, &many);

            size_t cap = 24 + 6 * n + 16 * 64 + 12 * 64, bytes = 0;
            uint8_t *buf = malloc(cap);
            double t_snap = buf ? time_snapshot(&one, buf, cap, &bytes, samples) : 0;
            free(buf);

            double ns = 1e6 / (double)n;
            char ref_cell[32] = "–", ratio_cell[32] = "–";
            if (reynolds) {
                snprintf(ref_cell, sizeof ref_cell, "%.0f", t_ref * ns);
                snprintf(ratio_cell, sizeof ratio_cell, "%.1f×", t_ref / t_one);
            }
            printf("| %s | %zu | %.0f | %.1f | %s | %.0f | %s | %.2f | %.1f | %.2f | %zu | %.0f | %s |\n", models[m], n,
                   (double)side, one.mean_neighbours, ref_cell, t_one * ns, ratio_cell, t_many, t_many * ns, t_snap,
                   bytes, (double)world_memory_bytes(&one) / (double)n, identical ? "identical" : "DIFFERENT");
            fflush(stdout);
            world_free(&one);
            world_free(&many);
            if (reynolds) ref_free(&ref);
        }
    }
    return crowd_table(threads) || bench_million_row(threads);
}

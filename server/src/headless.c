#include "headless.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "persist/record.h"
#include "replay_log.h"
#include "persist/state_json.h"
#include "sim/commands.h"
#include "sim/metrics.h"
#include "world_setup.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

typedef struct run {
    const config_t *cfg;
    world_t world;
    bool have_world;
    metrics_state_t ms;
    FILE *csv;
    uint64_t steps; /* steps this run has made */
    uint64_t commands, refused; /* replay: commands applied, and those the world refused */
    double started;             /* replay: when the world was ready (the time of its steps) */
} run_t;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- output --------------------------------------------------------------- */

static const char CSV_HEADER[] =
    "tick,agents,polarization,milling,mean_nn_distance,clusters,largest_cluster,collisions,penetrations,"
    "min_clearance,oscillation\n";

/* A real number as the CSV writes it: %.9g, and an empty field for NAN. */
static void csv_real(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.9g", v);
}

static int compute(run_t *r, metrics_t *m)
{
    metrics_config_t mc = metrics_default_config(&r->world);
    if (metrics_compute(&r->ms, &r->world, &mc, m) == 0) return 0;
    fprintf(stderr, "swarmcast: out of memory computing metrics\n");
    return -1;
}

static int csv_row(run_t *r)
{
    metrics_t m;
    if (compute(r, &m)) return EXIT_IO;
    FILE *f = r->csv;
    fprintf(f, "%llu,%zu,", (unsigned long long)m.tick, m.agents);
    csv_real(f, m.polarization);
    fputc(',', f);
    csv_real(f, m.milling);
    fputc(',', f);
    csv_real(f, m.mean_nn_distance);
    fprintf(f, ",%lu,%lu,%lu,%lu,", (unsigned long)m.clusters, (unsigned long)m.largest_cluster,
            (unsigned long)m.collisions, (unsigned long)m.penetrations);
    csv_real(f, m.min_clearance);
    fputc(',', f);
    csv_real(f, m.oscillation);
    fputc('\n', f);
    if (ferror(f)) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", r->cfg->csv, strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

static int csv_open(run_t *r)
{
    const char *path = r->cfg->csv;
    if (!path) return EXIT_OK;
    r->csv = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!r->csv) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_IO;
    }
    fputs(CSV_HEADER, r->csv);
    return csv_row(r); /* the state before the first step */
}

static int csv_close(run_t *r)
{
    if (!r->csv) return EXIT_OK;
    int bad = r->csv == stdout ? fflush(r->csv) : fclose(r->csv);
    r->csv = NULL;
    if (bad) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", r->cfg->csv, strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* One step at the fixed dt, and a CSV row every metrics_every steps. */
static int step(run_t *r)
{
    world_step(&r->world);
    r->steps++;
    if (r->csv && r->steps % r->cfg->metrics_every == 0) return csv_row(r);
    return EXIT_OK;
}

static int finish(run_t *r, double started)
{
    double wall = now_s() - started; /* the steps (and their CSV rows) */
    int rc = csv_close(r);
    if (rc) return rc;
    if (r->cfg->final_path && state_json_write_file(r->cfg->final_path, &r->world)) return EXIT_IO;
    metrics_t m;
    if (compute(r, &m)) return EXIT_IO;
    char extra[96] = "";
    if (r->commands)
        snprintf(extra, sizeof extra, ", %llu commands replayed (%llu refused)", (unsigned long long)r->commands,
                 (unsigned long long)r->refused);
    fprintf(stderr,
            "swarmcast: headless: %llu steps in %.3f s%s; tick %llu, %zu agents, polarization %.4f, milling %.4f, "
            "mean_nn_distance %.3f, clusters %lu (largest %lu), collisions %lu, penetrations %lu, min_clearance %.3f\n",
            (unsigned long long)r->steps, wall, extra, (unsigned long long)m.tick, m.agents, m.polarization, m.milling,
            m.mean_nn_distance, (unsigned long)m.clusters, (unsigned long)m.largest_cluster, (unsigned long)m.collisions,
            (unsigned long)m.penetrations, m.min_clearance);
    return EXIT_OK;
}

static void run_free(run_t *r)
{
    if (r->csv && r->csv != stdout) fclose(r->csv);
    metrics_free(&r->ms);
    if (r->have_world) world_free(&r->world);
}

/* ---- a run from flags and a scenario ---------------------------------------- */

static int run_scenario(run_t *r)
{
    char msg[400];
    uint64_t steps;
    int rc = world_setup(r->cfg, &r->world, &steps, msg, sizeof msg);
    if (rc) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return rc == SETUP_E_IO ? EXIT_IO : EXIT_USAGE;
    }
    r->have_world = true;
    double started = now_s();
    if ((rc = csv_open(r))) return rc;
    for (uint64_t k = 0; k < steps && !rc; k++) rc = step(r);
    return rc ? rc : finish(r, started);
}

/* ---- a replay of a --record log --------------------------------------------- */

static int replay_ready(void *user, world_t *w)
{
    (void)w;
    run_t *r = user;
    r->started = now_s();
    return csv_open(r);
}

static int replay_step(void *user, world_t *w)
{
    (void)w;
    return step(user);
}

static int run_replay(run_t *r)
{
    const config_t *cfg = r->cfg;
    replay_hooks_t hooks = {.ready = replay_ready, .step = replay_step, .user = r};
    replay_result_t res;
    int rc = replay_log_run(cfg->replay, cfg->threads, &r->world, &r->have_world, &hooks, &res);
    r->commands = res.commands;
    r->refused = res.refused;
    if (rc) return rc;
    if (!res.ended && !cfg->steps_given)
        fprintf(stderr, "swarmcast: %s has no end_tick line (the server did not stop cleanly); replayed to tick %llu\n",
                cfg->replay, (unsigned long long)r->world.tick);
    uint64_t until = cfg->steps_given ? cfg->steps : res.ended ? res.end_tick : r->world.tick;
    while (!rc && r->world.tick < until) rc = step(r);
    if (!rc) rc = finish(r, r->started);
    return rc;
}

int headless_run(const config_t *cfg)
{
    run_t r = {.cfg = cfg};
    metrics_init(&r.ms);
    int rc = cfg->replay ? run_replay(&r) : run_scenario(&r);
    run_free(&r);
    return rc;
}

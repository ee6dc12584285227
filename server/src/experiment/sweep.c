#include "experiment/sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "experiment/manifest.h"
#include "experiment/out_dir.h"
#include "experiment/results.h"

int sweep_base_config(const char *dir, const experiment_t *e, config_t *cfg, char *scenario_path, size_t path_len)
{
    if (out_dir_path(dir, "scenario.json", scenario_path, path_len)) return -1;
    char steps[32];
    snprintf(steps, sizeof steps, "%" PRIu64, e->steps);
    /* From the experiment's files alone: the environment of the shell or the
     * container (a worker's SWARMCAST_NATS, a SWARMCAST_AGENTS left from a
     * demo) would change a run without changing its id. */
    char *argv[] = {"swarmcast", "--headless", "--scenario", scenario_path, "--steps", steps, NULL};
    return config_load_args(cfg, 6, argv, stderr, stderr) == CONFIG_RUN ? 0 : -1;
}

int sweep_open(sweep_session_t *s, const char *file, const char *dir)
{
    memset(s, 0, sizeof *s);
    s->file = file;
    s->dir = dir;
    s->lock = -1;
    s->started = time(NULL);
    char msg[500];
    int st = experiment_load(file, &s->e, msg, sizeof msg);
    if (st != EXPERIMENT_OK) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", file, msg);
        return st == EXPERIMENT_E_IO ? SWEEP_EXIT_IO : SWEEP_EXIT_USAGE;
    }
    s->loaded = true;
    if (run_plan_make(&s->e, &s->plan, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", file, msg);
        return SWEEP_EXIT_USAGE;
    }
    return 0;
}

int sweep_prepare(sweep_session_t *s)
{
    char msg[500];
    if (out_dir_lock(s->dir, &s->lock, msg, sizeof msg) || out_dir_prepare(s->file, &s->e, s->dir, msg, sizeof msg) ||
        out_dir_path(s->dir, "runs.journal", s->journal_path, sizeof s->journal_path) ||
        journal_index_init(&s->idx, &s->plan) ||
        journal_read(&s->idx, &s->plan, s->journal_path, true, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return SWEEP_EXIT_IO;
    }
    return 0;
}

int sweep_finish(sweep_session_t *s, size_t ran, unsigned workers, const char *share)
{
    char msg[500];
    const run_plan_t *plan = &s->plan;
    /* The tables from the journal as it now stands (every share's runs in it). */
    journal_index_free(&s->idx);
    if (journal_index_init(&s->idx, plan) || journal_read(&s->idx, plan, s->journal_path, false, msg, sizeof msg) ||
        results_write(&s->e, plan, &s->idx, s->dir, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return SWEEP_EXIT_IO;
    }
    manifest_info_t info = {.started = s->started, .ended = time(NULL), .workers = workers, .share = share};
    if (manifest_write(s->dir, plan, &s->idx, &info, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return SWEEP_EXIT_IO;
    }
    size_t failed = 0;
    for (size_t i = 0; i < plan->n_runs; i++) failed += s->idx.entries[i].state == RUN_FAILED;
    for (size_t i = 0, shown = 0; i < plan->n_runs && shown < 5; i++)
        if (s->idx.entries[i].state == RUN_FAILED) {
            char id[17];
            run_id_text(plan->runs[i].id, id);
            fprintf(stderr, "swarmcast: run %s (point %zu, replicate %" PRIu32 ") failed: %s\n", id, plan->runs[i].point,
                    plan->runs[i].replicate, s->idx.entries[i].why);
            shown++;
        }
    fprintf(stderr, "swarmcast: %zu runs ran, %zu failed in all; %s/results.csv, summary.csv, manifest.json\n", ran,
            failed, s->dir);
    return failed ? SWEEP_EXIT_RUNS_FAILED : SWEEP_EXIT_OK;
}

void sweep_close(sweep_session_t *s)
{
    out_dir_unlock(s->lock);
    s->lock = -1;
    journal_index_free(&s->idx);
    run_plan_free(&s->plan);
    if (s->loaded) experiment_free(&s->e);
    s->loaded = false;
}

double sweep_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sweep_progress(size_t done, size_t total, size_t failed, double elapsed_s, bool last)
{
    double rate = elapsed_s > 0 ? (double)done / elapsed_s : 0;
    char left[32] = "";
    if (done && done < total) {
        double secs = (double)(total - done) / rate;
        if (secs < 120)
            snprintf(left, sizeof left, " · %.0f s left", secs);
        else if (secs < 7200)
            snprintf(left, sizeof left, " · %.0f min left", secs / 60);
        else
            snprintf(left, sizeof left, " · %.1f h left", secs / 3600);
    }
    char failed_text[32] = "";
    if (failed) snprintf(failed_text, sizeof failed_text, " · %zu failed", failed);
    fprintf(stderr, "\r\033[Kexperiment: %zu/%zu runs · %.2f runs/s%s%s%s", done, total, rate, left, failed_text,
            last ? "\n" : "");
}

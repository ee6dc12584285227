#include "experiment/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "experiment/journal.h"
#include "experiment/manifest.h"
#include "experiment/out_dir.h"
#include "experiment/results.h"
#include "experiment/run_one.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2, EXIT_RUNS_FAILED = 3 };

typedef struct runner {
    const experiment_t *e;
    const run_plan_t *plan;
    const config_t *base;
    size_t *todo, n_todo;

    pthread_mutex_t lock; /* guards what follows */
    pthread_cond_t changed;
    size_t next, done, failed;
    unsigned running;
    FILE *journal;
    int journal_error;
} runner_t;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
    runner_t *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        if (s->next >= s->n_todo || s->journal_error) break;
        size_t i = s->todo[s->next++];
        pthread_mutex_unlock(&s->lock);

        run_output_t out;
        bool ok = run_one(s->e, s->plan, i, s->base, &out);

        pthread_mutex_lock(&s->lock);
        if (journal_append(s->journal, s->plan->runs[i].id, i, ok, out.text, out.len, out.rows, out.message))
            s->journal_error = errno ? errno : EIO;
        s->done++;
        s->failed += !ok;
        pthread_cond_signal(&s->changed);
        pthread_mutex_unlock(&s->lock);
        run_output_free(&out);
    }
    s->running--;
    pthread_cond_signal(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void progress_line(const runner_t *s, double started, bool last)
{
    double t = now_s() - started, rate = t > 0 ? (double)s->done / t : 0;
    char left[32] = "";
    if (s->done && s->done < s->n_todo) {
        double secs = (double)(s->n_todo - s->done) / rate;
        if (secs < 120)
            snprintf(left, sizeof left, " · %.0f s left", secs);
        else if (secs < 7200)
            snprintf(left, sizeof left, " · %.0f min left", secs / 60);
        else
            snprintf(left, sizeof left, " · %.1f h left", secs / 3600);
    }
    char failed[32] = "";
    if (s->failed) snprintf(failed, sizeof failed, " · %zu failed", s->failed);
    fprintf(stderr, "\r\033[Kexperiment: %zu/%zu runs · %.2f runs/s%s%s%s", s->done, s->n_todo, rate, left, failed,
            last ? "\n" : "");
}

/* The runs of this share that the journal does not hold as done. */
static size_t *runs_to_do(const run_plan_t *plan, const journal_index_t *idx, const runner_options_t *o, size_t *n,
                          size_t *mine)
{
    size_t *todo = malloc((plan->n_runs ? plan->n_runs : 1) * sizeof *todo);
    *n = *mine = 0;
    if (!todo) return NULL;
    for (size_t i = 0; i < plan->n_runs; i++) {
        bool in_share = o->only >= 0 ? i == (size_t)o->only : o->shards <= 1 || i % o->shards == o->shard;
        if (!in_share) continue;
        (*mine)++;
        if (idx->entries[i].state != RUN_OK) todo[(*n)++] = i;
    }
    return todo;
}

/* Every run's configuration starts from what `swarmcast --headless
 * --scenario DIR/scenario.json` reads: defaults, then the environment. */
static int base_config(const char *dir, const experiment_t *e, config_t *cfg, char *scenario_path, size_t path_len)
{
    if (out_dir_path(dir, "scenario.json", scenario_path, path_len)) return -1;
    char steps[32];
    snprintf(steps, sizeof steps, "%" PRIu64, e->steps);
    char *argv[] = {"swarmcast", "--headless", "--scenario", scenario_path, "--steps", steps, NULL};
    return config_load(cfg, 6, argv, stderr, stderr) == CONFIG_RUN ? 0 : -1;
}

static int sweep_runs(runner_t *s, unsigned workers, bool progress)
{
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    pthread_t *threads = calloc(workers, sizeof *threads);
    if (!threads) return -1;
    double started = now_s();
    pthread_mutex_lock(&s->lock);
    for (unsigned w = 0; w < workers; w++)
        if (pthread_create(&threads[w], NULL, worker, s) == 0) s->running++;
    int rc = s->running ? 0 : -1;
    while (s->running) {
        if (progress) progress_line(s, started, false);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->changed, &s->lock, &until);
    }
    if (progress) progress_line(s, started, true);
    pthread_mutex_unlock(&s->lock);
    for (unsigned w = 0; w < workers; w++)
        if (threads[w]) pthread_join(threads[w], NULL);
    free(threads);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    return rc;
}

int runner_run(const char *file, const char *dir, const runner_options_t *o)
{
    time_t started = time(NULL);
    experiment_t e;
    char msg[500];
    int st = experiment_load(file, &e, msg, sizeof msg);
    if (st != EXPERIMENT_OK) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", file, msg);
        return st == EXPERIMENT_E_IO ? EXIT_IO : EXIT_USAGE;
    }
    run_plan_t plan = {0};
    journal_index_t idx = {0};
    size_t *todo = NULL, n_todo = 0, mine = 0;
    FILE *journal = NULL;
    int lock = -1;
    config_t base;
    char journal_path[4096], scenario_path[4096];
    int rc = EXIT_USAGE;
    if (run_plan_make(&e, &plan, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: experiment %s: %s\n", file, msg);
        goto done;
    }
    if (o->only >= 0 && (size_t)o->only >= plan.n_runs) {
        fprintf(stderr, "swarmcast: --index %lld: the experiment has runs 0 to %zu\n", o->only, plan.n_runs - 1);
        goto done;
    }
    rc = EXIT_IO;
    if (out_dir_lock(dir, &lock, msg, sizeof msg) || out_dir_prepare(file, &e, dir, msg, sizeof msg) ||
        out_dir_path(dir, "runs.journal", journal_path, sizeof journal_path) || journal_index_init(&idx, &plan) ||
        journal_read(&idx, &plan, journal_path, true, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        goto done;
    }
    if (base_config(dir, &e, &base, scenario_path, sizeof scenario_path)) goto done;
    if (!(todo = runs_to_do(&plan, &idx, o, &n_todo, &mine)) || !(journal = fopen(journal_path, "a"))) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", journal_path, strerror(errno));
        goto done;
    }
    unsigned workers = o->workers ? o->workers : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (workers < 1) workers = 1;
    if (workers > n_todo && n_todo) workers = (unsigned)n_todo;
    if (mine > n_todo)
        fprintf(stderr, "swarmcast: %s holds %zu of these %zu runs already; running the other %zu\n", dir, mine - n_todo,
                mine, n_todo);
    runner_t s = {.e = &e, .plan = &plan, .base = &base, .todo = todo, .n_todo = n_todo, .journal = journal};
    if (n_todo && sweep_runs(&s, workers, o->progress)) {
        fprintf(stderr, "swarmcast: cannot start worker threads\n");
        goto done;
    }
    bool journal_bad = s.journal_error != 0 || fclose(journal) != 0;
    journal = NULL;
    if (journal_bad) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", journal_path, strerror(s.journal_error ? s.journal_error : errno));
        goto done;
    }

    /* The tables from the journal as it now stands (every share's runs in it). */
    journal_index_free(&idx);
    if (journal_index_init(&idx, &plan) || journal_read(&idx, &plan, journal_path, false, msg, sizeof msg) ||
        results_write(&e, &plan, &idx, dir, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        goto done;
    }
    char share[48] = "all";
    if (o->only >= 0)
        snprintf(share, sizeof share, "index %lld", o->only);
    else if (o->shards > 1)
        snprintf(share, sizeof share, "%u/%u", o->shard, o->shards);
    manifest_info_t info = {.started = started, .ended = time(NULL), .workers = workers, .share = share};
    if (manifest_write(dir, &plan, &idx, &info, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        goto done;
    }
    size_t failed = 0;
    for (size_t i = 0; i < plan.n_runs; i++) failed += idx.entries[i].state == RUN_FAILED;
    for (size_t i = 0, shown = 0; i < plan.n_runs && shown < 5; i++)
        if (idx.entries[i].state == RUN_FAILED) {
            char id[17];
            run_id_text(plan.runs[i].id, id);
            fprintf(stderr, "swarmcast: run %s (point %zu, replicate %" PRIu32 ") failed: %s\n", id, plan.runs[i].point,
                    plan.runs[i].replicate, idx.entries[i].why);
            shown++;
        }
    fprintf(stderr, "swarmcast: %zu runs ran, %zu failed in all; %s/results.csv, summary.csv, manifest.json\n", n_todo,
            failed, dir);
    rc = failed ? EXIT_RUNS_FAILED : EXIT_OK;
done:
    if (journal) fclose(journal);
    out_dir_unlock(lock);
    free(todo);
    journal_index_free(&idx);
    run_plan_free(&plan);
    experiment_free(&e);
    return rc;
}

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
#include "experiment/out_dir.h"
#include "experiment/run_one.h"
#include "experiment/sweep.h"

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

static int sweep_runs(runner_t *s, unsigned workers, bool progress)
{
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    pthread_t *threads = calloc(workers, sizeof *threads);
    if (!threads) return -1;
    double started = sweep_now();
    pthread_mutex_lock(&s->lock);
    for (unsigned w = 0; w < workers; w++)
        if (pthread_create(&threads[w], NULL, worker, s) == 0) s->running++;
    int rc = s->running ? 0 : -1;
    while (s->running) {
        if (progress) sweep_progress(s->done, s->n_todo, s->failed, sweep_now() - started, false);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->changed, &s->lock, &until);
    }
    if (progress) sweep_progress(s->done, s->n_todo, s->failed, sweep_now() - started, true);
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
    sweep_session_t sw;
    size_t *todo = NULL, n_todo = 0, mine = 0;
    FILE *journal = NULL;
    config_t base;
    char scenario_path[4096];
    int rc = sweep_open(&sw, file, dir);
    if (rc) goto done;
    const run_plan_t *plan = &sw.plan;
    if (o->only >= 0 && (size_t)o->only >= plan->n_runs) {
        fprintf(stderr, "swarmcast: --index %lld: the experiment has runs 0 to %zu\n", o->only, plan->n_runs - 1);
        rc = SWEEP_EXIT_USAGE;
        goto done;
    }
    if ((rc = sweep_prepare(&sw))) goto done;
    rc = SWEEP_EXIT_IO;
    if (sweep_base_config(dir, &sw.e, &base, scenario_path, sizeof scenario_path)) goto done;
    if (!(todo = runs_to_do(plan, &sw.idx, o, &n_todo, &mine)) || !(journal = fopen(sw.journal_path, "a"))) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", sw.journal_path, strerror(errno));
        goto done;
    }
    unsigned workers = o->workers ? o->workers : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    if (workers < 1) workers = 1;
    if (workers > n_todo && n_todo) workers = (unsigned)n_todo;
    if (mine > n_todo)
        fprintf(stderr, "swarmcast: %s holds %zu of these %zu runs already; running the other %zu\n", dir, mine - n_todo,
                mine, n_todo);
    runner_t s = {.e = &sw.e, .plan = plan, .base = &base, .todo = todo, .n_todo = n_todo, .journal = journal};
    if (n_todo && sweep_runs(&s, workers, o->progress)) {
        fprintf(stderr, "swarmcast: cannot start worker threads\n");
        goto done;
    }
    bool journal_bad = s.journal_error != 0 || fclose(journal) != 0;
    journal = NULL;
    if (journal_bad) {
        fprintf(stderr, "swarmcast: cannot write %s: %s\n", sw.journal_path,
                strerror(s.journal_error ? s.journal_error : errno));
        goto done;
    }
    char share[48] = "all";
    if (o->only >= 0)
        snprintf(share, sizeof share, "index %lld", o->only);
    else if (o->shards > 1)
        snprintf(share, sizeof share, "%u/%u", o->shard, o->shards);
    rc = sweep_finish(&sw, n_todo, workers, share);
done:
    if (journal) fclose(journal);
    free(todo);
    sweep_close(&sw);
    return rc;
}

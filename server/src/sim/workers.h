/* workers: a fixed pool of threads that run the tasks of one parallel step.
 * The caller takes part, so a pool of n threads starts n − 1. Tasks are
 * claimed in any order; callers make results independent of who runs what
 * (the world writes each agent from one task, reading only shared input). */
#ifndef SWARMCAST_WORKERS_H
#define SWARMCAST_WORKERS_H

typedef struct workers workers_t;

/* A task: index in [0, n_tasks), thread in [0, threads) (e.g. for scratch). */
typedef void (*workers_fn)(void *ctx, int task, int thread);

/* threads ≥ 1; NULL on failure. */
workers_t *workers_create(int threads);
/* Runs fn for every task and returns when all are done. */
void workers_run(workers_t *w, workers_fn fn, void *ctx, int n_tasks);
void workers_destroy(workers_t *w);

#endif

/* runner: `swarmcast experiment run FILE --out DIR`: the runs of the plan
 * that DIR's journal does not hold as done, side by side on worker threads
 * (one run each, single-threaded), each appended to the journal as it ends;
 * then results.csv, summary.csv and manifest.json from the journal. Re-run
 * the same command after an interruption and it goes on where it stopped.
 * A run that fails is recorded with why and the others go on.
 *
 * `--shard i/n` runs every n-th run from the i-th (0-based), `--index I`
 * one run: the pieces a job array's tasks run (Slurm's SLURM_ARRAY_TASK_ID,
 * a Kubernetes Indexed Job's JOB_COMPLETION_INDEX), joined by merge.c. */
#ifndef SWARMCAST_RUNNER_H
#define SWARMCAST_RUNNER_H

#include <stdbool.h>

typedef struct runner_options {
    unsigned workers;     /* 0: one per core */
    unsigned shard, shards; /* shards 0 or 1: every run */
    long long only;       /* >= 0: only this run (--index) */
    bool progress;        /* a progress line: runs done, runs per second, time left */
} runner_options_t;

/* The process's exit status: 0 every run of the share succeeded, 3 some
 * failed (the rest done), 2 a bad file or bad options, 1 an I/O error. */
int runner_run(const char *file, const char *dir, const runner_options_t *o);

#endif

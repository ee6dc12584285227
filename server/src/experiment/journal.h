/* journal: the record of finished runs in an output folder, one file that
 * only grows (DIR/runs.journal). Each run that ends appends one block:
 *
 *   @run <id> <index> ok <rows>          @run <id> <index> failed 0 <why>
 *   <its CSV rows>                       @end <id>
 *   @end <id>
 *
 * A run from the NATS pool also says how many times it was delivered to a
 * worker (`... ok <rows> deliveries=2`, `... failed 0 deliveries=3 <why>`);
 * readers that predate it take the field as part of nothing (ok) or of the
 * reason (failed).
 *
 * It is what makes a sweep resumable (a run with an `ok` block is not run
 * again; an interrupted write leaves a block without its @end, cut off when
 * the journal is opened again) and what results.csv, summary.csv and a merge
 * of shards are made from, in the plan's order, whatever order the runs
 * finished in. One file, not one per run: a 10,000-run sweep on a cluster's
 * shared disk is not 10,000 small files. */
#ifndef SWARMCAST_JOURNAL_H
#define SWARMCAST_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "experiment/run_plan.h"

typedef enum { RUN_NOT_DONE = 0, RUN_OK, RUN_FAILED } run_state_t;

typedef struct journal_entry {
    run_state_t state;
    uint32_t source;  /* which journal file holds it (a merge reads several) */
    uint64_t offset;  /* of its rows in that file */
    uint64_t length;  /* bytes of rows */
    char *why;        /* RUN_FAILED: the reason */
    uint32_t deliveries; /* the NATS pool: deliveries to workers; 0: not from the pool */
} journal_entry_t;

/* What is done, per run of the plan (entries[i] for plan->runs[i]). */
typedef struct journal_index {
    journal_entry_t *entries;
    size_t n_runs;
    char **paths;     /* the journal files read, by source */
    FILE **files;     /* opened when rows are first copied from them */
    size_t n_paths;
} journal_index_t;

int journal_index_init(journal_index_t *idx, const run_plan_t *plan);
void journal_index_free(journal_index_t *idx);

/* Reads one journal file into idx: blocks of runs that are not in the plan
 * (another experiment's, an older version's) are skipped; an ok block wins
 * over a failed one. When `repair`, a torn last block is cut off the file.
 * 0, or -1 with msg (a missing file is an empty journal). */
int journal_read(journal_index_t *idx, const run_plan_t *plan, const char *path, bool repair, char *msg,
                 size_t msg_len);

/* Appends a finished run's block and flushes it. -1 when writing fails. */
int journal_append(FILE *f, uint64_t id, size_t index, bool ok, const char *rows, size_t len, size_t n_rows,
                   const char *why);
/* The same, saying how many deliveries to a worker the run took (0: not said). */
int journal_append_delivered(FILE *f, uint64_t id, size_t index, bool ok, const char *rows, size_t len,
                             size_t n_rows, const char *why, uint32_t deliveries);

/* Run i's rows (RUN_OK) from its journal file, NUL-terminated, in *text
 * (the caller frees it). 0, or -1 when the file cannot be read. */
int journal_rows(journal_index_t *idx, size_t i, char **text, size_t *len);

#endif

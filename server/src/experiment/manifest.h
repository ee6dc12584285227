/* manifest: DIR/manifest.json, what a result needs to be trusted later: the
 * experiment (self-contained), the program's version and commit, the
 * machine, when the sweep started and ended, how it was run (workers, the
 * share), and every run's status (ok, failed with why, or not done). */
#ifndef SWARMCAST_MANIFEST_H
#define SWARMCAST_MANIFEST_H

#include <time.h>

#include "experiment/journal.h"

typedef struct manifest_info {
    time_t started, ended;
    unsigned workers;    /* 0: a merge */
    const char *share;   /* "all", "1/3", "index 17", "merge of 3 folders" */
} manifest_info_t;

/* 0, or -1 with msg. */
int manifest_write(const char *dir, const run_plan_t *plan, const journal_index_t *idx, const manifest_info_t *info,
                   char *msg, size_t msg_len);

#endif

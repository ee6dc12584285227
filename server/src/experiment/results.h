/* results: the output folder's tables, made from the journal in the plan's
 * order (so they are byte-identical whatever the number of workers, the
 * shards or the order runs finished in):
 *
 *   results.csv  long format: every recorded row of every run that succeeded
 *                (run_one.h lists the columns)
 *   summary.csv  per design point (and stage of a continuation): how many
 *                runs, then each metric's mean, standard deviation and the
 *                half-width of its 95% confidence interval (Student's t)
 *                over the replicates, at the end of each run (stage)
 *
 * Each is written to a temporary file and renamed, so a reader never sees
 * half a table. Memory: one run's rows at a time, and the summary's sums. */
#ifndef SWARMCAST_RESULTS_H
#define SWARMCAST_RESULTS_H

#include "experiment/journal.h"

/* 0, or -1 with msg. */
int results_write(const experiment_t *e, const run_plan_t *plan, journal_index_t *idx, const char *dir, char *msg,
                  size_t msg_len);

/* The 97.5% quantile of Student's t with df degrees of freedom. */
double student_t975(unsigned df);

#endif

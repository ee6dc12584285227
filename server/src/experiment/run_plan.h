/* run_plan: the runs of an experiment, each a design point and a replicate,
 * in one fixed order (point by point, replicates within a point), with the
 * seed it runs with and an id derived from what it runs.
 *
 * Seeds come from the master seed, the point's values and the replicate
 * number, not from a run's position: the same file always gives the same
 * seeds, and adding points or replicates leaves the existing runs' seeds
 * (and ids) as they were, so a sweep can be extended and resumed. Within a
 * point, replicates differ in their seeds; a collision between two runs of
 * different points (32-bit seeds) changes nothing but that they share a
 * random stream.
 *
 * The id hashes everything that decides a run's output: the base scenario,
 * each factor's value (a swept factor's whole path), the seed, the steps,
 * the warm-up, the recording and the stop condition. Same id, same rows. */
#ifndef SWARMCAST_RUN_PLAN_H
#define SWARMCAST_RUN_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "experiment/design.h"
#include "experiment/experiment_file.h"

typedef struct planned_run {
    uint64_t id;
    size_t point;
    uint32_t replicate; /* 0-based */
    uint32_t seed;
} planned_run_t;

typedef struct run_plan {
    design_t design;
    planned_run_t *runs;
    size_t n_runs;
} run_plan_t;

/* 0, or -1 with the reason in msg. */
int run_plan_make(const experiment_t *e, run_plan_t *plan, char *msg, size_t msg_len);
void run_plan_free(run_plan_t *plan);

/* The seed of replicate r at a point (the values of the factors that are
 * not swept, in the experiment's order). */
uint32_t run_seed(const experiment_t *e, const design_t *d, size_t point, uint32_t replicate);

/* The id as 16 lowercase hex digits. */
void run_id_text(uint64_t id, char out[17]);

/* The plan as CSV: run_id, point, replicate, seed, then one column per
 * factor (a swept factor's path as its values joined by ';'). -1 when
 * writing fails. */
int run_plan_write_csv(const experiment_t *e, const run_plan_t *plan, FILE *out);

#endif

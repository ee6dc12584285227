/* run_one: one run of an experiment, from its plan entry to its CSV rows.
 *
 * The world is built by world_setup from the same flags a person would type
 * for it (the base scenario file, --seed, one --set per factor, --agents,
 * --steps, --threads 1), so a run is byte-identical to that headless run.
 * A continuation run goes through its swept factor's path with the world
 * carried over, each value a stage of `steps` steps.
 *
 * Rows: run_id, point, replicate, seed, each factor's value, stage, tick,
 * then the chosen metrics. Each stage records at every step k (1..steps)
 * past the warm-up with k a multiple of record_every, and always at its last
 * step; a stop condition is checked at each recorded row and ends the run
 * there. */
#ifndef SWARMCAST_RUN_ONE_H
#define SWARMCAST_RUN_ONE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "experiment/run_plan.h"

typedef struct run_output {
    char *text; /* the rows, each ending in '\n' */
    size_t len, cap;
    size_t rows;
    bool failed;
    char message[300]; /* why it failed */
} run_output_t;

/* Runs plan->runs[index]. `base` is the configuration every run starts
 * from (defaults, the environment, the base scenario's path). Fills out
 * (freed by run_output_free) and returns whether it succeeded; a failure
 * (a refused set-up, no memory) is in out->message, never a crash. */
bool run_one(const experiment_t *e, const run_plan_t *plan, size_t index, const config_t *base, run_output_t *out);
void run_output_free(run_output_t *out);

/* The CSV header of the rows. -1 when writing fails. */
int run_rows_header(const experiment_t *e, FILE *f);

/* The headless command that makes the same run (its first stage, for a
 * continuation), into out. */
void run_command_line(const experiment_t *e, const run_plan_t *plan, size_t index, const char *scenario_path,
                      char *out, size_t out_len);

#endif

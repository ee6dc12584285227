/* sweep: what every way of running a sweep into an output folder shares
 * (the local runner's threads and the NATS pool's coordinator): the
 * experiment and its plan, the folder locked and prepared with the journal
 * read (a torn end cut off), the progress line on a terminal, and the end:
 * results.csv, summary.csv and manifest.json from the journal, the failures
 * listed and the exit status. So the two write the same files, byte for
 * byte, from the same journal. */
#ifndef SWARMCAST_SWEEP_H
#define SWARMCAST_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "experiment/journal.h"

enum { SWEEP_EXIT_OK = 0, SWEEP_EXIT_IO = 1, SWEEP_EXIT_USAGE = 2, SWEEP_EXIT_RUNS_FAILED = 3 };

typedef struct sweep_session {
    const char *file, *dir;
    experiment_t e;
    bool loaded;
    run_plan_t plan;
    journal_index_t idx;
    int lock;
    char journal_path[4096];
    time_t started;
} sweep_session_t;

/* Reads FILE and makes its plan. 0, or the exit status with the message
 * printed (2 a bad file, 1 an unreadable one). sweep_close in both cases. */
int sweep_open(sweep_session_t *s, const char *file, const char *dir);

/* Locks DIR (a second writer is refused), writes its copy of the
 * experiment and reads its journal. 0, or 1 with the message printed. */
int sweep_prepare(sweep_session_t *s);

/* The tables and the manifest from the journal as it now stands, the first
 * failures and the closing line on stderr. `ran`: runs this command ran;
 * `workers` 0 leaves it out of the manifest; `share` as manifest.h says.
 * The exit status: 0, 3 when runs failed, 1 an I/O error. */
int sweep_finish(sweep_session_t *s, size_t ran, unsigned workers, const char *share);

void sweep_close(sweep_session_t *s);

/* Every run's configuration starts from what `swarmcast --headless
 * --scenario DIR/scenario.json --steps STEPS` reads in a clean environment:
 * no SWARMCAST_* variable of the runner's or a pool worker's applies.
 * scenario_path holds
 * the path the configuration points at. 0, or -1 with the reason printed. */
struct config;
int sweep_base_config(const char *dir, const experiment_t *e, struct config *cfg, char *scenario_path,
                      size_t path_len);

/* Seconds on a monotonic clock. */
double sweep_now(void);

/* `experiment: 12/80 runs · 1.50 runs/s · 45 s left · 1 failed` on stderr,
 * over the previous one; `last` ends the line. */
void sweep_progress(size_t done, size_t total, size_t failed, double elapsed_s, bool last);

#endif

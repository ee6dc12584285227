/* pool_coordinator: `swarmcast experiment run FILE --out DIR --nats URL`,
 * the sweep spread over an elastic pool of `swarmcast worker`s
 * (docs/EXPERIMENTS.md "The NATS pool"; the messages are pool_protocol.h's).
 *
 * It prepares DIR as the local runner does (sweep.h), makes the
 * experiment's stream and its two consumers, reads the results already
 * waiting there (a previous coordinator's, from while it was down), then
 * puts every run that DIR's journal does not hold as done on the stream,
 * the spec beside them, and collects the results: each run's rows are
 * appended to the journal once (the first result of a run is written, a
 * second one of the same run is acknowledged and dropped), so results.csv
 * and summary.csv come out byte-identical to `--workers N`'s.
 *
 * Failures: a run that fails by itself comes back as failed; a run whose
 * worker is lost max_deliver times is failed by the server's advisory
 * ("worker lost N times"). Resume: restarted, it reads the waiting results
 * first, then drops the queued runs and publishes the ones still to do
 * again (a run that was running when it stopped may run twice; its second
 * result is dropped). When every run is done the stream is deleted. */
#ifndef SWARMCAST_POOL_COORDINATOR_H
#define SWARMCAST_POOL_COORDINATOR_H

#include <stdbool.h>

typedef struct pool_options {
    const char *url;
    double ack_wait_s;     /* how long a worker may go silent before its run is delivered again */
    unsigned max_deliver;  /* deliveries before a run is failed as lost */
    bool progress;
} pool_options_t;

/* The exit status, as runner_run's (0, 3 some runs failed, 2, 1); 130 or
 * 143 after SIGINT or SIGTERM (the tables hold what was done). */
int pool_coordinator_run(const char *file, const char *dir, const pool_options_t *o);

#endif

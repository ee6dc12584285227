/* pool_worker: `swarmcast worker --nats URL`, a member of the elastic pool
 * that runs experiments' runs (docs/EXPERIMENTS.md "The NATS pool").
 *
 * It serves every experiment on that NATS: it looks for streams of our
 * naming (pool_protocol.h) every few seconds and pulls, one run at a time,
 * from each one's shared durable consumer "workers". A run message names the
 * experiment (its hash) and the run (index and id); the experiment itself is
 * read once from the stream's spec message, checked against its hash, and
 * kept (a few at a time). The run is made by run_one, exactly as the local
 * runner makes it, while the message is kept alive with InProgress every
 * third of the consumer's ack_wait; its result is published (in parts when
 * it is larger than a message) and only then is the run message
 * acknowledged. So a worker that dies loses nothing: its run is delivered
 * again after ack_wait.
 *
 * A run that fails by itself (its set-up refused) is published as failed at
 * once and acknowledged: it would fail the same way every time. A message
 * that is not a run of ours is terminated (never delivered again) with the
 * reason on stderr. SIGINT or SIGTERM: the run in hand is given back (nak:
 * delivered again at once, to another worker) and the worker exits 0. */
#ifndef SWARMCAST_POOL_WORKER_H
#define SWARMCAST_POOL_WORKER_H

/* argv[0] is "worker". The exit status: 0 after a signal, 2 bad options,
 * 1 NATS could not be reached. */
int pool_worker_main(int argc, char **argv);
/* `swarmcast worker --help` (the manual page shows it too). */
extern const char pool_worker_usage[];

#endif

/* pool_protocol: the messages of the NATS pool of experiment workers
 * (`swarmcast experiment run FILE --nats URL` and `swarmcast worker --nats
 * URL`, docs/EXPERIMENTS.md "The NATS pool"): names and encodings only, no
 * I/O, so every decoder can be unit-tested and fuzzed.
 *
 * One JetStream stream per experiment, named from the hash of its
 * self-contained files (experiment.json and design.csv of the output
 * folder), so two sweeps on one NATS never mix:
 *
 *   stream   SWARMCAST_EXP_<hash>   subjects swarmcast.exp.<hash>.>, work-queue retention
 *   swarmcast.exp.<hash>.spec       the experiment (no consumer: stays, read by workers)
 *   swarmcast.exp.<hash>.run        one per run to do (consumer "workers", shared by every worker)
 *   swarmcast.exp.<hash>.result     a run's result, in parts (consumer "coordinator")
 *
 * Every message is one line of JSON (the head), then for spec and result a
 * body of raw bytes whose length the head gives:
 *
 *   spec    {"pool":1,"kind":"spec","experiment":H,"json":N,"table":M}\n + experiment.json + design.csv
 *   run     {"pool":1,"kind":"run","experiment":H,"spec":S,"index":I,"run":ID}
 *           (S: the spec's sequence in the stream, so that a worker reads that
 *           message, not whatever was published on .spec last)
 *   result  {"pool":1,"kind":"result","experiment":H,"index":I,"run":ID,"attempt":A,
 *            "status":"ok"|"failed","why":W,"rows":R,"deliveries":D,
 *            "bytes":B,"offset":O,"parts":P,"part":K}\n + rows[O, O+len)
 *
 * A result whose rows do not fit one message (the server's max payload, 1 MB
 * by default) is cut into parts; the coordinator joins a run's parts in order
 * (same attempt) and writes the run once they are all there. */
#ifndef SWARMCAST_POOL_PROTOCOL_H
#define SWARMCAST_POOL_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POOL_STREAM_PREFIX "SWARMCAST_EXP_"
#define POOL_WORKERS_CONSUMER "workers"
#define POOL_COORDINATOR_CONSUMER "coordinator"

/* The most a head line may hold, and the most one run's rows may be (a run
 * that records more is failed with that reason rather than sent). */
#define POOL_MAX_HEAD 2048
#define POOL_MAX_RESULT_BYTES (256u << 20)
#define POOL_MAX_PARTS 100000u
/* The most a spec (experiment.json + design.csv) may be: one message. */
#define POOL_MAX_SPEC_BYTES (900u << 10)

typedef struct pool_names {
    char hash[17];       /* 16 lowercase hex digits */
    char stream[40];     /* SWARMCAST_EXP_<hash> */
    char all[48];        /* swarmcast.exp.<hash>.> */
    char spec[48], run[48], result[48];
    char max_deliveries[128]; /* the server's advisory when a run was delivered max_deliver times */
} pool_names_t;

/* The experiment's hash: FNV-1a over experiment.json, a zero byte, design.csv. */
uint64_t pool_experiment_hash(const char *json, size_t json_len, const char *table, size_t table_len);
void pool_names_make(uint64_t hash, pool_names_t *n);
/* The names from a stream's name; -1 when it is not one of ours. */
int pool_names_from_stream(const char *stream, pool_names_t *n);

typedef struct pool_spec {
    char hash[17];
    const char *json, *table; /* into the message; not NUL-terminated */
    size_t json_len, table_len;
} pool_spec_t;

typedef struct pool_run {
    char hash[17];
    uint64_t spec_seq;
    uint64_t index;
    uint64_t run_id;
} pool_run_t;

typedef struct pool_result {
    char hash[17];
    uint64_t index, run_id, attempt;
    bool ok;
    char why[300];
    uint64_t rows, deliveries;
    uint64_t bytes, offset; /* the whole rows' length, and where this part's begin */
    uint32_t parts, part;
    const char *body;       /* this part's rows, into the message */
    size_t body_len;
} pool_result_t;

/* Encoders: a malloc'd message in *out (*len bytes). 0, or -1 (no memory). */
int pool_spec_encode(const char *hash, const char *json, size_t json_len, const char *table, size_t table_len,
                     char **out, size_t *len);
int pool_run_encode(const char *hash, uint64_t spec_seq, uint64_t index, uint64_t run_id, char **out, size_t *len);
/* The head of a result part (the caller sends the body after it). */
int pool_result_head(const pool_result_t *r, char *out, size_t out_len);

/* Decoders: 0, or -1 with why (the message is someone else's, or damaged).
 * They check every field's type and range and that the body is as long as
 * the head says; the spec's hash is checked against its content. */
int pool_spec_decode(const char *msg, size_t len, pool_spec_t *s, char *why, size_t why_len);
int pool_run_decode(const char *msg, size_t len, pool_run_t *r, char *why, size_t why_len);
int pool_result_decode(const char *msg, size_t len, pool_result_t *r, char *why, size_t why_len);

/* The stream sequence of the message a max-deliveries advisory is about
 * (its JSON "stream_seq") and the deliveries it says. 0, or -1. */
int pool_advisory_decode(const char *msg, size_t len, uint64_t *stream_seq, uint64_t *deliveries);

/* How many parts `bytes` of rows need with `room` bytes of body per message. */
uint32_t pool_parts_for(uint64_t bytes, size_t room);

#endif

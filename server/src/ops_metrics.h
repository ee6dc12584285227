/* ops_metrics: the application's counters for /metrics — the simulation
 * thread's (ticks, overruns, step times, commands applied, errors) and the
 * loop thread's (commands received, refused, rate-limited) — and their
 * Prometheus text. Each thread writes only its own set; the loop thread
 * renders both from a copy of the simulation's taken under the app lock. */
#ifndef SWARMCAST_OPS_METRICS_H
#define SWARMCAST_OPS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire_errors.h"
#include "sim/commands.h"

/* Every error code the protocol names (protocol/wire_errors.h), then "other". */
#define OPS_ERROR_CODES (WIRE_ERROR_CODES + 1)
/* Command kinds the counters know: the simulation's, then auth. */
#define OPS_CMD_AUTH CMD_COUNT
#define OPS_CMD_KINDS (CMD_COUNT + 1)
#define OPS_STEP_BUCKETS 10

typedef struct sim_counters {
    uint64_t ticks, steps, overruns, snapshots;
    uint64_t step_buckets[OPS_STEP_BUCKETS + 1]; /* the last: +Inf */
    double step_seconds;
    uint64_t applied[OPS_CMD_KINDS];
    uint64_t errors[OPS_ERROR_CODES];
    uint64_t record_bytes;
} sim_counters_t;

typedef struct loop_counters {
    uint64_t received[OPS_CMD_KINDS];
    uint64_t rate_limited[OPS_CMD_KINDS];
    uint64_t errors[OPS_ERROR_CODES];
    uint64_t abuse_closes;
    uint64_t view_requests, view_rate_limited; /* v2 view messages decoded; of them refused for the budget */
    uint64_t state_writes, state_write_failures; /* written on the loop's thread pool, counted on the loop */
} loop_counters_t;

/* What the gauges show. */
typedef struct ops_gauges {
    size_t agents, max_agents;
    bool paused;
    uint64_t tick;
    double uptime_s, since_last_tick_s;
} ops_gauges_t;

void ops_observe_step(sim_counters_t *c, double seconds);
/* Counts one error reply by its wire code. */
void ops_count_error(uint64_t errors[OPS_ERROR_CODES], const char *code);
/* The Prometheus text (malloc'd), or NULL when out of memory. */
char *ops_metrics_text(const sim_counters_t *s, const loop_counters_t *l, const ops_gauges_t *g);

#endif

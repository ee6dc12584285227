/* relay: `swarmcast relay --nats URL`. The same HTTP and WebSocket face as
 * the simulation (static files, /ws, /healthz, /metrics) with no world of
 * its own: it serves swarmcast.v2 viewers from what a simulation publishes
 * over NATS (bridge/), leasing only the views its own viewers need, and
 * forwards their messages to the simulation after checking roles and
 * budgets locally. One loop thread; NATS callbacks arrive on it
 * (nats_link). */
#ifndef SWARMCAST_RELAY_H
#define SWARMCAST_RELAY_H

#include <uv.h>

#include "config.h"

typedef struct relay relay_t;

/* Starts listening and connecting to NATS (it does not wait for a server);
 * NULL (with a message on stderr) on failure. */
relay_t *relay_create(uv_loop_t *loop, const config_t *cfg);
int relay_port(const relay_t *r);
/* The port of /metrics (--metrics-listen), or -1 when off. */
int relay_metrics_port(const relay_t *r);
/* Closes every connection with 1001 and the NATS connection, stops the
 * timers and lets the loop end. */
void relay_shutdown(relay_t *r);
/* After the loop has ended: frees everything (run the loop once more, then
 * uv_loop_close). */
void relay_destroy(relay_t *r);

#endif

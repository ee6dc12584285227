/* app: the running server. Owns the world, steps it at a fixed rate on its
 * own thread, queues the clients' commands and applies them at the start of a
 * tick, and encodes one snapshot per snapshot period for every viewer. */
#ifndef SWARMCAST_APP_H
#define SWARMCAST_APP_H

#include <stdbool.h>
#include <uv.h>

#include "config.h"

typedef struct app app_t;

/* Creates the world and starts listening; NULL (with a message on stderr)
 * on failure. */
app_t *app_create(uv_loop_t *loop, const config_t *cfg);
int app_port(const app_t *a);
/* The port of /metrics (--metrics-listen), or -1 when off. */
int app_metrics_port(const app_t *a);
/* True when an output (--record, --final) could not be written. */
bool app_failed(const app_t *a);
/* Stops ticking, then writes the log's end and the final state (--record,
 * --final), closes every connection with 1001 and lets the loop end. */
void app_shutdown(app_t *a);
/* After the loop has ended: frees everything (run the loop once more, then
 * uv_loop_close). */
void app_destroy(app_t *a);

#endif

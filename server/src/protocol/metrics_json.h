/* metrics_json: the "metrics" message the server broadcasts a few times a
 * second (see protocol/PROTOCOL.md). */
#ifndef SWARMCAST_METRICS_JSON_H
#define SWARMCAST_METRICS_JSON_H

#include "sim/metrics.h"

/* {"type":"metrics","tick":…,"agents":…,"polarization":…,…}; NAN values are
 * sent as null. A malloc'd string (free()), or NULL when out of memory. */
char *msg_metrics(const metrics_t *m);
/* The same with "past":true after the type: the metrics of a tick of the
 * past, to a viewer looking at it (PROTOCOL.md "Timeline"). */
char *msg_metrics_past(const metrics_t *m);

#endif

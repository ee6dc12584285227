/* stream_metrics: the Prometheus text of the stream's figures — views,
 * encode time (the worker's), frames composed and composition cache hits
 * (the loop thread's). */
#ifndef SWARMCAST_STREAM_METRICS_H
#define SWARMCAST_STREAM_METRICS_H

#include <stddef.h>

#include "stream/compose.h"
#include "stream/encoder.h"

typedef struct stream_gauges {
    size_t views;            /* distinct views registered */
    size_t v1_clients, v2_clients;
} stream_gauges_t;

/* malloc'd text, or NULL when out of memory. */
char *stream_metrics_text(const encoder_stats_t *e, const compose_stats_t *c, const stream_gauges_t *g);

#endif

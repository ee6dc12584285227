/* metrics_past: the metrics a room computed, by tick, for the timeline. A
 * viewer looking at tick T of the past is sent the metrics of T (the newest
 * row at or before T), as a live viewer read them then, so that the page's
 * plots give the values of that moment even for ticks from before the page
 * opened (PROTOCOL.md "Timeline"). The rows are the live broadcasts'
 * (about --metrics-hz a second) and, for a run stepped into the past when
 * its room was made, the ones computed on the way. A ring of at most
 * max_rows (about 100 bytes each): the oldest go first. A tick not after
 * the newest (a reset) starts the past again, as the history does.
 *
 * Threads: the simulation thread adds, the loop looks up; a mutex keeps
 * them apart (a lookup copies one row). */
#ifndef SWARMCAST_METRICS_PAST_H
#define SWARMCAST_METRICS_PAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/metrics.h"

typedef struct metrics_past metrics_past_t;

/* NULL when out of memory (or max_rows 0). */
metrics_past_t *metrics_past_create(size_t max_rows);
void metrics_past_destroy(metrics_past_t *p);
void metrics_past_add(metrics_past_t *p, const metrics_t *m);
/* The newest row whose tick is at or before `tick` into *out: false when none is kept. */
bool metrics_past_at(metrics_past_t *p, uint64_t tick, metrics_t *out);
size_t metrics_past_rows(metrics_past_t *p);

#endif

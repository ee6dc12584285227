/* encoder: the worker thread between the simulation and the network. The
 * simulation thread submits a copy of the world (newest wins: a snapshot
 * the worker had no time for is replaced); the worker quantizes it once
 * (by agent id when a detail view is registered; else in one pass over
 * the copy that also sums the LOD views and the census: lod_pass.h),
 * steps every registered view's encoder once (so the work grows with the
 * number of distinct views, never with the number of viewers), encodes the
 * v1 frame if a v1 client wants it, and hands the bundle to the loop thread
 * (uv_async). The loop thread registers the views and takes the bundles. */
#ifndef SWARMCAST_ENCODER_H
#define SWARMCAST_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "protocol/wire2.h"
#include "sim/world.h"
#include "stream/bundle.h"

typedef struct encoder encoder_t;

typedef struct view_spec {
    uint32_t id; /* never reused: a new view with an old rect is a new id */
    wire2_rect_t rect;
    wire2_mode_t mode;
} view_spec_t;

typedef struct encoder_stats {
    uint64_t snapshots;      /* encoded */
    uint64_t replaced;       /* submitted, then replaced by a newer one before the worker took it */
    double seconds_total, seconds_max, seconds_last; /* quantize + every view + v1, per snapshot */
    size_t views;            /* encoders alive */
    uint64_t v1_frames;
    /* How the snapshots were made: quantized by agent id for a detail
     * view, or summed in one pass over the copy (no view, or LOD views
     * only; stream/lod_pass.h): /metrics' encode_snapshots_by_path. */
    uint64_t by_id, summed;
} encoder_stats_t;

/* on_bundles runs on the loop thread when bundles are ready (encoder_take). */
encoder_t *encoder_create(uv_loop_t *loop, size_t v1_headroom, void (*on_bundles)(void *user), void *user);
/* Simulation thread: hands a large world (a million agents: 21 MB to copy)
 * over to be copied for the worker by the encoder's copier thread while
 * the simulation thread goes on (it must not change the world until
 * encoder_wait_copied returns); a smaller one (or any, without a copier) it
 * copies at once. 0, or -1 when out of memory (the copier says so itself). */
int encoder_submit(encoder_t *e, const world_t *w);
/* Simulation thread: returns once the world handed over is copied (at
 * once when there is none); call before changing or freeing the world. */
void encoder_wait_copied(encoder_t *e);
/* Loop thread: the views to encode from the next snapshot on (copied). */
int encoder_set_views(encoder_t *e, const view_spec_t *views, size_t n);
/* Loop thread: whether to encode v1 frames too. */
void encoder_want_v1(encoder_t *e, bool want);
/* Loop thread: the bundles made since the last call, oldest first (a list
 * through next; bundle_free each), or NULL. */
bundle_t *encoder_take(encoder_t *e);
void encoder_get_stats(encoder_t *e, encoder_stats_t *out);
/* Loop thread: stops the worker and closes the async handle (run the loop
 * once more before encoder_destroy). */
void encoder_stop(encoder_t *e);
void encoder_destroy(encoder_t *e);

#endif

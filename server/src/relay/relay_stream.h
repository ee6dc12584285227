/* relay_stream: a relay's side of the v2 stream. It keeps, per view
 * subject it listens to, the newest view message (its chunks copied into
 * refcounted buffers), and when the snapshot message of seq S arrives it
 * builds the bundle_t that compose_apply takes, exactly as the encoder
 * would have: one entry per local view that has a message of seq S.
 *
 * Continuity: a local view's delta and key-delta go into the bundle only
 * when the same simulation view (same sim_view_id, same subject) fed it at
 * seq S − 1; otherwise they are dropped and its clients get the key. The
 * simulation publishes every leased view's key every snapshot, so a late
 * joiner always has one. Loop thread only. */
#ifndef SWARMCAST_RELAY_STREAM_H
#define SWARMCAST_RELAY_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "bridge/bridge_msg.h"
#include "protocol/wire2.h"
#include "stream/bundle.h"

typedef struct relay_stream relay_stream_t;

/* A local view (the relay's views registry) and the simulation view
 * (mode, rect) the simulation granted for it. */
typedef struct relay_local_view {
    uint32_t view_id;
    wire2_mode_t mode;
    wire2_rect_t granted;
} relay_local_view_t;

relay_stream_t *relay_stream_create(void);
void relay_stream_destroy(relay_stream_t *s);
/* Keeps v (decoded from a view message) as the newest of its (mode, rect),
 * replacing an older one. 0, or -1 when out of memory. */
int relay_stream_put_view(relay_stream_t *s, const bridge_view_t *v);
/* Drops what is kept for (mode, rect): no longer listened to. */
void relay_stream_forget(relay_stream_t *s, wire2_mode_t mode, wire2_rect_t rect);
/* The bundle of snapshot snap for these local views (caller frees it with
 * bundle_free), or NULL when out of memory. */
bundle_t *relay_stream_bundle(relay_stream_t *s, const bridge_snapshot_t *snap, const relay_local_view_t *locals,
                              size_t n_locals);
/* Forgets every message and every view's continuity (the simulation restarted). */
void relay_stream_reset(relay_stream_t *s);
/* Views (subjects) with a message kept. */
size_t relay_stream_count(const relay_stream_t *s);

#endif

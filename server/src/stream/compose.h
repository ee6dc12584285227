/* compose: turns the encoder's chunks into each v2 client's next frame, on
 * the loop thread, at the moment the client can write. A client that holds
 * its view at seq − 1 gets the delta; one that lags by at most
 * COMPOSE_CHAIN deltas gets the chain of them; any other (new, switched
 * view, too far behind) gets the key. A client whose last chunk was a key
 * holds no motion yet (PROTOCOL.md: after a key px = rx): the first link
 * of its next chain is the key-delta, then regular deltas. The scene goes
 * with a client's first frame and whenever it changed since its last. A
 * frame is built once per (view, lag, after a key, scene) and shared by
 * every client that needs that recipe (refcounted buffers with the
 * WebSocket headroom in front). */
#ifndef SWARMCAST_COMPOSE_H
#define SWARMCAST_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/bundle.h"

#define COMPOSE_CHAIN 3 /* deltas kept per view: a client this far behind still gets a chain */

typedef struct compose compose_t;

typedef struct compose_stats {
    uint64_t frames_composed; /* built */
    uint64_t cache_hits;      /* handed out again without building */
    uint64_t keys, deltas, chains; /* frames handed out, by recipe */
} compose_stats_t;

compose_t *compose_create(size_t slots, size_t headroom);
void compose_destroy(compose_t *c);
/* The newest bundle (the caller keeps ownership; compose takes references). */
void compose_apply(compose_t *c, const bundle_t *b);
/* The frame for the client in slot watching view_id: 1 with *data (after
 * the headroom) and *len set, valid until the next compose_apply; 0 when it
 * has nothing new (up to date, or its view is not encoded yet). The
 * client then counts as having been sent it. */
int compose_frame(compose_t *c, size_t slot, uint32_t client_id, uint32_t view_id, const uint8_t **data, size_t *len);
/* The client in slot holds nothing of the stream any more (it was sent
 * other frames: the timeline's past): its next frame is a key with the scene. */
void compose_forget(compose_t *c, size_t slot);
void compose_get_stats(const compose_t *c, compose_stats_t *out);

#endif

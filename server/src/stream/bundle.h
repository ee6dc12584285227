/* bundle: everything the encoder worker made of one snapshot, handed to
 * the loop thread whole: per view its key chunk and its delta chunk, the
 * frame headers (without and with the scene), the v1 frame when a v1
 * client is connected, and the census for choosing views' modes. */
#ifndef SWARMCAST_BUNDLE_H
#define SWARMCAST_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/count_grid.h"
#include "stream/shared_buf.h"

typedef struct bundle_view {
    uint32_t view_id;
    shared_buf_t *key;   /* the view's state at seq; NULL if encoding failed */
    shared_buf_t *delta; /* seq − 1 → seq for a client that followed the deltas; NULL for a view new at this seq */
    shared_buf_t *key_delta; /* seq − 1 → seq for a client whose last chunk was the key of seq − 1 */
} bundle_view_t;

typedef struct bundle {
    struct bundle *next; /* the loop takes bundles as a list, oldest first */
    uint32_t seq;
    uint32_t scene_version; /* +1 whenever the scene differs from the previous snapshot's */
    shared_buf_t *header;       /* frame header, no scene, n_chunks 0 */
    shared_buf_t *header_scene; /* frame header with the scene, n_chunks 0 */
    shared_buf_t *v1;           /* the v1 frame (with LWS headroom), or NULL */
    bundle_view_t *views;
    size_t n_views;
    count_grid_t grid;
} bundle_t;

/* Releases the bundle's references (and the bundle). NULL-safe; not the list. */
void bundle_free(bundle_t *b);

#endif

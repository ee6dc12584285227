/* shared_buf: a reference-counted byte buffer, so that one encoded chunk or
 * composed frame can be held by several owners (a bundle, a view's delta
 * ring, the composition cache) and freed by the last. Payload bytes sit
 * after `headroom` free bytes (libwebsockets writes its frame header there).
 * The count is atomic: a buffer made on the encoder worker is released on
 * the loop thread. */
#ifndef SWARMCAST_SHARED_BUF_H
#define SWARMCAST_SHARED_BUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct shared_buf {
    atomic_uint refs;
    size_t headroom, len;
    uint8_t *mem; /* headroom + len bytes */
} shared_buf_t;

/* A buffer of len payload bytes (uninitialised) after headroom bytes, one
 * reference; NULL when out of memory. */
shared_buf_t *shared_buf_new(size_t headroom, size_t len);
/* Takes ownership of mem (malloc'd, len payload bytes, no headroom). */
shared_buf_t *shared_buf_adopt(uint8_t *mem, size_t len);
static inline uint8_t *shared_buf_data(const shared_buf_t *b) { return b->mem + b->headroom; }
/* NULL-safe. */
shared_buf_t *shared_buf_ref(shared_buf_t *b);
void shared_buf_unref(shared_buf_t *b);

#endif

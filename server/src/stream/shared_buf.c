#include "stream/shared_buf.h"

#include <stdlib.h>

shared_buf_t *shared_buf_new(size_t headroom, size_t len)
{
    shared_buf_t *b = malloc(sizeof *b);
    if (!b) return NULL;
    if (!(b->mem = malloc(headroom + len + 1))) {
        free(b);
        return NULL;
    }
    atomic_init(&b->refs, 1);
    b->headroom = headroom;
    b->len = len;
    return b;
}

shared_buf_t *shared_buf_adopt(uint8_t *mem, size_t len)
{
    shared_buf_t *b = malloc(sizeof *b);
    if (!b) return NULL;
    atomic_init(&b->refs, 1);
    b->headroom = 0;
    b->len = len;
    b->mem = mem;
    return b;
}

shared_buf_t *shared_buf_ref(shared_buf_t *b)
{
    if (b) atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void shared_buf_unref(shared_buf_t *b)
{
    if (!b || atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1) return;
    free(b->mem);
    free(b);
}

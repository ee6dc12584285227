#include "stream/bundle.h"

#include <stdlib.h>

void bundle_free(bundle_t *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n_views; i++) {
        shared_buf_unref(b->views[i].key);
        shared_buf_unref(b->views[i].delta);
        shared_buf_unref(b->views[i].key_delta);
    }
    free(b->views);
    shared_buf_unref(b->header);
    shared_buf_unref(b->header_scene);
    shared_buf_unref(b->v1);
    free(b);
}

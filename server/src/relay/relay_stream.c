#include "relay/relay_stream.h"

#include <stdlib.h>
#include <string.h>

/* The newest message of one simulation view. */
typedef struct kept {
    wire2_mode_t mode;
    wire2_rect_t rect;
    uint32_t seq, sim_view_id;
    shared_buf_t *key, *delta, *key_delta;
} kept_t;

/* What fed a local view in the last bundle it was in. */
typedef struct fed {
    uint32_t view_id;
    uint32_t seq, sim_view_id;
} fed_t;

struct relay_stream {
    kept_t *kept;
    size_t n_kept, cap_kept;
    fed_t *fed;
    size_t n_fed;
};

relay_stream_t *relay_stream_create(void) { return calloc(1, sizeof(relay_stream_t)); }

static void kept_clear(kept_t *k)
{
    shared_buf_unref(k->key);
    shared_buf_unref(k->delta);
    shared_buf_unref(k->key_delta);
    k->key = k->delta = k->key_delta = NULL;
}

void relay_stream_reset(relay_stream_t *s)
{
    for (size_t i = 0; i < s->n_kept; i++) kept_clear(&s->kept[i]);
    s->n_kept = 0;
    free(s->fed);
    s->fed = NULL;
    s->n_fed = 0;
}

void relay_stream_destroy(relay_stream_t *s)
{
    if (!s) return;
    relay_stream_reset(s);
    free(s->kept);
    free(s);
}

size_t relay_stream_count(const relay_stream_t *s) { return s->n_kept; }

static kept_t *find(relay_stream_t *s, wire2_mode_t mode, wire2_rect_t rect)
{
    for (size_t i = 0; i < s->n_kept; i++)
        if (s->kept[i].mode == mode && wire2_rect_equal(s->kept[i].rect, rect)) return &s->kept[i];
    return NULL;
}

/* A copy of a part (no headroom: compose copies chunks into each frame). */
static int copy_part(const bridge_bytes_t *b, shared_buf_t **out)
{
    *out = NULL;
    if (!b->present) return 0;
    if (!(*out = shared_buf_new(0, b->len))) return -1;
    if (b->len) memcpy(shared_buf_data(*out), b->data, b->len);
    return 0;
}

int relay_stream_put_view(relay_stream_t *s, const bridge_view_t *v)
{
    shared_buf_t *key, *delta, *key_delta;
    if (copy_part(&v->key, &key)) return -1;
    if (copy_part(&v->delta, &delta)) {
        shared_buf_unref(key);
        return -1;
    }
    if (copy_part(&v->key_delta, &key_delta)) {
        shared_buf_unref(key);
        shared_buf_unref(delta);
        return -1;
    }
    kept_t *k = find(s, v->mode, v->rect);
    if (!k) {
        if (s->n_kept == s->cap_kept) {
            size_t cap = s->cap_kept ? 2 * s->cap_kept : 8;
            kept_t *grown = realloc(s->kept, cap * sizeof *grown);
            if (!grown) {
                shared_buf_unref(key);
                shared_buf_unref(delta);
                shared_buf_unref(key_delta);
                return -1;
            }
            s->kept = grown;
            s->cap_kept = cap;
        }
        k = &s->kept[s->n_kept++];
        *k = (kept_t){.mode = v->mode, .rect = v->rect};
    }
    kept_clear(k);
    k->seq = v->seq;
    k->sim_view_id = v->sim_view_id;
    k->key = key;
    k->delta = delta;
    k->key_delta = key_delta;
    return 0;
}

void relay_stream_forget(relay_stream_t *s, wire2_mode_t mode, wire2_rect_t rect)
{
    kept_t *k = find(s, mode, rect);
    if (!k) return;
    kept_clear(k);
    *k = s->kept[--s->n_kept];
}

static const fed_t *fed_of(const relay_stream_t *s, uint32_t view_id)
{
    for (size_t i = 0; i < s->n_fed; i++)
        if (s->fed[i].view_id == view_id) return &s->fed[i];
    return NULL;
}

static shared_buf_t *buf_of(const bridge_bytes_t *b)
{
    shared_buf_t *buf = shared_buf_new(0, b->len);
    if (buf && b->len) memcpy(shared_buf_data(buf), b->data, b->len);
    return buf;
}

bundle_t *relay_stream_bundle(relay_stream_t *s, const bridge_snapshot_t *snap, const relay_local_view_t *locals,
                              size_t n_locals)
{
    bundle_t *b = calloc(1, sizeof *b);
    fed_t *fed = calloc(n_locals ? n_locals : 1, sizeof *fed);
    if (!b || !fed || (n_locals && !(b->views = calloc(n_locals, sizeof *b->views)))) goto fail;
    b->seq = snap->seq;
    b->scene_version = snap->scene_version;
    b->grid = snap->grid;
    if (!(b->header = buf_of(&snap->header)) || !(b->header_scene = buf_of(&snap->header_scene))) goto fail;
    size_t n_fed = 0;
    for (size_t i = 0; i < n_locals; i++) {
        const relay_local_view_t *l = &locals[i];
        const kept_t *k = find(s, l->mode, l->granted);
        if (!k || k->seq != snap->seq || !k->key) continue;
        const fed_t *before = fed_of(s, l->view_id);
        bool follows = before && before->seq == snap->seq - 1 && before->sim_view_id == k->sim_view_id;
        bundle_view_t *bv = &b->views[b->n_views++];
        bv->view_id = l->view_id;
        bv->key = shared_buf_ref(k->key);
        bv->delta = follows ? shared_buf_ref(k->delta) : NULL;
        bv->key_delta = follows ? shared_buf_ref(k->key_delta) : NULL;
        fed[n_fed++] = (fed_t){l->view_id, snap->seq, k->sim_view_id};
    }
    free(s->fed);
    s->fed = fed;
    s->n_fed = n_fed;
    return b;
fail:
    free(fed);
    bundle_free(b);
    return NULL;
}

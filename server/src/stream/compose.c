#include "stream/compose.h"

#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"

/* The frame header's n_chunks field (PROTOCOL.md, "Frame"). */
#define N_CHUNKS_OFFSET 16

typedef struct stream {
    uint32_t view_id;
    shared_buf_t *key;                   /* the view at the newest seq */
    shared_buf_t *deltas[COMPOSE_CHAIN]; /* [i]: seq − i − 1 → seq − i; NULL where missing */
    shared_buf_t *key_deltas[COMPOSE_CHAIN]; /* the same links for a client holding the key of seq − i − 1 */
    shared_buf_t *cache[COMPOSE_CHAIN + 1][2][2]; /* [lag, 0 = key][after a key][scene] */
} stream_t;

/* What one client (by slot) was last sent. */
typedef struct sent {
    uint32_t client_id;
    uint32_t view_id; /* 0: nothing yet */
    uint32_t seq;
    bool holds_key; /* its last chunk was a key (of seq) */
    bool scene_known;
    uint32_t scene_version;
    size_t hint; /* index of its stream last time */
} sent_t;

struct compose {
    size_t headroom;
    stream_t *streams;
    size_t n_streams;
    bool have;
    uint32_t seq, scene_version;
    shared_buf_t *header, *header_scene;
    sent_t *sent;
    size_t n_slots;
    compose_stats_t stats;
};

compose_t *compose_create(size_t slots, size_t headroom)
{
    compose_t *c = calloc(1, sizeof *c);
    if (!c || !(c->sent = calloc(slots ? slots : 1, sizeof *c->sent))) {
        free(c);
        return NULL;
    }
    c->n_slots = slots;
    c->headroom = headroom;
    return c;
}

static void clear_cache(stream_t *s)
{
    for (int l = 0; l <= COMPOSE_CHAIN; l++)
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 2; k++) {
                shared_buf_unref(s->cache[l][a][k]);
                s->cache[l][a][k] = NULL;
            }
}

static void stream_free(stream_t *s)
{
    clear_cache(s);
    shared_buf_unref(s->key);
    for (int i = 0; i < COMPOSE_CHAIN; i++) {
        shared_buf_unref(s->deltas[i]);
        shared_buf_unref(s->key_deltas[i]);
    }
}

void compose_destroy(compose_t *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n_streams; i++) stream_free(&c->streams[i]);
    free(c->streams);
    shared_buf_unref(c->header);
    shared_buf_unref(c->header_scene);
    free(c->sent);
    free(c);
}

static stream_t *find(compose_t *c, uint32_t view_id, size_t *hint)
{
    if (*hint < c->n_streams && c->streams[*hint].view_id == view_id) return &c->streams[*hint];
    for (size_t i = 0; i < c->n_streams; i++)
        if (c->streams[i].view_id == view_id) {
            *hint = i;
            return &c->streams[i];
        }
    return NULL;
}

void compose_apply(compose_t *c, const bundle_t *b)
{
    stream_t *next = calloc(b->n_views ? b->n_views : 1, sizeof *next);
    if (!next) return; /* out of memory: clients keep the previous snapshot */
    bool consecutive = c->have && b->seq == c->seq + 1;
    for (size_t i = 0; i < b->n_views; i++) {
        const bundle_view_t *bv = &b->views[i];
        stream_t *s = &next[i];
        size_t hint = i;
        stream_t *old = find(c, bv->view_id, &hint);
        s->view_id = bv->view_id;
        s->key = shared_buf_ref(bv->key);
        s->deltas[0] = shared_buf_ref(bv->delta);
        s->key_deltas[0] = shared_buf_ref(bv->key_delta);
        /* The older deltas carry over only when no snapshot was lost between. */
        if (old && consecutive && bv->delta && bv->key_delta)
            for (int k = 1; k < COMPOSE_CHAIN; k++) {
                s->deltas[k] = shared_buf_ref(old->deltas[k - 1]);
                s->key_deltas[k] = shared_buf_ref(old->key_deltas[k - 1]);
            }
    }
    for (size_t i = 0; i < c->n_streams; i++) stream_free(&c->streams[i]);
    free(c->streams);
    c->streams = next;
    c->n_streams = b->n_views;
    shared_buf_unref(c->header);
    shared_buf_unref(c->header_scene);
    c->header = shared_buf_ref(b->header);
    c->header_scene = shared_buf_ref(b->header_scene);
    c->seq = b->seq;
    c->scene_version = b->scene_version;
    c->have = true;
}

/* header + the chunks of a recipe, in one buffer with headroom. */
static shared_buf_t *build(compose_t *c, const stream_t *s, int lag, bool after_key, bool scene)
{
    const shared_buf_t *header = scene ? c->header_scene : c->header;
    const shared_buf_t *parts[COMPOSE_CHAIN];
    int n = 0;
    if (lag == 0)
        parts[n++] = s->key;
    else
        for (int k = lag - 1; k >= 0; k--) /* oldest first */
            parts[n++] = k == lag - 1 && after_key ? s->key_deltas[k] : s->deltas[k];
    size_t len = header->len;
    for (int k = 0; k < n; k++) len += parts[k]->len;
    shared_buf_t *f = shared_buf_new(c->headroom, len);
    if (!f) return NULL;
    uint8_t *p = shared_buf_data(f);
    memcpy(p, shared_buf_data(header), header->len);
    p[N_CHUNKS_OFFSET] = (uint8_t)n;
    p[N_CHUNKS_OFFSET + 1] = 0;
    p += header->len;
    for (int k = 0; k < n; k++) {
        memcpy(p, shared_buf_data(parts[k]), parts[k]->len);
        p += parts[k]->len;
    }
    return f;
}

int compose_frame(compose_t *c, size_t slot, uint32_t client_id, uint32_t view_id, const uint8_t **data, size_t *len)
{
    if (slot >= c->n_slots || !c->have || !c->header || !c->header_scene) return 0;
    sent_t *t = &c->sent[slot];
    if (t->client_id != client_id) *t = (sent_t){.client_id = client_id};
    stream_t *s = find(c, view_id, &t->hint);
    if (!s || !s->key) return 0;
    bool same_view = t->view_id == view_id;
    if (same_view && t->seq == c->seq) return 0;
    int lag = 0;
    if (same_view && c->seq - t->seq <= COMPOSE_CHAIN) {
        lag = (int)(c->seq - t->seq);
        for (int k = 0; k < lag; k++)
            if (!s->deltas[k] || (k == lag - 1 && t->holds_key && !s->key_deltas[k])) lag = 0;
    }
    bool after_key = lag > 0 && t->holds_key;
    bool scene = !t->scene_known || t->scene_version != c->scene_version;
    shared_buf_t **slot_cache = &s->cache[lag][after_key][scene];
    if (*slot_cache) {
        c->stats.cache_hits++;
    } else {
        if (!(*slot_cache = build(c, s, lag, after_key, scene))) return 0;
        c->stats.frames_composed++;
    }
    if (lag == 0)
        c->stats.keys++;
    else if (lag == 1)
        c->stats.deltas++;
    else
        c->stats.chains++;
    /* Handed out is as good as sent: a write that fails closes the client. */
    t->view_id = view_id;
    t->seq = c->seq;
    t->holds_key = lag == 0;
    t->scene_known = true;
    t->scene_version = c->scene_version;
    *data = shared_buf_data(*slot_cache);
    *len = (*slot_cache)->len;
    return 1;
}

void compose_forget(compose_t *c, size_t slot)
{
    if (slot < c->n_slots) c->sent[slot] = (sent_t){0};
}

void compose_get_stats(const compose_t *c, compose_stats_t *out) { *out = c->stats; }

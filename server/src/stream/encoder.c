/* pthread_setname_np: the worker is named in top, perf and the fan-out probe. */
#define _GNU_SOURCE
#include "stream/encoder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "protocol/snapshot.h"
#include "stream/capture.h"
#include "stream/lod_pass.h"

/* From this many agents on a snapshot's copy (21 bytes an agent: 1.4 MB
 * here, a fraction of a millisecond) is handed to the copier thread, which
 * starts with the first such world; a smaller one is copied at once, so
 * that the rooms of ordinary size keep their three threads. */
#define COPY_ASYNC_FROM 65536

/* Bundles the loop has not taken yet: past this many the oldest is
 * dropped (its views' rings then have a gap, and clients get keys). */
#define MAX_PENDING_BUNDLES 8

typedef struct view_encoder {
    uint32_t id;
    wire2_view_enc_t *enc;
} view_encoder_t;

struct encoder {
    uv_loop_t *loop;
    uv_async_t wake;
    void (*on_bundles)(void *);
    void *user;
    size_t v1_headroom;
    pthread_t thread;
    bool started;
    pthread_t copier;
    bool copier_started, copier_failed; /* the simulation thread's (encoder_submit), then encoder_stop's */

    /* The copier's (the simulation thread's when there is no copier). */
    capture_t filling;

    /* Worker only. */
    capture_t scene_prev;
    bool have_scene;
    uint32_t seq, scene_version;
    wire2_world_t q;
    view_encoder_t *encs;
    size_t n_encs;
    view_spec_t *specs; /* the worker's copy of the list */
    size_t n_specs, specs_cap;
    wire2_view_enc_t **lods; /* n_encs entries: for lod_pass */
    bool last_by_id;          /* how encode made its last snapshot */

    /* Shared, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* A world to copy (the simulation thread leaves it alone until the
     * copy is done), the copier's wake-up and the simulation's. */
    const world_t *source;
    pthread_cond_t copy_cond, copied_cond;
    bool stop, fresh, want_v1;
    capture_t ready, working; /* working: the worker's while it encodes (swapped under lock) */
    view_spec_t *views;
    size_t n_views;
    uint64_t views_gen, specs_gen;
    bundle_t *pending_head, *pending_tail;
    size_t n_pending;
    encoder_stats_t stats;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_wake(uv_async_t *h)
{
    encoder_t *e = h->data;
    e->on_bundles(e->user);
}

/* ---- worker ---------------------------------------------------------------- */

static int index_of(const encoder_t *e, uint32_t id)
{
    for (size_t i = 0; i < e->n_encs; i++)
        if (e->encs[i].id == id) return (int)i;
    return -1;
}

/* Encoders for exactly the registered views, in the list's order: new
 * views get a fresh encoder (their first step makes no delta), dropped
 * ones are freed. */
static int sync_encoders(encoder_t *e)
{
    /* Room for lod_pass's list first: nothing changes when it fails. */
    wire2_view_enc_t **lods = realloc(e->lods, (e->n_specs ? e->n_specs : 1) * sizeof *lods);
    if (!lods) return -1;
    e->lods = lods;
    view_encoder_t *next = calloc(e->n_specs ? e->n_specs : 1, sizeof *next);
    if (!next) return -1;
    for (size_t i = 0; i < e->n_specs; i++) {
        int k = index_of(e, e->specs[i].id);
        if (k >= 0) {
            next[i] = e->encs[k];
            e->encs[k].enc = NULL;
        } else {
            next[i] = (view_encoder_t){e->specs[i].id, wire2_view_enc_new(e->specs[i].rect, e->specs[i].mode)};
        }
    }
    for (size_t k = 0; k < e->n_encs; k++) wire2_view_enc_free(e->encs[k].enc);
    free(e->encs);
    e->encs = next;
    e->n_encs = e->n_specs;
    return 0;
}

/* Whether every view is a LOD view (or there is none): then the snapshot
 * is one pass over its copy (lod_pass.h), without the world by id. */
static bool lod_only(const encoder_t *e)
{
    for (size_t i = 0; i < e->n_encs; i++)
        if (e->encs[i].enc && wire2_view_enc_mode(e->encs[i].enc) != WIRE2_LOD) return false;
    return true;
}

static shared_buf_t *adopt(wire2_chunk_t *c)
{
    if (!c->buf) return NULL;
    shared_buf_t *b = shared_buf_adopt(c->buf, c->len);
    if (!b) wire2_chunk_free(c);
    return b;
}

static shared_buf_t *make_header(const wire2_world_t *q, uint32_t population, const snap_view_t *scene)
{
    size_t size = wire2_frame_header_size(scene);
    shared_buf_t *b = shared_buf_new(0, size);
    if (b && wire2_frame_header(shared_buf_data(b), size, q, population, scene, 0) != size) {
        shared_buf_unref(b);
        return NULL;
    }
    return b;
}

/* One snapshot (in e->working) → one bundle; NULL when out of memory. */
static bundle_t *encode(encoder_t *e, bool want_v1)
{
    const capture_t *c = &e->working;
    snap_view_t v;
    capture_view(c, &v);
    bundle_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->seq = ++e->seq;
    /* head: the snapshot's fields that are not per agent (for the headers). */
    const wire2_world_t *head = &e->q;
    wire2_world_t summed;
    bool by_id = e->last_by_id = !lod_only(e);
    if (by_id) {
        if (wire2_world_quantize(&e->q, &v, b->seq)) goto fail;
    } else {
        for (size_t i = 0; i < e->n_encs; i++) e->lods[i] = e->encs[i].enc;
        if (lod_pass(&v, b->seq, e->lods, e->n_encs, &b->grid, &summed)) goto fail;
        head = &summed;
    }
    uint32_t population = (uint32_t)(v.n + v.n_predators);
    if (!e->have_scene || capture_scene_differs(&e->scene_prev, c)) {
        e->scene_version++;
        e->have_scene = capture_copy_scene(&e->scene_prev, c) == 0;
    }
    b->scene_version = e->scene_version;
    if (!(b->header = make_header(head, population, NULL)) || !(b->header_scene = make_header(head, population, &v)))
        goto fail;
    if (!(b->views = calloc(e->n_encs ? e->n_encs : 1, sizeof *b->views))) goto fail;
    b->n_views = e->n_encs;
    for (size_t i = 0; i < e->n_encs; i++) {
        bundle_view_t *bv = &b->views[i];
        bv->view_id = e->encs[i].id;
        wire2_chunk_t key = {0}, delta = {0}, key_delta = {0};
        wire2_view_enc_t *enc = e->encs[i].enc;
        if (enc && (by_id ? wire2_view_enc_step(enc, &e->q, &key, &delta, &key_delta)
                          : wire2_view_enc_lod_end(enc, head, &key, &delta, &key_delta)) == 0) {
            bv->key = adopt(&key);
            bv->delta = adopt(&delta);
            bv->key_delta = adopt(&key_delta);
        }
    }
    if (want_v1) {
        shared_buf_t *f = shared_buf_new(e->v1_headroom, snap_size(&v));
        if (f && (f->len = snap_encode(&v, shared_buf_data(f), f->len)) == 0) {
            shared_buf_unref(f);
            f = NULL;
        }
        b->v1 = f;
    }
    if (by_id) count_grid_build(&b->grid, &e->q);
    return b;
fail:
    bundle_free(b);
    return NULL;
}

static void *worker_main(void *arg)
{
    encoder_t *e = arg;
    pthread_setname_np(pthread_self(), "swarmcast-enc");
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && !e->fresh) pthread_cond_wait(&e->cond, &e->lock);
        if (e->stop) break;
        capture_t taken = e->ready;
        e->ready = e->working;
        e->working = taken;
        e->fresh = false;
        bool want_v1 = e->want_v1;
        bool views_changed = e->views_gen != e->specs_gen;
        if (views_changed) {
            if (e->n_views > e->specs_cap) {
                view_spec_t *grown = realloc(e->specs, e->n_views * sizeof *grown);
                if (grown) e->specs = grown, e->specs_cap = e->n_views;
            }
            if (e->n_views <= e->specs_cap) {
                if (e->n_views) memcpy(e->specs, e->views, e->n_views * sizeof *e->specs);
                e->n_specs = e->n_views;
                e->specs_gen = e->views_gen;
            }
        }
        pthread_mutex_unlock(&e->lock);

        double began = now_s();
        if (views_changed && sync_encoders(e)) fprintf(stderr, "swarmcast: encoder: out of memory for the views\n");
        bundle_t *b = encode(e, want_v1);
        double took = now_s() - began;
        if (!b) fprintf(stderr, "swarmcast: encoder: out of memory; snapshot %u not sent\n", (unsigned)e->seq);

        pthread_mutex_lock(&e->lock);
        e->stats.snapshots++;
        e->stats.seconds_total += took;
        e->stats.seconds_last = took;
        if (took > e->stats.seconds_max) e->stats.seconds_max = took;
        e->stats.views = e->n_encs;
        if (b && b->v1) e->stats.v1_frames++;
        if (b && e->last_by_id)
            e->stats.by_id++;
        else if (b)
            e->stats.summed++;
        if (b) {
            if (e->pending_tail)
                e->pending_tail->next = b;
            else
                e->pending_head = b;
            e->pending_tail = b;
            if (++e->n_pending > MAX_PENDING_BUNDLES) {
                bundle_t *old = e->pending_head;
                e->pending_head = old->next;
                e->n_pending--;
                bundle_free(old);
            }
            uv_async_send(&e->wake);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Under lock: the copy in filling becomes the snapshot the worker takes next. */
static void hand_over_filled(encoder_t *e)
{
    if (e->fresh) e->stats.replaced++;
    capture_t filled = e->filling;
    e->filling = e->ready;
    e->ready = filled;
    e->fresh = true;
    pthread_cond_signal(&e->cond);
}

/* The copier: copies the world the simulation thread handed over while
 * that thread goes on (to its sleep until the next tick), so that a large
 * world's copy (a million agents: 21 MB) is not part of its tick. It
 * finishes a copy it was handed before it stops. */
static void *copier_main(void *arg)
{
    encoder_t *e = arg;
    pthread_setname_np(pthread_self(), "swarmcast-copy");
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && !e->source) pthread_cond_wait(&e->copy_cond, &e->lock);
        if (!e->source) break; /* stopped */
        const world_t *w = e->source;
        pthread_mutex_unlock(&e->lock);
        const int rc = capture_world(&e->filling, w);
        if (rc) fprintf(stderr, "swarmcast: out of memory for a copy of the world; snapshot not sent\n");
        pthread_mutex_lock(&e->lock);
        if (!rc) hand_over_filled(e);
        e->source = NULL;
        pthread_cond_broadcast(&e->copied_cond);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* ---- the other threads ------------------------------------------------------- */

encoder_t *encoder_create(uv_loop_t *loop, size_t v1_headroom, void (*on_bundles)(void *user), void *user)
{
    encoder_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->loop = loop;
    e->on_bundles = on_bundles;
    e->user = user;
    e->v1_headroom = v1_headroom;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    pthread_cond_init(&e->copy_cond, NULL);
    pthread_cond_init(&e->copied_cond, NULL);
    uv_async_init(loop, &e->wake, on_wake);
    e->wake.data = e;
    if (pthread_create(&e->thread, NULL, worker_main, e)) {
        uv_close((uv_handle_t *)&e->wake, NULL);
        return e; /* started stays false: encoder_destroy frees it after the loop ran */
    }
    e->started = true;
    return e;
}

int encoder_submit(encoder_t *e, const world_t *w)
{
    /* Without a copier the simulation thread copies. */
    if (w->n >= COPY_ASYNC_FROM && !e->copier_started && e->started && !e->copier_failed)
        e->copier_failed = !(e->copier_started = pthread_create(&e->copier, NULL, copier_main, e) == 0);
    if (e->copier_started && w->n >= COPY_ASYNC_FROM) {
        encoder_wait_copied(e); /* one copy at a time */
        pthread_mutex_lock(&e->lock);
        e->source = w;
        pthread_cond_signal(&e->copy_cond);
        pthread_mutex_unlock(&e->lock);
        return 0;
    }
    encoder_wait_copied(e); /* filling is the copier's until then */
    if (capture_world(&e->filling, w)) return -1;
    pthread_mutex_lock(&e->lock);
    hand_over_filled(e);
    pthread_mutex_unlock(&e->lock);
    return 0;
}

void encoder_wait_copied(encoder_t *e)
{
    if (!e || !e->copier_started) return;
    pthread_mutex_lock(&e->lock);
    while (e->source) pthread_cond_wait(&e->copied_cond, &e->lock);
    pthread_mutex_unlock(&e->lock);
}

int encoder_set_views(encoder_t *e, const view_spec_t *views, size_t n)
{
    view_spec_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) return -1;
    if (n) memcpy(copy, views, n * sizeof *copy);
    pthread_mutex_lock(&e->lock);
    free(e->views);
    e->views = copy;
    e->n_views = n;
    e->views_gen++;
    pthread_mutex_unlock(&e->lock);
    return 0;
}

void encoder_want_v1(encoder_t *e, bool want)
{
    pthread_mutex_lock(&e->lock);
    e->want_v1 = want;
    pthread_mutex_unlock(&e->lock);
}

bundle_t *encoder_take(encoder_t *e)
{
    pthread_mutex_lock(&e->lock);
    bundle_t *list = e->pending_head;
    e->pending_head = e->pending_tail = NULL;
    e->n_pending = 0;
    pthread_mutex_unlock(&e->lock);
    return list;
}

void encoder_get_stats(encoder_t *e, encoder_stats_t *out)
{
    pthread_mutex_lock(&e->lock);
    *out = e->stats;
    pthread_mutex_unlock(&e->lock);
}

void encoder_stop(encoder_t *e)
{
    if (!e || !e->started) return;
    pthread_mutex_lock(&e->lock);
    e->stop = true;
    pthread_cond_signal(&e->cond);
    pthread_cond_signal(&e->copy_cond);
    pthread_mutex_unlock(&e->lock);
    if (e->copier_started) pthread_join(e->copier, NULL);
    e->copier_started = false;
    pthread_join(e->thread, NULL);
    e->started = false;
    uv_close((uv_handle_t *)&e->wake, NULL);
}

void encoder_destroy(encoder_t *e)
{
    if (!e) return;
    for (bundle_t *b = e->pending_head, *next; b; b = next) {
        next = b->next;
        bundle_free(b);
    }
    for (size_t k = 0; k < e->n_encs; k++) wire2_view_enc_free(e->encs[k].enc);
    free(e->encs);
    free(e->lods);
    free(e->specs);
    free(e->views);
    wire2_world_free(&e->q);
    capture_free(&e->filling);
    capture_free(&e->ready);
    capture_free(&e->working);
    capture_free(&e->scene_prev);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
    pthread_cond_destroy(&e->copy_cond);
    pthread_cond_destroy(&e->copied_cond);
    free(e);
}

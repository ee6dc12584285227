/* wire2_script: a scripted run of the protocol v2 codec on the real
 * simulation, shared by the unit test (tests/unit/protocol/test_wire2.c)
 * and the stream tool (tests/tools/wire2_stream.c, whose output the JS
 * decoder's test replays).
 *
 * A world steps 2 ticks per snapshot; at each snapshot it is quantized and
 * every live view's encoder steps once; then each client that receives this
 * snapshot gets one frame, composed the way the server composes them (the
 * delta when it holds seq − 1 of its view — the key-delta when it got there
 * by the key —, a chain of deltas when it lags by
 * at most 3, else the key; the scene in its first frame and whenever the
 * scene changed), decoded by that client's own C decoder and checked against
 * the truth: the quantized world's items in the client's rect (as a sorted
 * multiset of (qx, qy, h, f)) or the LOD cells computed from them here.
 *
 * Events (at snapshot s of W2S_SNAPSHOTS): a target (leaders), 2 predators
 * and 2 species from the start; agents added at a point (s 100) and over the
 * world (s 600); 25 agents teleported by hand (s 200, s 800); a reset to
 * fewer agents (s 300); paused (s 400–449, with a header-only frame at 420);
 * obstacles added (s 500) and moved (s 650); wrap-around borders throughout.
 * Clients: 0 whole-world detail; 1 detail with rect changes (s 250, 700);
 * 2 whole-world LOD; 3 a LOD rect from s 120, switching to detail at s 900;
 * 4 a late joiner (whole world, from s 333, starts from a key); 5 a lagging
 * client that receives every 3rd snapshot (chains) and sometimes skips 5
 * (key). Each step reports every frame through a callback. */
#ifndef SWARMCAST_WIRE2_SCRIPT_H
#define SWARMCAST_WIRE2_SCRIPT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/snapshot.h"
#include "protocol/wire2.h"
#include "sim/params.h"
#include "sim/world.h"

#define W2S_SNAPSHOTS 1000u
#define W2S_TICKS_PER_SNAPSHOT 2
#define W2S_VIEWS 8
#define W2S_CLIENTS 6
#define W2S_RING 4

typedef struct w2s_view {
    bool live;
    wire2_rect_t rect;
    wire2_mode_t mode;
    wire2_view_enc_t *enc;
    uint32_t born;                  /* first seq it encoded */
    wire2_chunk_t key;              /* of the current seq */
    wire2_chunk_t delta[W2S_RING];  /* delta[s % W2S_RING] takes the view to seq s */
    wire2_chunk_t kdelta[W2S_RING]; /* the same for a decoder that holds the key of s − 1 */
    uint32_t delta_seq[W2S_RING];
} w2s_view_t;

typedef struct w2s_client {
    bool joined;
    wire2_rect_t rect;
    wire2_mode_t mode;
    bool holds;          /* its decoder holds (rect, mode) at held_seq */
    uint32_t held_seq;
    bool held_by_key;    /* its last chunk was the key of held_seq */
    uint32_t scene_version;
    wire2_dec_t *dec;
    size_t frames, keys, chains;
} w2s_client_t;

/* What one frame was, for the callback. */
typedef struct w2s_frame {
    int client;
    uint32_t seq;
    const uint8_t *buf;
    size_t len;
    const wire2_dec_state_t *st; /* the client's decoder after the frame */
    size_t n_chunks;
    bool key;
} w2s_frame_t;

typedef void (*w2s_frame_fn)(const w2s_frame_t *f, void *ctx);

typedef struct w2s_run {
    world_t w;
    wire2_world_t q;
    size_t agents;
    uint32_t seq;
    uint32_t scene_version;
    w2s_view_t views[W2S_VIEWS];
    w2s_client_t clients[W2S_CLIENTS];
    char err[256];
    /* truth scratch */
    uint64_t *truth, *got;
    size_t truth_cap;
    uint32_t *cells_count;
    int64_t *cells_s, *cells_c;
    size_t cells_cap;
    size_t frames, key_frames, chain_frames;
} w2s_run_t;

static inline int w2s_set_param(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    if (index < 0) return -1;
    return world_set_param(w, (size_t)index, value, msg, sizeof msg) == SIM_OK ? 0 : -1;
}

static inline int w2s_init(w2s_run_t *r, size_t agents)
{
    memset(r, 0, sizeof *r);
    r->agents = agents;
    world_config_t cfg = {.width = 480, .height = 270, .dt = 1.0f / 60.0f, .seed = 7, .agents = agents,
                          .max_agents = 100000, .max_targets = 8};
    if (world_init(&r->w, &cfg) != 0) return -1;
    if (w2s_set_param(&r->w, "predators", 2) || w2s_set_param(&r->w, "species", 2)) return -1;
    if (world_set_target(&r->w, 1, 240, 135) != SIM_OK) return -1;
    for (int c = 0; c < W2S_CLIENTS; c++) {
        r->clients[c].dec = wire2_dec_new();
        if (!r->clients[c].dec) return -1;
    }
    r->scene_version = 1;
    return 0;
}

static inline void w2s_free(w2s_run_t *r)
{
    for (int v = 0; v < W2S_VIEWS; v++) {
        wire2_view_enc_free(r->views[v].enc);
        wire2_chunk_free(&r->views[v].key);
        for (int k = 0; k < W2S_RING; k++) {
            wire2_chunk_free(&r->views[v].delta[k]);
            wire2_chunk_free(&r->views[v].kdelta[k]);
        }
    }
    for (int c = 0; c < W2S_CLIENTS; c++) wire2_dec_free(r->clients[c].dec);
    world_free(&r->w);
    wire2_world_free(&r->q);
    free(r->truth);
    free(r->got);
    free(r->cells_count);
    free(r->cells_s);
    free(r->cells_c);
}

static inline wire2_rect_t w2s_rect(uint8_t level, uint16_t x0, uint16_t y0, uint16_t x1, uint16_t y1)
{
    return (wire2_rect_t){level, x0, y0, x1, y1};
}

/* The client's view at snapshot s (NULL joined = not yet / not receiving). */
static inline void w2s_plan(const w2s_run_t *r, int c, uint32_t s, bool *joined, bool *receives, wire2_rect_t *rect,
                            wire2_mode_t *mode)
{
    (void)r;
    *joined = true;
    *receives = true;
    *rect = wire2_rect_world();
    *mode = WIRE2_DETAIL;
    switch (c) {
    case 0: break;
    case 1:
        *rect = s < 250 ? w2s_rect(2, 1, 1, 3, 3) : s < 700 ? w2s_rect(3, 0, 5, 3, 8) : w2s_rect(1, 1, 0, 2, 1);
        break;
    case 2: *mode = WIRE2_LOD; break;
    case 3:
        *joined = s >= 120;
        *rect = w2s_rect(2, 0, 0, 2, 4);
        *mode = s < 900 ? WIRE2_LOD : WIRE2_DETAIL;
        break;
    case 4: *joined = s >= 333; break;
    case 5:
        /* every 3rd snapshot (a chain of 3 deltas); around s 550 a gap of 5 (a key) */
        *receives = (s % 3 == 0 && !(s > 540 && s < 552)) || s == 552;
        break;
    }
    if (!*joined) *receives = false;
}

static inline int w2s_find_view(w2s_run_t *r, wire2_rect_t rect, wire2_mode_t mode)
{
    for (int v = 0; v < W2S_VIEWS; v++)
        if (r->views[v].live && r->views[v].mode == mode && wire2_rect_equal(r->views[v].rect, rect)) return v;
    return -1;
}

static inline void w2s_drop_view(w2s_view_t *v)
{
    wire2_view_enc_free(v->enc);
    wire2_chunk_free(&v->key);
    for (int k = 0; k < W2S_RING; k++) {
        wire2_chunk_free(&v->delta[k]);
        wire2_chunk_free(&v->kdelta[k]);
    }
    memset(v, 0, sizeof *v);
}

static inline int w2s_fail(w2s_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int w2s_fail(w2s_run_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int w2s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline uint64_t w2s_pack(uint32_t qx, uint32_t qy, uint16_t h, uint8_t f)
{
    return (uint64_t)qy << 44 | (uint64_t)qx << 18 | (uint64_t)h << 8 | f;
}

/* The decoder's state equals the truth for its rect: the items as a
 * multiset, in canonical order (absolute coordinates sort the same way as
 * relative ones), or the LOD cells recomputed from the quantized world. */
static inline int w2s_check(w2s_run_t *r, const wire2_dec_state_t *st, wire2_rect_t rect, wire2_mode_t mode, uint32_t seq)
{
    const wire2_world_t *q = &r->q;
    if (!st->has_view || st->view_seq != seq || st->mode != mode || !wire2_rect_equal(st->rect, rect))
        return w2s_fail(r, "seq %u: decoder holds another view (seq %u)", seq, st->view_seq);
    if (st->seq != seq || st->tick != q->tick || st->paused != q->paused || st->population != q->n)
        return w2s_fail(r, "seq %u: header fields differ", seq);
    wire2_bounds_t b = wire2_rect_bounds(rect, q->wq, q->hq);
    if (memcmp(&b, &st->bounds, sizeof b)) return w2s_fail(r, "seq %u: bounds differ", seq);
    if (r->truth_cap < q->n + 1) {
        r->truth_cap = q->n + 1;
        r->truth = realloc(r->truth, r->truth_cap * sizeof *r->truth);
        r->got = realloc(r->got, r->truth_cap * sizeof *r->got);
        if (!r->truth || !r->got) return w2s_fail(r, "out of memory");
    }
    if (mode == WIRE2_DETAIL) {
        size_t n = 0;
        for (size_t i = 0; i < q->n; i++)
            if (q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1)
                r->truth[n++] = w2s_pack(q->agent[i].qx, q->agent[i].qy, q->agent[i].h, q->agent[i].f);
        if (st->count != n) return w2s_fail(r, "seq %u: %zu items decoded, %zu in the rect", seq, st->count, n);
        for (size_t i = 0; i < n; i++) {
            r->got[i] = w2s_pack(st->qx[i], st->qy[i], st->h[i], st->f[i]);
            /* canonical order: (qy, qx, h, f) never decreases */
            if (i && r->got[i] < r->got[i - 1]) return w2s_fail(r, "seq %u: item %zu out of canonical order", seq, i);
        }
        qsort(r->truth, n, sizeof *r->truth, w2s_cmp_u64);
        for (size_t i = 0; i < n; i++)
            if (r->truth[i] != r->got[i]) return w2s_fail(r, "seq %u: item %zu differs from the truth", seq, i);
        return 0;
    }
    uint32_t cols = (uint32_t)(rect.x1 - rect.x0) * 8u, rows = (uint32_t)(rect.y1 - rect.y0) * 8u;
    size_t cells = (size_t)cols * rows;
    if (st->cols != cols || st->rows != rows) return w2s_fail(r, "seq %u: LOD grid differs", seq);
    if (r->cells_cap < cells) {
        r->cells_cap = cells;
        r->cells_count = realloc(r->cells_count, cells * sizeof *r->cells_count);
        r->cells_s = realloc(r->cells_s, cells * sizeof *r->cells_s);
        r->cells_c = realloc(r->cells_c, cells * sizeof *r->cells_c);
        if (!r->cells_count || !r->cells_s || !r->cells_c) return w2s_fail(r, "out of memory");
    }
    memset(r->cells_count, 0, cells * sizeof *r->cells_count);
    memset(r->cells_s, 0, cells * sizeof *r->cells_s);
    memset(r->cells_c, 0, cells * sizeof *r->cells_c);
    uint64_t w = b.qx1 - b.qx0, h = b.qy1 - b.qy0;
    for (size_t i = 0; i < q->n; i++) {
        if (!(q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1)) continue;
        size_t cx = (size_t)((q->agent[i].qx - b.qx0) * cols / w), cy = (size_t)((q->agent[i].qy - b.qy0) * rows / h);
        size_t c = cy * cols + cx;
        double t = 2.0 * M_PI * q->agent[i].h / 1024.0;
        r->cells_count[c]++;
        r->cells_s[c] += lround(sin(t) * 65536.0);
        r->cells_c[c] += lround(cos(t) * 65536.0);
    }
    for (size_t c = 0; c < cells; c++) {
        uint32_t n = r->cells_count[c];
        unsigned d = 0, a = 0;
        if (n) {
            double dv = 1.0 + floor(4.0 * log2((double)n) + 0.5);
            d = dv > 63 ? 63 : (unsigned)dv;
            if (r->cells_s[c] || r->cells_c[c])
                a = (unsigned)((long)floor(atan2((double)r->cells_s[c], (double)r->cells_c[c]) * 64.0 / (2.0 * M_PI) + 0.5) & 63);
        }
        if (st->d[c] != d || st->a[c] != a)
            return w2s_fail(r, "seq %u: LOD cell %zu is (%u, %u), the truth (%u, %u)", seq, c, st->d[c], st->a[c], d, a);
    }
    return 0;
}

/* World events before snapshot s. */
static inline int w2s_events(w2s_run_t *r, uint32_t s)
{
    world_t *w = &r->w;
    if (s == 100 && world_add_agents(w, r->agents / 3, true, 100, 200) != SIM_OK) return w2s_fail(r, "add_agents");
    if (s == 600 && world_add_agents(w, r->agents / 4, false, 0, 0) != SIM_OK) return w2s_fail(r, "add_agents");
    if (s == 200 || s == 800) {
        /* Teleports: some agents put elsewhere by hand (far, and near). */
        for (size_t k = 0; k < 25 && k < w->n; k++) {
            size_t i = (k * 7919u + s) % w->n;
            w->cur.x[i] = (float)fmod(w->cur.x[i] + (k % 2 ? 200.0 : 3.0), w->width);
            w->cur.y[i] = (float)fmod(w->cur.y[i] + (k % 3 ? 100.0 : 1.0), w->height);
        }
        if (world_agents_placed(w) != SIM_OK) return w2s_fail(r, "agents_placed");
    }
    if (s == 300) {
        if (world_reset(w, 9, r->agents * 2 / 3) != SIM_OK) return w2s_fail(r, "reset");
        r->scene_version++;
    }
    if (s == 500) {
        uint32_t id;
        if (world_add_obstacle(w, 120, 80, 15, &id) != SIM_OK) return w2s_fail(r, "obstacle");
        if (world_add_moving_obstacle(w, 300, 200, 10, 20, -10, &id) != SIM_OK) return w2s_fail(r, "obstacle");
        r->scene_version++;
    }
    if (s == 650) {
        if (world_set_target(w, 2, 60, 60) != SIM_OK) return w2s_fail(r, "target");
        r->scene_version++;
    }
    w->paused = s >= 400 && s < 450;
    return 0;
}

/* Composes, decodes and checks one client's frame at the current seq. */
static inline int w2s_serve(w2s_run_t *r, int c, w2s_frame_fn fn, void *ctx, bool header_only)
{
    w2s_client_t *cl = &r->clients[c];
    int v = w2s_find_view(r, cl->rect, cl->mode);
    if (v < 0) return w2s_fail(r, "client %d has no view", c);
    w2s_view_t *view = &r->views[v];
    uint32_t s = r->seq;
    const wire2_chunk_t *chunks[W2S_RING];
    size_t n = 0;
    bool key = false;
    if (!header_only) {
        uint32_t lag = cl->holds ? s - cl->held_seq : 0;
        bool chain = cl->holds && lag >= 1 && lag <= 3;
        for (uint32_t k = 1; chain && k <= lag; k++) {
            uint32_t t = cl->held_seq + k;
            const w2s_view_t *vv = view;
            if (vv->delta_seq[t % W2S_RING] != t || !vv->delta[t % W2S_RING].buf) chain = false;
        }
        if (chain) {
            /* After a key, the first delta is the one made against the key's state. */
            for (uint32_t k = 1; k <= lag; k++)
                chunks[n++] = k == 1 && cl->held_by_key ? &view->kdelta[(cl->held_seq + k) % W2S_RING]
                                                         : &view->delta[(cl->held_seq + k) % W2S_RING];
        } else {
            chunks[n++] = &view->key;
            key = true;
        }
    }
    wire2_chunk_t list[W2S_RING];
    for (size_t i = 0; i < n; i++) list[i] = *chunks[i];
    bool scene = cl->scene_version != r->scene_version;
    snap_view_t sv;
    snap_view_of_world(&r->w, &sv);
    uint8_t *buf;
    size_t len;
    if (wire2_frame_build(&r->q, (uint32_t)r->q.n, scene ? &sv : NULL, list, n, &buf, &len) != 0)
        return w2s_fail(r, "frame_build");
    char err[160];
    int rc = wire2_dec_frame(cl->dec, buf, len, err, sizeof err);
    if (rc != 0) {
        free(buf);
        return w2s_fail(r, "seq %u client %d: decode failed: %s", s, c, err);
    }
    const wire2_dec_state_t *st = wire2_dec_state(cl->dec);
    if (!header_only) {
        cl->holds = true;
        cl->held_seq = s;
        cl->held_by_key = key;
    }
    cl->scene_version = r->scene_version;
    cl->frames++;
    cl->keys += key;
    cl->chains += n > 1;
    r->frames++;
    r->key_frames += key;
    r->chain_frames += n > 1;
    if (st->keyed != key) rc = w2s_fail(r, "seq %u client %d: keyed flag wrong", s, c);
    if (rc == 0 && !header_only) rc = w2s_check(r, st, cl->rect, cl->mode, s);
    if (rc == 0 && (st->n_obstacles != r->w.n_obstacles || st->n_targets != r->w.n_targets || st->width != r->w.width))
        rc = w2s_fail(r, "seq %u client %d: scene differs", s, c);
    if (rc == 0 && fn) {
        w2s_frame_t f = {c, s, buf, len, st, n, key};
        fn(&f, ctx);
    }
    free(buf);
    return rc;
}

/* One snapshot: events, ticks, quantize, encode every live view, serve every client. */
static inline int w2s_snapshot(w2s_run_t *r, uint32_t s, w2s_frame_fn fn, void *ctx)
{
    if (w2s_events(r, s) < 0) return -1;
    if (!r->w.paused)
        for (int t = 0; t < W2S_TICKS_PER_SNAPSHOT; t++) world_step(&r->w);
    r->seq = s + 1; /* seq 0 is never used: a decoder could mistake it for "nothing held" */
    snap_view_t sv;
    snap_view_of_world(&r->w, &sv);
    if (wire2_world_quantize(&r->q, &sv, r->seq) != 0) return w2s_fail(r, "quantize");

    /* Which views are wanted now; new ones are made, unwanted ones dropped. */
    bool wanted[W2S_VIEWS] = {false};
    for (int c = 0; c < W2S_CLIENTS; c++) {
        w2s_client_t *cl = &r->clients[c];
        bool joined, receives;
        wire2_rect_t rect;
        wire2_mode_t mode;
        w2s_plan(r, c, s, &joined, &receives, &rect, &mode);
        cl->joined = joined;
        if (!joined) continue;
        if (!wire2_rect_equal(rect, cl->rect) || mode != cl->mode) cl->holds = false;
        cl->rect = rect;
        cl->mode = mode;
        int v = w2s_find_view(r, rect, mode);
        if (v < 0) {
            for (v = 0; v < W2S_VIEWS && r->views[v].live; v++) {}
            if (v == W2S_VIEWS) return w2s_fail(r, "too many views");
            r->views[v] = (w2s_view_t){.live = true, .rect = rect, .mode = mode, .enc = wire2_view_enc_new(rect, mode),
                                       .born = r->seq};
            if (!r->views[v].enc) return w2s_fail(r, "view_enc_new");
        }
        wanted[v] = true;
    }
    for (int v = 0; v < W2S_VIEWS; v++) {
        w2s_view_t *view = &r->views[v];
        if (!view->live) continue;
        if (!wanted[v]) {
            w2s_drop_view(view);
            continue;
        }
        wire2_chunk_free(&view->key);
        int k = (int)(r->seq % W2S_RING);
        wire2_chunk_free(&view->delta[k]);
        wire2_chunk_free(&view->kdelta[k]);
        if (wire2_view_enc_step(view->enc, &r->q, &view->key, &view->delta[k], &view->kdelta[k]) != 0)
            return w2s_fail(r, "enc_step");
        view->delta_seq[k] = view->delta[k].buf ? r->seq : 0;
        if (r->seq > view->born && !view->delta[k].buf) return w2s_fail(r, "seq %u: a held view made no delta", r->seq);
    }
    for (int c = 0; c < W2S_CLIENTS; c++) {
        bool joined, receives;
        wire2_rect_t rect;
        wire2_mode_t mode;
        w2s_plan(r, c, s, &joined, &receives, &rect, &mode);
        if (!receives) continue;
        if (w2s_serve(r, c, fn, ctx, false) < 0) return -1;
        if (s == 420 && c == 0 && w2s_serve(r, c, fn, ctx, true) < 0) return -1;
    }
    return 0;
}

#endif

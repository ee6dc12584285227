/* swarmcast-wire2-vectors: writes (or checks) the shared test vectors of
 * protocol v2, protocol/vectors/v2-*.bin and v2-*.json.
 *
 *   swarmcast-wire2-vectors --write DIR   (re)writes the vectors into DIR
 *   swarmcast-wire2-vectors --check DIR   exits 1 unless DIR holds exactly
 *                                         what --write would write (ctest)
 *
 * Each case NAME is a sequence of frames decoded in order by ONE decoder:
 * v2-NAME-K.bin is frame K (one binary WebSocket message) and v2-NAME.json
 * describes them all:
 *   {"name", "description", "frames": [{"bin": "v2-NAME-K.bin", "expect": E}, …]}
 * where E is either {"error": true} (the decoder must reject the frame and
 * keep its state) or the decoder's state after the frame:
 *   {"seq", "tick", "paused", "population", "keyed",
 *    "scene": {"width", "height", "obstacles": [{"id","x","y","r"}], "targets": [{"clientId","x","y"}]},
 *    "mode": "detail" | "lod" | null,
 *    "rect": {"level","x0","y0","x1","y1","qx0","qy0","qx1","qy1"} | null,
 *    "items": [[qx, qy, h, f], …]   (absolute quanta, canonical order; detail)
 *    "lod": {"cols","rows","d":[…],"a":[…]} | null}
 * Frames are made by the C encoder from hand-placed worlds; the expected
 * state is the C decoder's, which the tool first checks against the
 * quantized world itself (the items in the rect as a multiset). */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"

#define MAX_AGENTS 64
#define MAX_FRAMES 6

/* A hand-placed world: 100 × 50 units (1600 × 800 quanta). */
typedef struct hand {
    float x[MAX_AGENTS], y[MAX_AGENTS], vx[MAX_AGENTS], vy[MAX_AGENTS];
    uint8_t flags[MAX_AGENTS];
    size_t n;
    predator_t predators[2];
    size_t n_predators;
    obstacle_t obstacles[2];
    size_t n_obstacles;
    target_t targets[2];
    size_t n_targets;
    uint32_t tick;
    bool paused;
} hand_t;

typedef struct vcase {
    const char *name, *description;
    uint8_t *bin[MAX_FRAMES];
    size_t len[MAX_FRAMES];
    cJSON *expect[MAX_FRAMES];
    int n;
    wire2_dec_t *dec;
    wire2_world_t q;
} vcase_t;

static void die(const char *what)
{
    fprintf(stderr, "wire2_vectors: %s\n", what);
    exit(2);
}

static void view_of(const hand_t *h, snap_view_t *v)
{
    *v = (snap_view_t){.tick = h->tick, .paused = h->paused, .width = 100, .height = 50, .n = h->n, .x = h->x,
                       .y = h->y, .vx = h->vx, .vy = h->vy, .flags = h->flags, .obstacles = h->obstacles,
                       .n_obstacles = h->n_obstacles, .targets = h->targets, .n_targets = h->n_targets,
                       .predators = h->predators, .n_predators = h->n_predators};
}

static void quantize(vcase_t *c, const hand_t *h, uint32_t seq)
{
    snap_view_t v;
    view_of(h, &v);
    if (wire2_world_quantize(&c->q, &v, seq) != 0) die("quantize");
}

static cJSON *state_json(const wire2_dec_state_t *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seq", st->seq);
    cJSON_AddNumberToObject(o, "tick", st->tick);
    cJSON_AddBoolToObject(o, "paused", st->paused);
    cJSON_AddNumberToObject(o, "population", st->population);
    cJSON_AddBoolToObject(o, "keyed", st->keyed);
    cJSON *scene = cJSON_AddObjectToObject(o, "scene");
    cJSON_AddNumberToObject(scene, "width", st->width);
    cJSON_AddNumberToObject(scene, "height", st->height);
    cJSON *obs = cJSON_AddArrayToObject(scene, "obstacles");
    for (size_t i = 0; i < st->n_obstacles; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "id", st->obstacles[i].id);
        cJSON_AddNumberToObject(r, "x", st->obstacles[i].x);
        cJSON_AddNumberToObject(r, "y", st->obstacles[i].y);
        cJSON_AddNumberToObject(r, "r", st->obstacles[i].r);
        cJSON_AddItemToArray(obs, r);
    }
    cJSON *tg = cJSON_AddArrayToObject(scene, "targets");
    for (size_t i = 0; i < st->n_targets; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "clientId", st->targets[i].client_id);
        cJSON_AddNumberToObject(r, "x", st->targets[i].x);
        cJSON_AddNumberToObject(r, "y", st->targets[i].y);
        cJSON_AddItemToArray(tg, r);
    }
    if (!st->has_view) {
        cJSON_AddNullToObject(o, "mode");
        cJSON_AddNullToObject(o, "rect");
        cJSON_AddArrayToObject(o, "items");
        cJSON_AddNullToObject(o, "lod");
        return o;
    }
    cJSON_AddStringToObject(o, "mode", st->mode == WIRE2_DETAIL ? "detail" : "lod");
    cJSON *rect = cJSON_AddObjectToObject(o, "rect");
    cJSON_AddNumberToObject(rect, "level", st->rect.level);
    cJSON_AddNumberToObject(rect, "x0", st->rect.x0);
    cJSON_AddNumberToObject(rect, "y0", st->rect.y0);
    cJSON_AddNumberToObject(rect, "x1", st->rect.x1);
    cJSON_AddNumberToObject(rect, "y1", st->rect.y1);
    cJSON_AddNumberToObject(rect, "qx0", (double)st->bounds.qx0);
    cJSON_AddNumberToObject(rect, "qy0", (double)st->bounds.qy0);
    cJSON_AddNumberToObject(rect, "qx1", (double)st->bounds.qx1);
    cJSON_AddNumberToObject(rect, "qy1", (double)st->bounds.qy1);
    cJSON *items = cJSON_AddArrayToObject(o, "items");
    for (size_t i = 0; i < st->count; i++) {
        int v[4] = {(int)st->qx[i], (int)st->qy[i], st->h[i], st->f[i]};
        cJSON_AddItemToArray(items, cJSON_CreateIntArray(v, 4));
    }
    if (st->mode == WIRE2_LOD) {
        cJSON *lod = cJSON_AddObjectToObject(o, "lod");
        cJSON_AddNumberToObject(lod, "cols", st->cols);
        cJSON_AddNumberToObject(lod, "rows", st->rows);
        cJSON *d = cJSON_AddArrayToObject(lod, "d"), *a = cJSON_AddArrayToObject(lod, "a");
        for (size_t i = 0; i < (size_t)st->cols * st->rows; i++) {
            cJSON_AddItemToArray(d, cJSON_CreateNumber(st->d[i]));
            cJSON_AddItemToArray(a, cJSON_CreateNumber(st->a[i]));
        }
    } else {
        cJSON_AddNullToObject(o, "lod");
    }
    return o;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The decoded items are the quantized world's in the rect. */
static void check_truth(const vcase_t *c, const wire2_dec_state_t *st)
{
    if (!st->has_view || st->mode != WIRE2_DETAIL) return;
    const wire2_world_t *q = &c->q;
    uint64_t truth[MAX_AGENTS + 2], got[MAX_AGENTS + 2];
    size_t n = 0;
    for (size_t i = 0; i < q->n; i++)
        if (q->agent[i].qx >= st->bounds.qx0 && q->agent[i].qx < st->bounds.qx1 && q->agent[i].qy >= st->bounds.qy0 &&
            q->agent[i].qy < st->bounds.qy1)
            truth[n++] = (uint64_t)q->agent[i].qy << 40 | (uint64_t)q->agent[i].qx << 18 | (uint64_t)q->agent[i].h << 8 | q->agent[i].f;
    if (n != st->count) die("decoded item count differs from the world");
    for (size_t i = 0; i < n; i++)
        got[i] = (uint64_t)st->qy[i] << 40 | (uint64_t)st->qx[i] << 18 | (uint64_t)st->h[i] << 8 | st->f[i];
    qsort(truth, n, sizeof truth[0], cmp_u64);
    qsort(got, n, sizeof got[0], cmp_u64);
    if (memcmp(truth, got, n * sizeof truth[0])) {
        fprintf(stderr, "%s frame %d\n", c->name, c->n);
        for (size_t i = 0; i < n; i++) fprintf(stderr, "  %llx %llx\n", (unsigned long long)truth[i], (unsigned long long)got[i]);
        die("decoded items differ from the world");
    }
}

/* Adds a frame: decodes it (it must succeed unless bad) and records the expectation. */
static void add_frame(vcase_t *c, uint8_t *buf, size_t len, bool bad)
{
    if (c->n == MAX_FRAMES) die("too many frames");
    char err[160];
    int rc = wire2_dec_frame(c->dec, buf, len, err, sizeof err);
    if (bad != (rc < 0)) {
        fprintf(stderr, "%s frame %d: %s\n", c->name, c->n, rc < 0 ? err : "accepted");
        die(bad ? "a bad frame was accepted" : "a good frame was rejected");
    }
    if (bad) {
        c->expect[c->n] = cJSON_CreateObject();
        cJSON_AddBoolToObject(c->expect[c->n], "error", true);
    } else {
        check_truth(c, wire2_dec_state(c->dec));
        c->expect[c->n] = state_json(wire2_dec_state(c->dec));
    }
    c->bin[c->n] = buf;
    c->len[c->n++] = len;
}

static void frame_of(vcase_t *c, const hand_t *h, bool scene, const wire2_chunk_t *chunks, size_t n, bool bad)
{
    snap_view_t v;
    view_of(h, &v);
    uint8_t *buf;
    size_t len;
    if (wire2_frame_build(&c->q, (uint32_t)c->q.n, scene ? &v : NULL, chunks, n, &buf, &len) != 0) die("frame_build");
    add_frame(c, buf, len, bad);
}

static void step(wire2_view_enc_t *e, const vcase_t *c, wire2_chunk_t *key, wire2_chunk_t *delta, wire2_chunk_t *kdelta)
{
    if (wire2_view_enc_step(e, &c->q, key, delta, kdelta) != 0) die("enc_step");
}

/* Six agents (one a leader, one of species 2) and a predator; headings from
 * velocity pairs well away from step edges. */
static void six(hand_t *h)
{
    memset(h, 0, sizeof *h);
    static const float xs[6] = {10, 20.5f, 20.5f, 99.9375f, 0, 50}, ys[6] = {5, 5, 5, 49.9375f, 0, 25};
    static const float vx[6] = {1, 0, 3, -1, -3, 5}, vy[6] = {0, 1, 4, -1, 4, -12};
    for (size_t i = 0; i < 6; i++) {
        h->x[i] = xs[i];
        h->y[i] = ys[i];
        h->vx[i] = vx[i];
        h->vy[i] = vy[i];
    }
    h->n = 6;
    h->flags[1] = 0x01;       /* leader */
    h->flags[3] = 1u << 1;    /* species 1 */
    h->flags[5] = 0x01 | (1u << 1);
    h->n_predators = 1;
    h->predators[0] = (predator_t){60.25f, 30.5f, -2, 1};
    h->tick = 1200;
}

static void with_scene(hand_t *h)
{
    h->n_obstacles = 2;
    h->obstacles[0] = (obstacle_t){.id = 5, .x = 40, .y = 30, .r = 4};
    h->obstacles[1] = (obstacle_t){.id = 9, .x = 81.25f, .y = 12.5f, .r = 7.75f};
    h->n_targets = 2;
    h->targets[0] = (target_t){.client_id = 1, .x = 10.125f, .y = 42};
    h->targets[1] = (target_t){.client_id = 3, .x = 90, .y = 8.5f};
}

static void case_detail_key(vcase_t *c)
{
    hand_t h;
    six(&h);
    with_scene(&h);
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_chunk_t key;
    quantize(c, &h, 7);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    wire2_view_enc_free(e);
}

/* Key, then a delta with moves, a turn, an exit (an agent gone), an entry
 * (a new agent), a flag change and a wrap (x 99.9 → 0.2: exit + entry). */
static void case_detail_delta(vcase_t *c)
{
    hand_t h;
    six(&h);
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_chunk_t key, delta;
    quantize(c, &h, 7);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);

    h.tick += 2;
    h.x[0] += 0.5f;
    h.y[0] += 0.25f;
    h.x[2] += 0.125f;
    h.vx[2] = -3; /* a turn */
    h.x[3] = 0.1875f; /* wraps around */
    h.flags[4] = 0x01; /* becomes a leader */
    h.x[5] = 30; /* the agent with id 5 goes … */
    h.y[5] = 40;
    h.n = 6;
    h.predators[0].x -= 0.25f;
    /* … and a seventh appears (the predator moves up one id, as in the real world). */
    h.x[6] = 70;
    h.y[6] = 20;
    h.vx[6] = 0;
    h.vy[6] = -1;
    h.flags[6] = 0;
    h.n = 7;
    quantize(c, &h, 8);
    step(e, c, NULL, &delta, NULL);
    frame_of(c, &h, false, &delta, 1, false);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
}

/* A detail view of part of the world (level 2, tiles [1, 3) × [0, 2)):
 * agents cross its edges (exits and entries), one stays inside. */
static void case_subrect(vcase_t *c)
{
    hand_t h;
    memset(&h, 0, sizeof h);
    static const float xs[5] = {25.0625f, 49.9375f, 74.9375f, 60, 10}, ys[5] = {0.0625f, 12.5f, 24.9375f, 10, 10};
    for (size_t i = 0; i < 5; i++) {
        h.x[i] = xs[i];
        h.y[i] = ys[i];
        h.vx[i] = 1;
        h.vy[i] = (float)i - 2;
    }
    h.n = 5;
    h.tick = 50;
    wire2_rect_t r = {2, 1, 0, 3, 2};
    wire2_view_enc_t *e = wire2_view_enc_new(r, WIRE2_DETAIL);
    wire2_chunk_t key, delta;
    quantize(c, &h, 100);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    h.tick += 2;
    h.x[0] -= 0.125f; /* leaves across the left edge */
    h.x[2] += 0.0625f; /* leaves across the right edge (75 is outside) */
    h.x[4] = 25.5f;   /* enters */
    h.x[1] += 0.0625f;
    h.y[3] += 0.3125f;
    quantize(c, &h, 101);
    step(e, c, NULL, &delta, NULL);
    frame_of(c, &h, false, &delta, 1, false);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
}

/* Key at seq 20, then one frame with the chain of deltas 21 and 22. */
static void case_chain(vcase_t *c)
{
    hand_t h;
    six(&h);
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_chunk_t key, d[2];
    quantize(c, &h, 20);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    for (int k = 0; k < 2; k++) {
        h.tick += 2;
        for (size_t i = 0; i < h.n; i++) {
            h.x[i] = fmodf(h.x[i] + 0.75f, 100);
            h.y[i] = fmodf(h.y[i] + 0.5f, 50);
        }
        quantize(c, &h, 21 + (uint32_t)k);
        /* the first link: the decoder holds the key of 20 */
        wire2_chunk_t other;
        if (k == 0) {
            step(e, c, NULL, &other, &d[0]);
        } else {
            step(e, c, NULL, &d[1], NULL);
            other = (wire2_chunk_t){0};
        }
        wire2_chunk_free(&other);
    }
    frame_of(c, &h, false, d, 2, false);
    wire2_chunk_free(&d[0]);
    wire2_chunk_free(&d[1]);
    wire2_view_enc_free(e);
}

/* LOD of the whole world (8 × 8 cells): a key, then a delta. */
static void case_lod(vcase_t *c)
{
    hand_t h;
    memset(&h, 0, sizeof h);
    h.n = 40;
    for (size_t i = 0; i < h.n; i++) {
        /* a dense clump (one cell), a line, scattered ones */
        double t = (double)i;
        h.x[i] = i < 16 ? 30.0f + (float)(i % 4) : i < 28 ? (float)(5 + 7 * (i - 16)) : (float)fmod(t * 37.3, 100);
        h.y[i] = i < 16 ? 20.0f + (float)(i / 4) : i < 28 ? 44.0f : (float)fmod(t * 13.7, 50);
        h.vx[i] = (float)cos(t * 0.3) * 10;
        h.vy[i] = (float)sin(t * 0.3) * 10;
    }
    h.tick = 9;
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_LOD);
    wire2_chunk_t key, delta;
    quantize(c, &h, 3);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    h.tick += 2;
    for (size_t i = 0; i < h.n; i++) {
        h.x[i] = fmodf(h.x[i] + 6.5f, 100);
        h.vx[i] = -h.vx[i];
    }
    quantize(c, &h, 4);
    step(e, c, NULL, &delta, NULL);
    frame_of(c, &h, false, &delta, 1, false);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
}

/* A key, then a frame with no chunks (paused, no scene): the header
 * changes, the scene and the items stay. */
static void case_no_chunks(vcase_t *c)
{
    hand_t h;
    six(&h);
    with_scene(&h);
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_chunk_t key;
    quantize(c, &h, 40);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    h.paused = true;
    h.tick += 1;
    quantize(c, &h, 41);
    frame_of(c, &h, false, NULL, 0, false);
    wire2_view_enc_free(e);
}

/* Frames a decoder must reject, each after a good key (state unchanged). */
static void case_rejected(vcase_t *c)
{
    hand_t h;
    six(&h);
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_chunk_t key, delta;
    quantize(c, &h, 60);
    step(e, c, &key, NULL, NULL);
    frame_of(c, &h, true, &key, 1, false);
    wire2_chunk_free(&key);
    h.tick += 2;
    h.x[0] += 0.5f;
    quantize(c, &h, 61);
    step(e, c, NULL, &delta, NULL);
    uint8_t *full;
    size_t len;
    if (wire2_frame_build(&c->q, (uint32_t)c->q.n, NULL, &delta, 1, &full, &len) != 0) die("frame_build");
    /* 1: truncated by one byte */
    uint8_t *b = malloc(len);
    memcpy(b, full, len - 1);
    add_frame(c, b, len - 1, true);
    /* 2: the delta claims seq 62 (the decoder holds 60) */
    b = malloc(len);
    memcpy(b, full, len);
    b[WIRE2_HEADER_BYTES + 10] = 62;
    add_frame(c, b, len, true);
    /* 3: version 1 */
    b = malloc(len);
    memcpy(b, full, len);
    b[1] = 1;
    add_frame(c, b, len, true);
    /* 4: rect x1 beyond 2^L */
    b = malloc(len);
    memcpy(b, full, len);
    b[WIRE2_HEADER_BYTES + 6] = 2;
    add_frame(c, b, len, true);
    /* 5: the intact delta applies */
    add_frame(c, full, len, false);
    wire2_chunk_free(&delta);
    wire2_view_enc_free(e);
}

typedef struct spec {
    const char *name, *description;
    void (*make)(vcase_t *);
} spec_t;

static const spec_t cases[] = {
    {"detail-key", "a scene (2 obstacles, 2 targets) and a detail key of 6 agents (a leader, species bits) and a predator", case_detail_key},
    {"detail-delta", "key, then a delta with moves, a turn, an exit, an entry, a flag change and a wrap-around (exit + entry)", case_detail_delta},
    {"subrect", "a level-2 detail view of part of the world: key, then a delta where agents cross its edges", case_subrect},
    {"chain", "key at seq 20, then one frame with the deltas to 21 (made for a key holder) and 22", case_chain},
    {"lod", "LOD view of the whole world (8 x 8 cells): key, then delta", case_lod},
    {"no-chunks", "key, then a frame with no chunks and no scene (paused): header changes, items and scene stay", case_no_chunks},
    {"rejected", "key, then frames to reject (truncated, wrong seq, version 1, rect beyond 2^L), then the good delta", case_rejected},
};

static void make(vcase_t *c, const spec_t *s)
{
    memset(c, 0, sizeof *c);
    c->name = s->name;
    c->description = s->description;
    c->dec = wire2_dec_new();
    if (!c->dec) die("dec_new");
    s->make(c);
}

static void release(vcase_t *c)
{
    for (int i = 0; i < c->n; i++) {
        free(c->bin[i]);
        cJSON_Delete(c->expect[i]);
    }
    wire2_dec_free(c->dec);
    wire2_world_free(&c->q);
}

static char *json_text(const vcase_t *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "description", c->description);
    cJSON *frames = cJSON_AddArrayToObject(o, "frames");
    for (int i = 0; i < c->n; i++) {
        char bin[128];
        snprintf(bin, sizeof bin, "v2-%s-%d.bin", c->name, i);
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "bin", bin);
        cJSON_AddItemToObject(f, "expect", cJSON_Duplicate(c->expect[i], true));
        cJSON_AddItemToArray(frames, f);
    }
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static int put_or_check(const char *path, const void *data, size_t len, bool write)
{
    if (write) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", path);
            return -1;
        }
        return 0;
    }
    size_t have_len;
    uint8_t *have = slurp(path, &have_len);
    int rc = have && have_len == len && memcmp(have, data, len) == 0 ? 0 : -1;
    if (rc) fprintf(stderr, "%s differs from what the encoder makes now (regenerate with --write)\n", path);
    free(have);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--write") && strcmp(argv[1], "--check"))) {
        fprintf(stderr, "usage: %s --write|--check DIR\n", argv[0]);
        return 2;
    }
    bool write = !strcmp(argv[1], "--write");
    int failures = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vcase_t c;
        make(&c, &cases[k]);
        char path[4096];
        for (int i = 0; i < c.n; i++) {
            snprintf(path, sizeof path, "%s/v2-%s-%d.bin", argv[2], c.name, i);
            failures += put_or_check(path, c.bin[i], c.len[i], write) < 0;
        }
        char *text = json_text(&c);
        snprintf(path, sizeof path, "%s/v2-%s.json", argv[2], c.name);
        size_t tl = strlen(text);
        text[tl] = '\n';
        failures += put_or_check(path, text, tl + 1, write) < 0;
        free(text);
        release(&c);
    }
    if (failures) return 1;
    printf("%s %zu vector cases in %s\n", write ? "wrote" : "checked", sizeof cases / sizeof cases[0], argv[2]);
    return 0;
}

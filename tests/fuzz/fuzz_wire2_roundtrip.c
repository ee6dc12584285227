/* Fuzz target: the protocol v2 encoder against the decoder. The input
 * chooses a world (any f32 size, down to a single quantum), a view (any
 * valid rect at any level, detail or LOD) and up to 4 snapshots of up to 200
 * agents with any positions (NaN, infinite, outside the world), velocities
 * and flags, and which snapshots a second client skips. Invariants: every
 * chunk the encoder makes decodes; a follower (key, then deltas) and a
 * joiner (key, then key-deltas, then a chain when it skipped) both hold
 * exactly the quantized world in the rect after every snapshot they get
 * (items as a multiset; LOD cells with the counts' densities). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_stream.h"
#include "protocol/wire2.h"

#define MAX_AGENTS 200
#define SNAPSHOTS 4

/* A coordinate: mostly inside the world, sometimes anything at all. */
static float take_coord(stream_t *s, float size)
{
    uint8_t how = take_u8(s);
    if (how < 200) return (float)take_u16(s) / 65535.0f * size;
    return take_f32(s);
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Items of the decoder = the world's in the rect (multiset of (qy, qx, h, f)). */
static void check(const wire2_dec_t *d, const wire2_world_t *q, wire2_mode_t mode)
{
    const wire2_dec_state_t *st = wire2_dec_state(d);
    REQUIRE(st->has_view && st->view_seq == q->seq, "view seq %u, world %u", st->view_seq, q->seq);
    wire2_bounds_t b = st->bounds;
    if (mode == WIRE2_LOD) {
        static uint32_t counts[8192 * 2];
        memset(counts, 0, sizeof counts);
        size_t cells = (size_t)st->cols * st->rows;
        REQUIRE(cells <= sizeof counts / sizeof counts[0], "too many cells for the check");
        for (size_t i = 0; i < q->n; i++) {
            if (!(q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1)) continue;
            size_t cx = (size_t)((q->agent[i].qx - b.qx0) * st->cols / (b.qx1 - b.qx0));
            size_t cy = (size_t)((q->agent[i].qy - b.qy0) * st->rows / (b.qy1 - b.qy0));
            counts[cy * st->cols + cx]++;
        }
        for (size_t c = 0; c < cells; c++) {
            REQUIRE(st->d[c] == wire2_lod_density(counts[c]), "cell %zu density %u for %u agents", c, st->d[c], counts[c]);
            REQUIRE(counts[c] || st->a[c] == 0, "empty cell %zu with a heading", c);
        }
        return;
    }
    uint64_t truth[MAX_AGENTS + 8][2], got[MAX_AGENTS + 8][2];
    size_t n = 0;
    for (size_t i = 0; i < q->n; i++)
        if (q->agent[i].qx >= b.qx0 && q->agent[i].qx < b.qx1 && q->agent[i].qy >= b.qy0 && q->agent[i].qy < b.qy1) {
            truth[n][0] = (uint64_t)q->agent[i].qy << 32 | q->agent[i].qx;
            truth[n][1] = (uint64_t)q->agent[i].h << 8 | q->agent[i].f;
            n++;
        }
    REQUIRE(st->count == n, "%zu items decoded, %zu in the rect", st->count, n);
    for (size_t i = 0; i < n; i++) {
        got[i][0] = (uint64_t)st->qy[i] << 32 | st->qx[i];
        got[i][1] = (uint64_t)st->h[i] << 8 | st->f[i];
    }
    qsort(truth, n, sizeof truth[0], cmp_pair);
    qsort(got, n, sizeof got[0], cmp_pair);
    REQUIRE(!memcmp(truth, got, n * sizeof truth[0]), "the decoded items differ from the world's");
}

static void decode(wire2_dec_t *d, const wire2_world_t *q, const snap_view_t *scene, const wire2_chunk_t *c, size_t n)
{
    uint8_t *buf;
    size_t len;
    REQUIRE(wire2_frame_build(q, (uint32_t)q->n, scene, c, n, &buf, &len) == 0, "frame_build");
    char err[160];
    int rc = wire2_dec_frame(d, buf, len, err, sizeof err);
    REQUIRE(rc == 0, "the encoder's frame was rejected: %s", err);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stream_t s = {data, size};
    float width = take_u8(&s) < 128 ? (float)(1 + take_u16(&s)) / 8.0f : take_f32(&s);
    float height = take_u8(&s) < 128 ? (float)(1 + take_u16(&s)) / 8.0f : take_f32(&s);
    if (!wire2_quanta_of(width) || !wire2_quanta_of(height)) return 0;
    uint8_t level = take_u8(&s) & 7;
    uint16_t side = (uint16_t)(1u << level);
    uint16_t x0 = take_u16(&s) % side, y0 = take_u16(&s) % side;
    uint16_t x1 = (uint16_t)(x0 + 1 + take_u16(&s) % (side - x0)), y1 = (uint16_t)(y0 + 1 + take_u16(&s) % (side - y0));
    if (level >= 5 && (x1 - x0) * (y1 - y0) > 64) x1 = (uint16_t)(x0 + 1); /* LOD grids of at most 8192 cells */
    wire2_rect_t rect = {level, x0, y0, x1, y1};
    wire2_mode_t mode = take_u8(&s) & 1 ? WIRE2_LOD : WIRE2_DETAIL;
    uint8_t skips = take_u8(&s);

    static float x[MAX_AGENTS], y[MAX_AGENTS], vx[MAX_AGENTS], vy[MAX_AGENTS];
    static uint8_t flags[MAX_AGENTS];
    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(rect, mode);
    REQUIRE(e != NULL, "a valid rect was refused");
    wire2_dec_t *follower = wire2_dec_new(), *joiner = wire2_dec_new();
    wire2_chunk_t pending[SNAPSHOTS];
    size_t n_pending = 0;
    bool joiner_keyed = false, joiner_has = false;
    for (uint32_t seq = 1; seq <= SNAPSHOTS && s.left; seq++) {
        size_t n = take_u8(&s) % (MAX_AGENTS + 1);
        for (size_t i = 0; i < n; i++) {
            x[i] = take_coord(&s, width);
            y[i] = take_coord(&s, height);
            vx[i] = (float)(int8_t)take_u8(&s);
            vy[i] = (float)(int8_t)take_u8(&s);
            flags[i] = take_u8(&s) & (AGENT_LEADER | AGENT_SPECIES_MASK | AGENT_PREDATOR); /* the flags byte */
        }
        snap_view_t v = {.tick = seq, .width = width, .height = height, .n = n, .x = x, .y = y, .vx = vx, .vy = vy,
                         .flags = flags};
        REQUIRE(wire2_world_quantize(&q, &v, seq) == 0, "quantize");
        wire2_chunk_t key, delta, kdelta;
        REQUIRE(wire2_view_enc_step(e, &q, &key, &delta, &kdelta) == 0, "enc_step");
        REQUIRE(key.buf && (seq == 1) == !delta.buf && (seq == 1) == !kdelta.buf, "chunks missing");
        /* The follower: key, then every delta. */
        decode(follower, &q, seq == 1 ? &v : NULL, seq == 1 ? &key : &delta, 1);
        check(follower, &q, mode);
        /* The joiner: skips the snapshots the input says; after a key its first delta is the key-delta. */
        bool skip = (skips >> seq) & 1;
        if (joiner_has) {
            /* the chunk it will need for this seq, kept until it is sent */
            bool first_after_key = joiner_keyed && n_pending == 0;
            pending[n_pending++] = first_after_key ? kdelta : delta;
            if (first_after_key)
                kdelta = (wire2_chunk_t){0};
            else
                delta = (wire2_chunk_t){0};
        }
        if (!skip) {
            if (joiner_has) {
                decode(joiner, &q, NULL, pending, n_pending);
                joiner_keyed = false;
            } else {
                decode(joiner, &q, &v, &key, 1);
                joiner_has = joiner_keyed = true;
            }
            check(joiner, &q, mode);
            for (size_t i = 0; i < n_pending; i++) wire2_chunk_free(&pending[i]);
            n_pending = 0;
        }
        wire2_chunk_free(&key);
        wire2_chunk_free(&delta);
        wire2_chunk_free(&kdelta);
    }
    for (size_t i = 0; i < n_pending; i++) wire2_chunk_free(&pending[i]);
    wire2_view_enc_free(e);
    wire2_dec_free(follower);
    wire2_dec_free(joiner);
    wire2_world_free(&q);
    return 0;
}

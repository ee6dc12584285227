/* Fuzz target: the protocol v2 frame decoder (server/src/protocol/wire2_dec.c).
 * The input is a sequence of frames, each prefixed by its length (u16,
 * little-endian), fed in order to one decoder — so deltas meet the states
 * earlier frames left. Invariants:
 *   - a rejected frame leaves the decoder's state exactly as it was, and
 *     says why in a printable message;
 *   - an accepted frame leaves a consistent state: items inside the rect, in
 *     canonical order, headings < WIRE2_HEADING_STEPS; LOD cells with d ≤ 63, a < 64 and
 *     a = 0 where d = 0; a view's seq equals the last chunk's. */
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "protocol/wire2.h"

/* FNV-1a over everything the decoder exposes. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t digest(const wire2_dec_state_t *st)
{
    uint64_t h = 1469598103934665603ull;
    h = mix(h, &st->seq, sizeof st->seq);
    h = mix(h, &st->tick, sizeof st->tick);
    h = mix(h, &st->population, sizeof st->population);
    h = mix(h, &st->paused, sizeof st->paused);
    h = mix(h, &st->has_scene, sizeof st->has_scene);
    h = mix(h, &st->width, sizeof st->width);
    h = mix(h, &st->height, sizeof st->height);
    h = mix(h, st->obstacles, st->n_obstacles * sizeof *st->obstacles);
    h = mix(h, st->targets, st->n_targets * sizeof *st->targets);
    h = mix(h, &st->has_view, sizeof st->has_view);
    h = mix(h, &st->mode, sizeof st->mode);
    h = mix(h, &st->rect, sizeof st->rect);
    h = mix(h, &st->view_seq, sizeof st->view_seq);
    h = mix(h, &st->keyed, sizeof st->keyed);
    h = mix(h, &st->count, sizeof st->count);
    h = mix(h, st->qx, st->count * sizeof *st->qx);
    h = mix(h, st->qy, st->count * sizeof *st->qy);
    h = mix(h, st->h, st->count * sizeof *st->h);
    h = mix(h, st->f, st->count * sizeof *st->f);
    size_t cells = (size_t)st->cols * st->rows;
    if (st->d) {
        h = mix(h, st->d, cells);
        h = mix(h, st->a, cells);
    }
    return h;
}

static void check_state(const wire2_dec_state_t *st)
{
    if (!st->has_view) {
        REQUIRE(st->count == 0, "items without a view");
        return;
    }
    REQUIRE(wire2_rect_valid(st->rect), "invalid rect held");
    if (st->mode == WIRE2_DETAIL) {
        REQUIRE(st->count <= WIRE2_MAX_COUNT, "%zu items", st->count);
        for (size_t i = 0; i < st->count; i++) {
            REQUIRE(st->qx[i] >= st->bounds.qx0 && st->qx[i] < st->bounds.qx1, "item %zu x outside", i);
            REQUIRE(st->qy[i] >= st->bounds.qy0 && st->qy[i] < st->bounds.qy1, "item %zu y outside", i);
            REQUIRE(st->h[i] < WIRE2_HEADING_STEPS, "item %zu heading %u", i, st->h[i]);
            if (i) {
                /* (qy, qx, h, f) never decreases (py, px break ties, unseen here) */
                const uint32_t a[4] = {st->qy[i - 1], st->qx[i - 1], st->h[i - 1], st->f[i - 1]};
                const uint32_t b[4] = {st->qy[i], st->qx[i], st->h[i], st->f[i]};
                int order = 0;
                for (int k = 0; k < 4 && !order; k++) order = (a[k] > b[k]) - (a[k] < b[k]);
                REQUIRE(order <= 0, "items %zu, %zu out of canonical order", i - 1, i);
            }
        }
    } else {
        REQUIRE(st->cols == (uint32_t)(st->rect.x1 - st->rect.x0) * 8u, "cols");
        REQUIRE(st->rows == (uint32_t)(st->rect.y1 - st->rect.y0) * 8u, "rows");
        for (size_t c = 0; c < (size_t)st->cols * st->rows; c++) {
            REQUIRE(st->d[c] <= 63 && st->a[c] < 64, "cell %zu (%u, %u)", c, st->d[c], st->a[c]);
            REQUIRE(st->d[c] > 0 || st->a[c] == 0, "empty cell %zu with a heading", c);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wire2_dec_t *d = wire2_dec_new();
    REQUIRE(d != NULL, "dec_new");
    char err[160];
    while (size >= 2) {
        size_t len = (size_t)data[0] | (size_t)data[1] << 8;
        data += 2;
        size -= 2;
        if (len > size) len = size;
        uint64_t before = digest(wire2_dec_state(d));
        err[0] = 'x';
        int rc = wire2_dec_frame(d, data, len, err, sizeof err);
        if (rc < 0) {
            REQUIRE(digest(wire2_dec_state(d)) == before, "a rejected frame changed the state (%s)", err);
            REQUIRE(printable_message(err, sizeof err), "unprintable error message");
        } else {
            REQUIRE(rc == 0, "rc %d", rc);
            check_state(wire2_dec_state(d));
        }
        data += len;
        size -= len;
    }
    wire2_dec_free(d);
    return 0;
}

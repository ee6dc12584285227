/* swarmcast-wire2-stream: writes the frames of a scripted protocol v2 run
 * with what a decoder must hold after each, as JSON lines, for decoders in
 * other languages to replay (client-web/net/wire2.js's test).
 *
 *   swarmcast-wire2-stream [--out FILE] [--agents N] [--snapshots N]
 *     --out FILE       where to write (default: standard output)
 *     --agents N       agents at the start (default 200; 10 … 20000)
 *     --snapshots N    snapshots to run (default 1000; 1 … 100000)
 *   Exit status 0, or 1 if the C decoder disagreed with the world (a bug),
 *   2 on bad usage.
 *
 * The run is tests/tools/wire2_script.h's (the C unit test's): the real
 * simulation with added agents, a reset, wrap-around borders, teleports,
 * pauses, obstacles and six clients with their own views (whole world,
 * changing rects, LOD, a late joiner that starts from a key, a lagging one
 * that gets chains of deltas and keys). One line per frame, in the order
 * they were made:
 *   {"client": C, "frame": "<base64 of the binary message>",
 *    "expect": {"seq", "tick", "paused", "population", "keyed",
 *               "mode": "detail"|"lod"|null,
 *               "rect": {"level","x0","y0","x1","y1","qx0","qy0","qx1","qy1"}|null,
 *               "items": [[qx, qy, h, f], …],        (canonical order; [] for LOD)
 *               "lod": {"cols","rows","d":[…],"a":[…]}|null}}
 * Each client C needs its own decoder: feed it the frames of client C, in
 * order, and compare its state after each with "expect". The expectation is
 * the C decoder's state, which the run has checked against the quantized
 * world at every frame (the items in the rect as a multiset; LOD cells
 * recomputed from the world). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/base64.h"
#include "wire2_script.h"

typedef struct out {
    FILE *f;
    char *b64;
    size_t b64_cap;
} out_t;

static void write_frame(const w2s_frame_t *fr, void *ctx)
{
    out_t *o = ctx;
    size_t need = base64_encoded_len(fr->len) + 1;
    if (need > o->b64_cap) {
        o->b64 = realloc(o->b64, need);
        if (!o->b64) abort();
        o->b64_cap = need;
    }
    base64_encode(fr->buf, fr->len, o->b64);
    o->b64[base64_encoded_len(fr->len)] = '\0';
    const wire2_dec_state_t *st = fr->st;
    FILE *f = o->f;
    fprintf(f, "{\"client\":%d,\"frame\":\"%s\",\"expect\":{\"seq\":%u,\"tick\":%u,\"paused\":%s,\"population\":%u,\"keyed\":%s,",
            fr->client, o->b64, st->seq, st->tick, st->paused ? "true" : "false", st->population,
            st->keyed ? "true" : "false");
    if (!st->has_view) {
        fputs("\"mode\":null,\"rect\":null,\"items\":[],\"lod\":null}}\n", f);
        return;
    }
    fprintf(f, "\"mode\":\"%s\",\"rect\":{\"level\":%u,\"x0\":%u,\"y0\":%u,\"x1\":%u,\"y1\":%u,\"qx0\":%llu,\"qy0\":%llu,\"qx1\":%llu,\"qy1\":%llu},\"items\":[",
            st->mode == WIRE2_DETAIL ? "detail" : "lod", st->rect.level, st->rect.x0, st->rect.y0, st->rect.x1,
            st->rect.y1, (unsigned long long)st->bounds.qx0, (unsigned long long)st->bounds.qy0,
            (unsigned long long)st->bounds.qx1, (unsigned long long)st->bounds.qy1);
    for (size_t i = 0; i < st->count; i++)
        fprintf(f, "%s[%u,%u,%u,%u]", i ? "," : "", st->qx[i], st->qy[i], st->h[i], st->f[i]);
    fputs("],\"lod\":", f);
    if (st->mode == WIRE2_LOD) {
        size_t cells = (size_t)st->cols * st->rows;
        fprintf(f, "{\"cols\":%u,\"rows\":%u,\"d\":[", st->cols, st->rows);
        for (size_t i = 0; i < cells; i++) fprintf(f, "%s%u", i ? "," : "", st->d[i]);
        fputs("],\"a\":[", f);
        for (size_t i = 0; i < cells; i++) fprintf(f, "%s%u", i ? "," : "", st->a[i]);
        fputs("]}", f);
    } else {
        fputs("null", f);
    }
    fputs("}}\n", f);
}

static long number_arg(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    return v;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long agents = 200, snapshots = W2S_SNAPSHOTS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            path = argv[++i];
        } else if (!strcmp(argv[i], "--agents") && i + 1 < argc) {
            agents = number_arg(argv[++i], 10, 20000);
        } else if (!strcmp(argv[i], "--snapshots") && i + 1 < argc) {
            snapshots = number_arg(argv[++i], 1, 100000);
        } else {
            agents = -1;
        }
        if (agents < 0 || snapshots < 0) {
            fprintf(stderr, "usage: %s [--out FILE] [--agents N] [--snapshots N]\n", argv[0]);
            return 2;
        }
    }
    out_t o = {.f = path ? fopen(path, "w") : stdout};
    if (!o.f) {
        perror(path);
        return 2;
    }
    w2s_run_t *r = malloc(sizeof *r);
    if (!r || w2s_init(r, (size_t)agents) != 0) {
        fprintf(stderr, "wire2_stream: cannot set up the run\n");
        return 1;
    }
    int rc = 0;
    for (long s = 0; s < snapshots; s++) {
        if (w2s_snapshot(r, (uint32_t)s, write_frame, &o) != 0) {
            fprintf(stderr, "wire2_stream: snapshot %ld: %s\n", s, r->err);
            rc = 1;
            break;
        }
    }
    if (fflush(o.f) != 0 || (path && fclose(o.f) != 0)) rc = rc ? rc : 2;
    fprintf(stderr, "wire2_stream: %zu frames (%zu keys, %zu chains)\n", r->frames, r->key_frames, r->chain_frames);
    w2s_free(r);
    free(r);
    free(o.b64);
    return rc;
}

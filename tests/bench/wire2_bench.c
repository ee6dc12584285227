/* swarmcast-wire2-bench: sizes and encode times of protocol v2 on the real
 * simulation. Prints figures, asserts nothing; not part of ctest.
 *
 *   swarmcast-wire2-bench [--sizes N,N,...] [--threads N] [--snapshots N] [--quick] [--lod-room]
 *     --sizes      agent counts (default 1000,10000,100000,1000000)
 *     --threads    simulation threads (default: the machine's cores)
 *     --snapshots  snapshots measured per row (default 20; 6 at 1M agents)
 *     --quick      short warm-ups (for a smoke run)
 *     --lod-room   only the table of a room with no detail view (below)
 *
 * The world keeps the default density (2000 agents per 1600 × 900 u), so it
 * grows with the population. Three motions: the default Reynolds flock
 * ("moving"), a mill (every agent seeks a target at the centre: w_target 4,
 * target_radius 0), and a paused world ("at rest"). Snapshots every 2 ticks
 * (30 Hz at 60 Hz). For each row, of the whole-world detail view: key and
 * delta bytes per agent (medians), the average per agent with one key per
 * 10 s (1 key + 299 deltas), the median time to quantize and encode key +
 * delta (wall clock and thread CPU time; and, apart, with the key-delta a
 * joiner needs), and the raw-deflate
 * (zlib level 1, as permessage-deflate would) size of key and delta.
 *
 * A room with no detail view (no client, or only the whole-world LOD view
 * the default viewer of a large room gets), per snapshot of the moving
 * flock's copy (stream/capture.c, as the server makes it): the path through
 * the world by id (wire2_world_quantize, the LOD view's step,
 * count_grid_build) against the one pass over the copy (lod_pass), both on
 * the same snapshot, in alternating order; checks that both made the same
 * bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "machine.h"
#include "protocol/snapshot.h"
#include "protocol/wire2.h"
#include "sim/params.h"
#include "sim/world.h"
#include "stream/capture.h"
#include "stream/count_grid.h"
#include "stream/lod_pass.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t deflated(const uint8_t *buf, size_t len)
{
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    uLong cap = deflateBound(&z, (uLong)len);
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)buf;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    size_t n = deflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
    deflateEnd(&z);
    free(out);
    return n;
}

static int set_param(world_t *w, const char *name, double value)
{
    char msg[160];
    int index = params_find(name);
    return index >= 0 && world_set_param(w, (size_t)index, value, msg, sizeof msg) == SIM_OK ? 0 : -1;
}

enum motion { MOVING, MILLING, AT_REST };
static char views_line[16][160];
static int views_n;
static const char *const motion_names[] = {"moving", "milling", "at rest"};

static int row(size_t n, enum motion m, int threads, int snapshots, bool quick)
{
    double scale = sqrt((double)n / 2000.0);
    world_config_t cfg = {.width = (float)(1600.0 * scale), .height = (float)(900.0 * scale), .dt = 1.0f / 60.0f,
                          .seed = 42, .agents = n, .max_agents = n, .max_targets = 1, .threads = threads};
    world_t w;
    if (world_init(&w, &cfg) != 0) return -1;
    if (m == MILLING) {
        if (world_set_target(&w, 1, w.width / 2, w.height / 2) != SIM_OK || set_param(&w, "w_target", 4) ||
            set_param(&w, "target_radius", 0))
            return -1;
    }
    /* Warm-up: flocks form (a few seconds of simulated time where affordable). */
    int warm = n <= 10000 ? 600 : n <= 100000 ? 240 : 30;
    if (quick) warm = n <= 10000 ? 60 : 4;
    double t0 = now_ms();
    for (int t = 0; t < warm; t++) world_step(&w);
    double warm_ms = now_ms() - t0;

    wire2_world_t q = {0};
    wire2_view_enc_t *e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    double *key_b = calloc((size_t)snapshots, sizeof(double)), *delta_b = calloc((size_t)snapshots, sizeof(double));
    double *enc_ms = calloc((size_t)snapshots, sizeof(double)), *kd_ms = calloc((size_t)snapshots, sizeof(double));
    double *zkey = calloc((size_t)snapshots, sizeof(double)), *zdelta = calloc((size_t)snapshots, sizeof(double));
    double *enc_cpu = calloc((size_t)snapshots, sizeof(double));
    int got = 0;
    for (int s = 0; s <= snapshots; s++) {
        if (m != AT_REST)
            for (int t = 0; t < 2; t++) world_step(&w);
        snap_view_t v;
        snap_view_of_world(&w, &v);
        wire2_chunk_t key, delta;
        double a = now_ms(), ac = cpu_ms();
        if (wire2_world_quantize(&q, &v, (uint32_t)s + 1) != 0) return -1;
        if (wire2_view_enc_step(e, &q, &key, &delta, NULL) != 0) return -1;
        double b = now_ms(), bc = cpu_ms();
        wire2_chunk_free(&key);
        wire2_chunk_free(&delta);
        if (s == 0) continue; /* the first has no delta */
        enc_ms[got] = b - a;
        enc_cpu[got] = bc - ac;
        got++;
    }
    /* Sizes: a second pass with fresh encoders so the timing above is not disturbed by deflate.
     * Beside the whole world: a viewport of 1/16 of the world (a quarter of
     * each side, placed off the tile grid: at level 5, 9 × 9 tiles), and the
     * LOD of the whole world as a zoomed-out viewer gets it (level 3). */
    wire2_view_enc_free(e);
    e = wire2_view_enc_new(wire2_rect_world(), WIRE2_DETAIL);
    wire2_view_enc_t *part = wire2_view_enc_new((wire2_rect_t){5, 11, 11, 20, 20}, WIRE2_DETAIL);
    wire2_view_enc_t *lod = wire2_view_enc_new((wire2_rect_t){3, 0, 0, 8, 8}, WIRE2_LOD);
    double part_bytes = 0, full_bytes = 0, lod_key = 0, lod_delta = 0, lod_ms = 0;
    for (int s = 0; s <= snapshots; s++) {
        if (m != AT_REST)
            for (int t = 0; t < 2; t++) world_step(&w);
        snap_view_t v;
        snap_view_of_world(&w, &v);
        wire2_chunk_t key, delta, kd;
        if (wire2_world_quantize(&q, &v, (uint32_t)(snapshots + 10 + s)) != 0) return -1;
        double a = cpu_ms();
        if (wire2_view_enc_step(e, &q, &key, &delta, &kd) != 0) return -1;
        double b = cpu_ms();
        if (s > 0) {
            int i = s - 1;
            key_b[i] = (double)key.len / (double)q.n;
            delta_b[i] = (double)delta.len / (double)q.n;
            zkey[i] = (double)deflated(key.buf, key.len) / (double)q.n;
            zdelta[i] = (double)deflated(delta.buf, delta.len) / (double)q.n;
            kd_ms[i] = b - a;
            full_bytes += (double)(key.len + 299.0 * delta.len) / 300.0;
        }
        if (m == MOVING) {
            wire2_chunk_t pk, pd, lk, ld;
            if (wire2_view_enc_step(part, &q, &pk, &pd, NULL) != 0) return -1;
            double c0 = cpu_ms();
            if (wire2_view_enc_step(lod, &q, &lk, &ld, NULL) != 0) return -1;
            double c1 = cpu_ms();
            if (s > 0) {
                part_bytes += (double)(pk.len + 299.0 * pd.len) / 300.0;
                lod_key += (double)lk.len;
                lod_delta += (double)ld.len;
                lod_ms += c1 - c0;
            }
            wire2_chunk_free(&pk);
            wire2_chunk_free(&pd);
            wire2_chunk_free(&lk);
            wire2_chunk_free(&ld);
        }
        wire2_chunk_free(&key);
        wire2_chunk_free(&delta);
        wire2_chunk_free(&kd);
    }
    double kb = median(key_b, got), db = median(delta_b, got);
    double avg = (kb + 299.0 * db) / 300.0;
    printf("| %7zu | %-8s | %6.0f x %-6.0f | %8.3f | %8.3f | %8.3f | %8.2f | %8.2f | %8.2f | %8.3f | %8.3f | %6.0f ms/%d |\n",
           n, motion_names[m], w.width, w.height, kb, db, avg, median(enc_ms, got), median(enc_cpu, got),
           median(kd_ms, got), median(zkey, got), median(zdelta, got), warm_ms, warm);
    if (m == MOVING)
        snprintf(views_line[views_n++], sizeof views_line[0],
                 "| %7zu | %7.1f %% | %8.0f | %8.0f | %9.1f | %6.2f |", n, 100.0 * part_bytes / full_bytes,
                 lod_key / snapshots, lod_delta / snapshots, (lod_key + 299.0 * lod_delta) / 300.0 / snapshots * 30 * 8 / 1000,
                 lod_ms / snapshots);
    fflush(stdout);
    wire2_view_enc_free(part);
    wire2_view_enc_free(lod);
    free(key_b);
    free(delta_b);
    free(enc_ms);
    free(kd_ms);
    free(enc_cpu);
    free(zkey);
    free(zdelta);
    wire2_view_enc_free(e);
    wire2_world_free(&q);
    world_free(&w);
    return 0;
}

/* Same bytes from both paths, or the figures mean nothing. */
static int same_chunk(const wire2_chunk_t *a, const wire2_chunk_t *b)
{
    return a->len == b->len && (!a->len || memcmp(a->buf, b->buf, a->len) == 0);
}

typedef struct lod_room_times {
    double by_id_ms, pass_ms; /* median thread CPU ms per snapshot */
    double by_id_wall, pass_wall;
} lod_room_times_t;

/* One snapshot of a LOD-only room (lods: its n_lods views, none for a
 * room with no view) by the world by id; the first view's key and delta;
 * CPU and wall ms. */
static int lod_room_by_id(const snap_view_t *v, uint32_t seq, wire2_world_t *q, wire2_view_enc_t **lods,
                          size_t n_lods, count_grid_t *g, wire2_chunk_t *key, wire2_chunk_t *delta, double *cpu,
                          double *wall)
{
    double a = now_ms(), ac = cpu_ms();
    if (wire2_world_quantize(q, v, seq) != 0) return -1;
    for (size_t i = 0; i < n_lods; i++) {
        wire2_chunk_t k = {0}, d = {0};
        if (wire2_view_enc_step(lods[i], q, i ? &k : key, i ? &d : delta, NULL) != 0) return -1;
        wire2_chunk_free(&k);
        wire2_chunk_free(&d);
    }
    count_grid_build(g, q);
    *cpu = cpu_ms() - ac;
    *wall = now_ms() - a;
    return 0;
}

/* The same snapshot in one pass over the copy. */
static int lod_room_pass(const snap_view_t *v, uint32_t seq, wire2_view_enc_t **lods, size_t n_lods,
                         count_grid_t *g, wire2_chunk_t *key, wire2_chunk_t *delta, double *cpu, double *wall)
{
    double a = now_ms(), ac = cpu_ms();
    wire2_world_t head;
    if (lod_pass(v, seq, lods, n_lods, g, &head) != 0) return -1;
    for (size_t i = 0; i < n_lods; i++) {
        wire2_chunk_t k = {0}, d = {0};
        if (wire2_view_enc_lod_end(lods[i], &head, i ? &k : key, i ? &d : delta, NULL) != 0) return -1;
        wire2_chunk_free(&k);
        wire2_chunk_free(&d);
    }
    *cpu = cpu_ms() - ac;
    *wall = now_ms() - a;
    return 0;
}

/* The rooms of the table: no view, the default viewer's whole-world LOD
 * view, and 256 viewers each zoomed in on their own tile (level 4). */
enum { ROOM_NO_VIEW, ROOM_WHOLE_WORLD, ROOM_TILE_VIEWS, ROOM_KINDS };
#define TILE_VIEWS 256

static int lod_room(size_t n, int threads, int snapshots, bool quick, int room, lod_room_times_t *out)
{
    double scale = sqrt((double)n / 2000.0);
    world_config_t cfg = {.width = (float)(1600.0 * scale), .height = (float)(900.0 * scale), .dt = 1.0f / 60.0f,
                          .seed = 42, .agents = n, .max_agents = n, .max_targets = 1, .threads = threads};
    world_t w;
    if (world_init(&w, &cfg) != 0) return -1;
    int warm = quick ? 4 : n <= 100000 ? 60 : 30;
    for (int t = 0; t < warm; t++) world_step(&w);
    capture_t copy = {0};
    wire2_world_t q = {0};
    wire2_view_enc_t *lod_a[TILE_VIEWS] = {0}, *lod_b[TILE_VIEWS] = {0};
    size_t n_lods = room == ROOM_NO_VIEW ? 0 : room == ROOM_WHOLE_WORLD ? 1 : TILE_VIEWS;
    for (size_t i = 0; i < n_lods; i++) {
        wire2_rect_t r = room == ROOM_WHOLE_WORLD ? (wire2_rect_t){3, 0, 0, 8, 8}
                                                  : (wire2_rect_t){4, (uint16_t)(i % 16), (uint16_t)(i / 16),
                                                                   (uint16_t)(i % 16 + 1), (uint16_t)(i / 16 + 1)};
        lod_a[i] = wire2_view_enc_new(r, WIRE2_LOD);
        lod_b[i] = wire2_view_enc_new(r, WIRE2_LOD);
    }
    double *a_cpu = calloc((size_t)snapshots, sizeof(double)), *b_cpu = calloc((size_t)snapshots, sizeof(double));
    double *a_wall = calloc((size_t)snapshots, sizeof(double)), *b_wall = calloc((size_t)snapshots, sizeof(double));
    int rc = 0;
    for (int s = 0; s < snapshots && rc == 0; s++) {
        for (int t = 0; t < 2; t++) world_step(&w);
        if (capture_world(&copy, &w) != 0) {
            rc = -1;
            break;
        }
        snap_view_t v;
        capture_view(&copy, &v);
        count_grid_t ga, gb;
        wire2_chunk_t ka = {0}, da = {0}, kb = {0}, db = {0};
        uint32_t seq = (uint32_t)s + 1;
        if (s % 2 == 0)
            rc = lod_room_by_id(&v, seq, &q, lod_a, n_lods, &ga, &ka, &da, &a_cpu[s], &a_wall[s]) ||
                 lod_room_pass(&v, seq, lod_b, n_lods, &gb, &kb, &db, &b_cpu[s], &b_wall[s]);
        else
            rc = lod_room_pass(&v, seq, lod_b, n_lods, &gb, &kb, &db, &b_cpu[s], &b_wall[s]) ||
                 lod_room_by_id(&v, seq, &q, lod_a, n_lods, &ga, &ka, &da, &a_cpu[s], &a_wall[s]);
        if (rc == 0 && (memcmp(&ga, &gb, sizeof ga) != 0 || !same_chunk(&ka, &kb) || !same_chunk(&da, &db))) {
            fprintf(stderr, "lod room %zu: the two paths made different bytes at seq %u\n", n, (unsigned)seq);
            rc = -1;
        }
        wire2_chunk_free(&ka);
        wire2_chunk_free(&da);
        wire2_chunk_free(&kb);
        wire2_chunk_free(&db);
    }
    if (rc == 0)
        *out = (lod_room_times_t){median(a_cpu, snapshots), median(b_cpu, snapshots), median(a_wall, snapshots),
                                  median(b_wall, snapshots)};
    free(a_cpu);
    free(b_cpu);
    free(a_wall);
    free(b_wall);
    for (size_t i = 0; i < n_lods; i++) {
        wire2_view_enc_free(lod_a[i]);
        wire2_view_enc_free(lod_b[i]);
    }
    wire2_world_free(&q);
    capture_free(&copy);
    world_free(&w);
    return rc;
}

static int lod_room_table(const size_t *sizes, int n_sizes, int threads, int snapshots, bool quick)
{
    printf("\nA room with no detail view, per snapshot of the moving flock's copy: through the world by id (quantize,\n"
           "index, the view's step, census) against one pass over the copy (lod_pass), the same snapshot both ways in\n"
           "alternating order, the same bytes checked; median ms of thread CPU (wall)\n\n");
    printf("| agents  | room              | by id CPU (wall)  | one pass CPU (wall) | pass / by id |\n");
    printf("|--------:|-------------------|------------------:|--------------------:|-------------:|\n");
    for (int i = 0; i < n_sizes; i++)
        for (int room = 0; room < ROOM_KINDS; room++) {
            static const char *const names[ROOM_KINDS] = {"no view (census)", "whole-world LOD", "256 tile LODs"};
            lod_room_times_t t;
            int snaps = sizes[i] >= 1000000 && snapshots > 10 ? 10 : snapshots;
            if (lod_room(sizes[i], threads, snaps, quick, room, &t) != 0) return -1;
            printf("| %7zu | %-17s | %7.2f (%7.2f) | %9.2f (%7.2f) | %12.2f |\n", sizes[i],
                   names[room], t.by_id_ms, t.by_id_wall, t.pass_ms,
                   t.pass_wall, t.pass_ms / t.by_id_ms);
            fflush(stdout);
        }
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[16] = {1000, 10000, 100000, 1000000};
    int n_sizes = 4;
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), snapshots = 20;
    bool quick = false, lod_room_only = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
            n_sizes = 0;
            for (char *p = strtok(argv[++a], ","); p && n_sizes < 16; p = strtok(NULL, ",")) sizes[n_sizes++] = (size_t)atol(p);
        } else if (!strcmp(argv[a], "--threads") && a + 1 < argc) {
            threads = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--snapshots") && a + 1 < argc) {
            snapshots = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--quick")) {
            quick = true;
        } else if (!strcmp(argv[a], "--lod-room")) {
            lod_room_only = true;
        } else {
            fprintf(stderr, "usage: %s [--sizes N,N,...] [--threads N] [--snapshots N] [--quick] [--lod-room]\n", argv[0]);
            return 2;
        }
    }
    if (threads < 1) threads = 1;
    if (snapshots < 2) snapshots = 2;
    char cpu[128];
    machine_cpu_name(cpu, sizeof cpu);
    struct utsname u;
    uname(&u);
    printf("swarmcast-wire2-bench: %s (%s), %ld cores, %d sim threads, kernel %s\n", cpu, machine_instruction_set(),
           sysconf(_SC_NPROCESSORS_ONLN), threads, u.release);
    if (lod_room_only) return lod_room_table(sizes, n_sizes, threads, snapshots, quick) == 0 ? 0 : 1;
    printf("whole-world detail view, a snapshot every 2 ticks (30 Hz at 60 Hz); B/agent = bytes per agent of the chunk;\n"
           "avg/10 s = (key + 299 deltas) / 300; encode = quantize + key + delta, median ms of wall clock and of the\n"
           "thread's CPU time (what it costs on a loaded machine); +kdelta = CPU ms of key + delta + key-delta\n"
           "without quantizing; z = raw deflate level 1 of the chunk\n\n");
    printf("| agents  | motion   | world (u)       | key B/a  | delta B/a| avg/10 s | enc wall | enc CPU  | +kdelta  | z key B/a| z dlt B/a| warm-up       |\n");
    printf("|--------:|----------|-----------------|---------:|---------:|---------:|---------:|---------:|---------:|---------:|---------:|---------------|\n");
    for (int i = 0; i < n_sizes; i++) {
        int snaps = sizes[i] >= 1000000 && snapshots > 6 ? 6 : snapshots;
        for (int m = 0; m < 3; m++)
            if (row(sizes[i], (enum motion)m, threads, snaps, quick) != 0) {
                fprintf(stderr, "row %zu %s failed\n", sizes[i], motion_names[m]);
                return 1;
            }
    }
    printf("\nViews of the moving flock: the 1/16 viewport's bytes (level 5, 9 x 9 tiles, 1 key per 10 s) as a share of the\n"
           "whole world's; the whole-world LOD (level 3: 64 x 64 cells) key and delta bytes, its stream at 30 Hz with one\n"
           "key per 10 s, and its CPU ms per snapshot\n\n");
    printf("| agents  | 1/16 view | LOD key B| LOD dlt B| LOD kbit/s| LOD ms |\n");
    printf("|--------:|----------:|---------:|---------:|----------:|-------:|\n");
    for (int i = 0; i < views_n; i++) printf("%s\n", views_line[i]);
    return lod_room_table(sizes, n_sizes, threads, snapshots, quick) == 0 ? 0 : 1;
}

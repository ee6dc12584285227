/* Unit tests of the snapshot encoder (server/src/protocol/snapshot.c) against
 * protocol/PROTOCOL.md and the shared test vectors in protocol/vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/snapshot.h"

#ifndef SWARMCAST_VECTORS_DIR
#error "SWARMCAST_VECTORS_DIR must name the protocol/vectors directory"
#endif

/* ------------------------------------------------------------ helpers */

static uint32_t get_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float get_f32(const uint8_t *p)
{
    uint32_t bits = get_u32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The spec's position quantization, computed independently of the encoder. */
static uint32_t spec_q(double v, double extent)
{
    double q = floor(v / extent * 65536.0 + 0.5);
    return q > 65535.0 ? 65535u : (uint32_t)q;
}

/* Reads a whole file; NULL if it cannot be read. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(data, cap + 1);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

static const cJSON *member(const cJSON *obj, const char *name)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!m) print_message("vector JSON has no field '%s'\n", name);
    assert_non_null(m);
    return m;
}

static double number(const cJSON *obj, const char *name)
{
    const cJSON *m = member(obj, name);
    assert_true(cJSON_IsNumber(m));
    return m->valuedouble;
}

static const cJSON *array(const cJSON *obj, const char *name)
{
    const cJSON *m = member(obj, name);
    assert_true(cJSON_IsArray(m));
    return m;
}

/* Element i of a number array. */
static double element(const cJSON *arr, int i)
{
    const cJSON *e = cJSON_GetArrayItem(arr, i);
    assert_non_null(e);
    assert_true(cJSON_IsNumber(e));
    return e->valuedouble;
}

/* Fails naming the first differing byte, if any. */
static void assert_same_frame(const char *what, const uint8_t *got, size_t got_len, const uint8_t *want,
                              size_t want_len)
{
    size_t common = got_len < want_len ? got_len : want_len;
    for (size_t i = 0; i < common; i++)
        if (got[i] != want[i])
            fail_msg("%s: first difference at byte offset %zu: encoder wrote 0x%02x, expected 0x%02x", what, i,
                     got[i], want[i]);
    if (got_len != want_len)
        fail_msg("%s: encoder wrote %zu bytes, expected %zu", what, got_len, want_len);
}

/* A small fixed content used by several tests: world 1000 × 500, agent k at
 * x = 125·k (x_q = 8192·k), y = 50·k, heading k·π/4, flags k & 1. */
enum { SMALL_N = 7 };

static void small_agent(size_t k, float *x, float *y, float *vx, float *vy, uint8_t *flags)
{
    float theta = (float)k * (float)M_PI / 4.0f;
    *x = 125.0f * (float)k;
    *y = 50.0f * (float)k;
    *vx = cosf(theta) * 100.0f;
    *vy = sinf(theta) * 100.0f;
    *flags = (uint8_t)(k & 1u);
}

/* ------------------------------------------------------------ vectors */

typedef struct vector_case {
    char json_path[1024];
    char bin_path[1024];
    char test_name[300];
} vector_case_t;

static void snapshot_should_reproduce_the_vector_byte_for_byte(void **state)
{
    const vector_case_t *vc = *state;
    size_t json_len = 0, bin_len = 0;
    char *text = (char *)read_file(vc->json_path, &json_len);
    uint8_t *want = read_file(vc->bin_path, &bin_len);
    if (!text) print_message("cannot read %s\n", vc->json_path);
    if (!want) print_message("cannot read %s\n", vc->bin_path);
    assert_non_null(text);
    assert_non_null(want);

    cJSON *doc = cJSON_ParseWithLength(text, json_len);
    if (!doc) print_message("%s is not valid JSON\n", vc->json_path);
    assert_non_null(doc);

    const cJSON *paused = member(doc, "paused");
    assert_true(cJSON_IsBool(paused));
    const cJSON *agents = member(doc, "agents");
    const cJSON *ax = array(agents, "x"), *ay = array(agents, "y"), *ah = array(agents, "heading"),
                *af = array(agents, "flags");
    int n = cJSON_GetArraySize(ax);
    assert_int_equal(cJSON_GetArraySize(ay), n);
    assert_int_equal(cJSON_GetArraySize(ah), n);
    assert_int_equal(cJSON_GetArraySize(af), n);
    const cJSON *obstacles = array(doc, "obstacles"), *targets = array(doc, "targets");
    int m = cJSON_GetArraySize(obstacles), t = cJSON_GetArraySize(targets);

    size_t na = n > 0 ? (size_t)n : 1, no = m > 0 ? (size_t)m : 1, nt = t > 0 ? (size_t)t : 1;
    float *x = calloc(na, sizeof *x), *y = calloc(na, sizeof *y);
    float *vx = calloc(na, sizeof *vx), *vy = calloc(na, sizeof *vy);
    uint8_t *flags = calloc(na, sizeof *flags);
    obstacle_t *obs = calloc(no, sizeof *obs);
    target_t *tgt = calloc(nt, sizeof *tgt);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(vx);
    assert_non_null(vy);
    assert_non_null(flags);
    assert_non_null(obs);
    assert_non_null(tgt);

    for (int i = 0; i < n; i++) {
        float theta = (float)element(ah, i);
        x[i] = (float)element(ax, i);
        y[i] = (float)element(ay, i);
        vx[i] = cosf(theta) * 100.0f;
        vy[i] = sinf(theta) * 100.0f;
        flags[i] = (uint8_t)element(af, i);
    }
    for (int k = 0; k < m; k++) {
        const cJSON *o = cJSON_GetArrayItem(obstacles, k);
        obs[k] = (obstacle_t){.id = (uint32_t)number(o, "id"),
                              .x = (float)number(o, "x"),
                              .y = (float)number(o, "y"),
                              .r = (float)number(o, "radius")};
    }
    for (int k = 0; k < t; k++) {
        const cJSON *g = cJSON_GetArrayItem(targets, k);
        tgt[k] = (target_t){.client_id = (uint32_t)number(g, "client_id"),
                            .x = (float)number(g, "x"),
                            .y = (float)number(g, "y")};
    }
    snap_view_t view = {
        .tick = (uint32_t)number(doc, "tick"),
        .paused = cJSON_IsTrue(paused),
        .width = (float)number(doc, "world_width"),
        .height = (float)number(doc, "world_height"),
        .n = (size_t)n,
        .x = x,
        .y = y,
        .vx = vx,
        .vy = vy,
        .id = NULL,
        .flags = flags,
        .obstacles = obs,
        .n_obstacles = (size_t)m,
        .targets = tgt,
        .n_targets = (size_t)t,
    };

    size_t cap = bin_len + 64;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    memset(out, 0xAA, cap);
    assert_int_equal(snap_size(&view), bin_len);
    size_t written = snap_encode(&view, out, cap);
    assert_same_frame(vc->json_path, out, written, want, bin_len);

    free(out);
    free(x);
    free(y);
    free(vx);
    free(vy);
    free(flags);
    free(obs);
    free(tgt);
    cJSON_Delete(doc);
    free(want);
    free(text);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* Every *.json in the vectors directory, paired with its *.bin (v1 vectors only). */
static vector_case_t *list_vectors(size_t *count)
{
    DIR *dir = opendir(SWARMCAST_VECTORS_DIR);
    *count = 0;
    if (!dir) return NULL;
    vector_case_t *cases = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!has_suffix(e->d_name, ".json")) continue;
        if (!strncmp(e->d_name, "v2-", 3)) continue; /* protocol v2's vectors (tests/tools/wire2_vectors.c) */
        if (*count == cap) {
            cap = cap ? cap * 2 : 8;
            vector_case_t *grown = realloc(cases, cap * sizeof *cases);
            if (!grown) break;
            cases = grown;
        }
        vector_case_t *vc = &cases[*count];
        int stem = (int)(strlen(e->d_name) - strlen(".json"));
        snprintf(vc->json_path, sizeof vc->json_path, "%s/%s", SWARMCAST_VECTORS_DIR, e->d_name);
        snprintf(vc->bin_path, sizeof vc->bin_path, "%s/%.*s.bin", SWARMCAST_VECTORS_DIR, stem, e->d_name);
        snprintf(vc->test_name, sizeof vc->test_name, "snapshot_should_reproduce_vector_%.*s_byte_for_byte",
                 stem, e->d_name);
        (*count)++;
    }
    closedir(dir);
    return cases;
}

static void vectors_directory_should_hold_json_and_bin_pairs(void **state)
{
    (void)state;
    size_t n = 0;
    vector_case_t *cases = list_vectors(&n);
    if (n == 0) print_message("no *.json vectors in %s\n", SWARMCAST_VECTORS_DIR);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        if (!file_exists(cases[i].bin_path)) print_message("missing %s\n", cases[i].bin_path);
        assert_true(file_exists(cases[i].bin_path));
    }
    free(cases);
}

/* ------------------------------------------------------------ encoder */

static void snapshot_size_should_be_24_plus_6n_plus_16m_plus_12t(void **state)
{
    (void)state;
    static const size_t shapes[][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {3, 2, 1}, {7, 5, 4}, {1000, 64, 100}};
    enum { MAX_N = 1000, MAX_M = 64, MAX_T = 100 };
    float *zeros = calloc(MAX_N, sizeof *zeros);
    float *ones = calloc(MAX_N, sizeof *ones);
    uint8_t *flags = calloc(MAX_N, 1);
    obstacle_t *obs = calloc(MAX_M, sizeof *obs);
    target_t *tgt = calloc(MAX_T, sizeof *tgt);
    size_t cap = 24 + 6 * MAX_N + 16 * MAX_M + 12 * MAX_T;
    uint8_t *out = malloc(cap);
    assert_non_null(zeros);
    assert_non_null(ones);
    assert_non_null(flags);
    assert_non_null(obs);
    assert_non_null(tgt);
    assert_non_null(out);
    for (size_t i = 0; i < MAX_N; i++) ones[i] = 1.0f;

    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t n = shapes[s][0], m = shapes[s][1], t = shapes[s][2];
        snap_view_t v = {.width = 100, .height = 100, .n = n, .x = zeros, .y = zeros, .vx = ones, .vy = zeros,
                         .flags = flags, .obstacles = obs, .n_obstacles = m, .targets = tgt, .n_targets = t};
        size_t expected = 24 + 6 * n + 16 * m + 12 * t;
        assert_int_equal(snap_size(&v), expected);
        assert_int_equal(snap_encode(&v, out, cap), expected);
        assert_int_equal(get_u32(out + 16), n);
        assert_int_equal(get_u16(out + 20), m);
        assert_int_equal(get_u16(out + 22), t);
    }
    free(out);
    free(tgt);
    free(obs);
    free(flags);
    free(ones);
    free(zeros);
}

static void snapshot_should_list_agents_in_id_order_whatever_the_storage_order(void **state)
{
    (void)state;
    static const uint32_t storage_to_id[SMALL_N] = {3, 0, 6, 2, 5, 1, 4};
    float x[SMALL_N], y[SMALL_N], vx[SMALL_N], vy[SMALL_N];
    uint8_t flags[SMALL_N];
    float sx[SMALL_N], sy[SMALL_N], svx[SMALL_N], svy[SMALL_N];
    uint8_t sflags[SMALL_N];
    for (size_t k = 0; k < SMALL_N; k++) small_agent(k, &x[k], &y[k], &vx[k], &vy[k], &flags[k]);
    for (size_t i = 0; i < SMALL_N; i++) {
        size_t k = storage_to_id[i];
        sx[i] = x[k];
        sy[i] = y[k];
        svx[i] = vx[k];
        svy[i] = vy[k];
        sflags[i] = flags[k];
    }
    snap_view_t in_order = {.tick = 9, .width = 1000, .height = 500, .n = SMALL_N, .x = x, .y = y, .vx = vx,
                            .vy = vy, .id = NULL, .flags = flags};
    snap_view_t shuffled = in_order;
    shuffled.x = sx;
    shuffled.y = sy;
    shuffled.vx = svx;
    shuffled.vy = svy;
    shuffled.flags = sflags;
    shuffled.id = storage_to_id;

    uint8_t a[24 + 6 * SMALL_N], b[24 + 6 * SMALL_N];
    assert_int_equal(snap_encode(&in_order, a, sizeof a), sizeof a);
    assert_int_equal(snap_encode(&shuffled, b, sizeof b), sizeof b);
    assert_same_frame("shuffled storage", b, sizeof b, a, sizeof a);

    /* And record k really is agent k: x = 125·k → x_q = 8192·k, heading k·π/4 → 32·k. */
    for (size_t k = 0; k < SMALL_N; k++) {
        const uint8_t *rec = b + 24 + 6 * k;
        assert_int_equal(get_u16(rec), 8192 * k);
        assert_int_equal(get_u16(rec + 2), spec_q(50.0 * (double)k, 500.0));
        assert_int_equal(rec[4], (32 * k) & 0xff);
        assert_int_equal(rec[5], k & 1u);
    }
}

static void snapshot_should_refuse_a_too_small_buffer_and_write_nothing(void **state)
{
    (void)state;
    float x[SMALL_N], y[SMALL_N], vx[SMALL_N], vy[SMALL_N];
    uint8_t flags[SMALL_N];
    for (size_t k = 0; k < SMALL_N; k++) small_agent(k, &x[k], &y[k], &vx[k], &vy[k], &flags[k]);
    obstacle_t obs[2] = {{.id = 1, .x = 10, .y = 10, .r = 5}, {.id = 2, .x = 20, .y = 20, .r = 5}};
    target_t tgt[1] = {{.client_id = 4, .x = 30, .y = 30}};
    snap_view_t v = {.width = 1000, .height = 500, .n = SMALL_N, .x = x, .y = y, .vx = vx, .vy = vy,
                     .flags = flags, .obstacles = obs, .n_obstacles = 2, .targets = tgt, .n_targets = 1};
    enum { size = 24 + 6 * SMALL_N + 16 * 2 + 12 };
    assert_int_equal(snap_size(&v), size);

    uint8_t buf[size + 16], pristine[size + 16];
    memset(pristine, 0xAA, sizeof pristine);
    static const size_t caps[] = {0, 1, 23, 24, size - 12, size - 1};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        memcpy(buf, pristine, sizeof buf);
        assert_int_equal(snap_encode(&v, buf, caps[c]), 0);
        assert_memory_equal(buf, pristine, sizeof buf);
    }
    /* exactly big enough is enough */
    memcpy(buf, pristine, sizeof buf);
    assert_int_equal(snap_encode(&v, buf, size), size);
    assert_memory_equal(buf + size, pristine + size, sizeof buf - size);
}

static void snapshot_should_refuse_counts_that_do_not_fit_their_u16_fields(void **state)
{
    (void)state;
    enum { TOO_MANY = 0x10000 };
    obstacle_t *obs = calloc(TOO_MANY, sizeof *obs);
    target_t *tgt = calloc(TOO_MANY, sizeof *tgt);
    size_t cap = 24 + 16 * (size_t)TOO_MANY + 12 * (size_t)TOO_MANY;
    uint8_t *out = malloc(cap);
    assert_non_null(obs);
    assert_non_null(tgt);
    assert_non_null(out);

    snap_view_t v = {.width = 100, .height = 100, .obstacles = obs, .n_obstacles = TOO_MANY, .targets = tgt};
    memset(out, 0xAA, 24);
    assert_int_equal(snap_encode(&v, out, cap), 0);
    assert_int_equal(out[0], 0xAA);

    v.n_obstacles = TOO_MANY - 1;
    assert_int_equal(snap_encode(&v, out, cap), 24 + 16 * (size_t)(TOO_MANY - 1));
    assert_int_equal(get_u16(out + 20), 0xffff);

    v.n_obstacles = 0;
    v.n_targets = TOO_MANY;
    memset(out, 0xAA, 24);
    assert_int_equal(snap_encode(&v, out, cap), 0);
    assert_int_equal(out[0], 0xAA);

    free(out);
    free(tgt);
    free(obs);
}

static void snapshot_should_clamp_positions_at_the_world_edge_to_65535(void **state)
{
    (void)state;
    static const float worlds[][2] = {{1600, 900}, {1000, 400}, {100, 100}, {1234.5f, 77.25f}};
    for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; w++) {
        float width = worlds[w][0], height = worlds[w][1];
        /* on the far edge, on the near edge, and the far corner via one axis each */
        float x[4] = {width, 0.0f, width, 0.0f};
        float y[4] = {height, 0.0f, 0.0f, height};
        float vx[4] = {1, 1, 1, 1}, vy[4] = {0, 0, 0, 0};
        uint8_t flags[4] = {0, 0, 0, 0};
        snap_view_t v = {.width = width, .height = height, .n = 4, .x = x, .y = y, .vx = vx, .vy = vy,
                         .flags = flags};
        uint8_t out[24 + 6 * 4];
        assert_int_equal(snap_encode(&v, out, sizeof out), sizeof out);
        assert_int_equal(get_u16(out + 24 + 0), 65535);
        assert_int_equal(get_u16(out + 24 + 2), 65535);
        assert_int_equal(get_u16(out + 30 + 0), 0);
        assert_int_equal(get_u16(out + 30 + 2), 0);
        assert_int_equal(get_u16(out + 36 + 0), 65535);
        assert_int_equal(get_u16(out + 36 + 2), 0);
        assert_int_equal(get_u16(out + 42 + 0), 0);
        assert_int_equal(get_u16(out + 42 + 2), 65535);
    }
}

/* Found by tests/fuzz/fuzz_snapshot.c: a NaN position was converted to an
 * integer (undefined), and a NaN heading indexed the arctangent table with
 * INT_MIN. The world never holds NaN, but the encoder must not turn one into
 * a wild read. */
static void snapshot_should_encode_non_finite_values_as_documented(void **state)
{
    (void)state;
    const float nan = NAN, inf = INFINITY;
    float x[6] = {nan, -inf, inf, 10, 10, 10};
    float y[6] = {10, nan, -inf, 10, 10, 10};
    float vx[6] = {nan, 1, inf, inf, -inf, 0};
    float vy[6] = {1, nan, inf, 1, -inf, -inf};
    uint8_t flags[6] = {0};
    snap_view_t v = {.width = 100, .height = 100, .n = 6, .x = x, .y = y, .vx = vx, .vy = vy, .flags = flags};
    uint8_t out[24 + 6 * 6];
    assert_int_equal(snap_encode(&v, out, sizeof out), sizeof out);
    const uint8_t *rec = out + 24;
    assert_int_equal(get_u16(rec + 0), 0);      /* x NaN */
    assert_int_equal(rec[4], 0);                /* heading of (NaN, 1) */
    assert_int_equal(get_u16(rec + 6 + 2), 0);  /* y NaN */
    assert_int_equal(rec[6 + 4], 0);            /* heading of (1, NaN) */
    assert_int_equal(get_u16(rec + 12), 65535); /* x +inf */
    assert_int_equal(get_u16(rec + 12 + 2), 0); /* y -inf */
    assert_int_equal(rec[12 + 4], 0);           /* heading of (inf, inf): none */
    assert_int_equal(rec[18 + 4], 0);           /* (inf, 1): along +x */
    assert_int_equal(rec[24 + 4], 0);           /* (-inf, -inf): none */
    assert_int_equal(rec[30 + 4], 192);         /* (0, -inf): along -y, 3/4 of a turn */
}

static void snapshot_header_should_put_each_field_at_its_documented_offset_little_endian(void **state)
{
    (void)state;
    float x[2] = {10, 20}, y[2] = {30, 40}, vx[2] = {1, 0}, vy[2] = {0, 1};
    uint8_t flags[2] = {1, 0};
    obstacle_t obs[3] = {{.id = 0x11223344u, .x = 1.5f, .y = 2.5f, .r = 3.5f}, {.id = 7, .x = 4, .y = 5, .r = 6},
                         {.id = 8, .x = 7, .y = 8, .r = 9}};
    target_t tgt[1] = {{.client_id = 0x55667788u, .x = 12.25f, .y = 13.75f}};
    snap_view_t v = {.tick = 0xA1B2C3D4u, .paused = true, .width = 1234.5f, .height = 678.25f, .n = 2, .x = x,
                     .y = y, .vx = vx, .vy = vy, .flags = flags, .obstacles = obs, .n_obstacles = 3,
                     .targets = tgt, .n_targets = 1};
    uint8_t out[24 + 2 * 6 + 3 * 16 + 12];
    assert_int_equal(snap_encode(&v, out, sizeof out), sizeof out);

    static const uint8_t header[24] = {
        0x53, 0x01,             /* kind 'S', version 1 */
        0x01, 0x00,             /* flags: paused */
        0xD4, 0xC3, 0xB2, 0xA1, /* tick */
        0x00, 0x50, 0x9A, 0x44, /* 1234.5f */
        0x00, 0x90, 0x29, 0x44, /* 678.25f */
        0x02, 0x00, 0x00, 0x00, /* agent_count */
        0x03, 0x00,             /* obstacle_count */
        0x01, 0x00,             /* target_count */
    };
    assert_memory_equal(out, header, sizeof header);
    assert_int_equal(out[0], 0x53);
    assert_int_equal(out[1], 1);
    assert_int_equal(get_u16(out + 2), 1);
    assert_int_equal(get_u32(out + 4), 0xA1B2C3D4u);
    assert_float_equal(get_f32(out + 8), 1234.5f, 0.0f);
    assert_float_equal(get_f32(out + 12), 678.25f, 0.0f);
    assert_int_equal(get_u32(out + 16), 2);
    assert_int_equal(get_u16(out + 20), 3);
    assert_int_equal(get_u16(out + 22), 1);

    /* agent records: x_q, y_q, heading_q, flags */
    const uint8_t *a = out + 24;
    assert_int_equal(get_u16(a), spec_q(10, 1234.5));
    assert_int_equal(get_u16(a + 2), spec_q(30, 678.25));
    assert_int_equal(a[4], 0);
    assert_int_equal(a[5], 1);
    assert_int_equal(get_u16(a + 6), spec_q(20, 1234.5));
    assert_int_equal(get_u16(a + 8), spec_q(40, 678.25));
    assert_int_equal(a[10], 64); /* +y: π/2 */
    assert_int_equal(a[11], 0);

    /* obstacles after the agents, then targets */
    const uint8_t *o = out + 24 + 2 * 6;
    static const uint8_t first_obstacle[16] = {0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0xC0, 0x3F,
                                               0x00, 0x00, 0x20, 0x40, 0x00, 0x00, 0x60, 0x40};
    assert_memory_equal(o, first_obstacle, sizeof first_obstacle);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(get_u32(o + 16 * k), obs[k].id);
        assert_float_equal(get_f32(o + 16 * k + 4), obs[k].x, 0.0f);
        assert_float_equal(get_f32(o + 16 * k + 8), obs[k].y, 0.0f);
        assert_float_equal(get_f32(o + 16 * k + 12), obs[k].r, 0.0f);
    }
    const uint8_t *t = o + 3 * 16;
    assert_int_equal(get_u32(t), 0x55667788u);
    assert_float_equal(get_f32(t + 4), 12.25f, 0.0f);
    assert_float_equal(get_f32(t + 8), 13.75f, 0.0f);

    /* not paused: flags all zero */
    v.paused = false;
    assert_int_equal(snap_encode(&v, out, sizeof out), sizeof out);
    assert_int_equal(get_u16(out + 2), 0);
}

static void snapshot_should_quantize_headings_in_all_four_quadrants(void **state)
{
    (void)state;
    /* θ = k·2π/256 for a spread of k, including negative angles (atan2 gives
     * (−π, π]) which must wrap to 256 + k. */
    static const int ks[] = {0, 1, 32, 63, 64, 100, 127, 128, -1, -32, -64, -100, -127};
    enum { K = sizeof ks / sizeof ks[0] };
    float x[K], y[K], vx[K], vy[K];
    uint8_t flags[K];
    for (size_t i = 0; i < K; i++) {
        double theta = ks[i] * 2.0 * M_PI / 256.0;
        x[i] = y[i] = 1.0f;
        vx[i] = (float)(cos(theta) * 100.0);
        vy[i] = (float)(sin(theta) * 100.0);
        flags[i] = 0;
    }
    snap_view_t v = {.width = 100, .height = 100, .n = K, .x = x, .y = y, .vx = vx, .vy = vy, .flags = flags};
    uint8_t out[24 + 6 * K];
    assert_int_equal(snap_encode(&v, out, sizeof out), sizeof out);
    for (size_t i = 0; i < K; i++) assert_int_equal(out[24 + 6 * i + 4], (unsigned)(ks[i] + 256) % 256u);
}

/* The encoder finds the heading sector without atan2; it must agree with
 * round(atan2(vy, vx) · 256 / 2π) mod 256 for any direction and length, but
 * for directions within a hair (1e-5 rad) of a sector edge. */
static void snapshot_headings_should_match_atan2_rounding_for_every_direction(void **state)
{
    (void)state;
    enum { N = 20000 };
    static float x[N], y[N], vx[N], vy[N];
    static uint8_t flags[N], frame[SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * N];
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
        double angle = (double)(s >> 11) / 9007199254740992.0 * 2.0 * M_PI;
        double length = i % 3 == 0 ? 1e-3 : (i % 3 == 1 ? 1.0 : 900.0);
        x[i] = y[i] = 0;
        vx[i] = (float)(length * cos(angle));
        vy[i] = (float)(length * sin(angle));
        flags[i] = 0;
    }
    snap_view_t v = {.width = 100, .height = 100, .n = N, .x = x, .y = y, .vx = vx, .vy = vy, .flags = flags};
    assert_int_equal(snap_encode(&v, frame, sizeof frame), sizeof frame);
    int checked = 0;
    for (int i = 0; i < N; i++) {
        double steps = atan2((double)vy[i], (double)vx[i]) * 256.0 / (2.0 * M_PI);
        if (fabs(steps - floor(steps) - 0.5) < 1e-5 * 256.0 / (2.0 * M_PI)) continue;
        int want = (int)floor(steps + 0.5) & 0xff;
        assert_int_equal(frame[SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * i + 4], want);
        checked++;
    }
    assert_true(checked > N * 99 / 100);
}

static void snapshot_should_list_predators_after_the_agents_with_their_flag(void **state)
{
    (void)state;
    world_config_t cfg = {.width = 500, .height = 500, .dt = 1.0f / 60, .seed = 3, .agents = 7, .max_agents = 100,
                          .max_targets = 2};
    world_t w;
    assert_int_equal(world_init(&w, &cfg), 0);
    char msg[160];
    assert_int_equal(world_set_param(&w, (size_t)params_find("predators"), 2, msg, sizeof msg), SIM_OK);
    snap_view_t v;
    snap_view_of_world(&w, &v);
    uint8_t frame[256];
    size_t len = snap_encode(&v, frame, sizeof frame);
    assert_int_equal(len, SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * 9);
    assert_int_equal(frame[16], 9); /* agent_count counts the predators */
    for (int k = 0; k < 9; k++) {
        uint8_t flags = frame[SNAP_HEADER_BYTES + SNAP_AGENT_BYTES * k + 5];
        assert_int_equal(flags & AGENT_PREDATOR, k >= 7 ? AGENT_PREDATOR : 0);
    }
    world_free(&w);
}

static void snapshot_of_a_world_should_show_its_agents_obstacles_targets_and_pause(void **state)
{
    (void)state;
    world_t w;
    world_config_t cfg = {.width = 100, .height = 100, .dt = 1.0f / 60.0f, .seed = 1, .agents = 10,
                          .max_agents = 1000, .max_targets = 8};
    assert_int_equal(world_init(&w, &cfg), 0);
    uint32_t oid = 0;
    assert_int_equal(world_add_obstacle(&w, 20, 30, 5, &oid), 0);
    assert_int_equal(world_set_target(&w, 5, 40, 50), 0);
    assert_int_equal(world_set_target(&w, 2, 60, 70), 0);
    for (int i = 0; i < 3; i++) world_step(&w);
    w.paused = true;

    snap_view_t v;
    snap_view_of_world(&w, &v);
    size_t size = snap_size(&v);
    assert_int_equal(size, 24 + 6 * 10 + 16 + 2 * 12);
    uint8_t *out = malloc(size);
    assert_non_null(out);
    assert_int_equal(snap_encode(&v, out, size), size);
    assert_int_equal(get_u16(out + 2), 1);
    assert_int_equal(get_u32(out + 4), 3);
    assert_float_equal(get_f32(out + 8), 100.0f, 0.0f);
    assert_int_equal(get_u32(out + 16), 10);
    assert_int_equal(get_u16(out + 20), 1);
    assert_int_equal(get_u16(out + 22), 2);
    /* each agent's record sits at its id */
    for (size_t i = 0; i < w.n; i++) {
        const uint8_t *rec = out + 24 + 6 * w.cur.id[i];
        assert_int_equal(get_u16(rec), spec_q(w.cur.x[i], 100.0));
        assert_int_equal(get_u16(rec + 2), spec_q(w.cur.y[i], 100.0));
        assert_int_equal(rec[5], w.cur.flags[i]);
    }
    const uint8_t *o = out + 24 + 60;
    assert_int_equal(get_u32(o), oid);
    assert_float_equal(get_f32(o + 4), 20.0f, 0.0f);
    assert_float_equal(get_f32(o + 12), 5.0f, 0.0f);
    /* targets in increasing client_id order */
    assert_int_equal(get_u32(o + 16), 2);
    assert_float_equal(get_f32(o + 20), 60.0f, 0.0f);
    assert_int_equal(get_u32(o + 28), 5);
    assert_float_equal(get_f32(o + 36), 50.0f, 0.0f);
    free(out);
    world_free(&w);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(vectors_directory_should_hold_json_and_bin_pairs),
        cmocka_unit_test(snapshot_size_should_be_24_plus_6n_plus_16m_plus_12t),
        cmocka_unit_test(snapshot_should_list_agents_in_id_order_whatever_the_storage_order),
        cmocka_unit_test(snapshot_should_refuse_a_too_small_buffer_and_write_nothing),
        cmocka_unit_test(snapshot_should_refuse_counts_that_do_not_fit_their_u16_fields),
        cmocka_unit_test(snapshot_should_clamp_positions_at_the_world_edge_to_65535),
        cmocka_unit_test(snapshot_should_encode_non_finite_values_as_documented),
        cmocka_unit_test(snapshot_header_should_put_each_field_at_its_documented_offset_little_endian),
        cmocka_unit_test(snapshot_should_quantize_headings_in_all_four_quadrants),
        cmocka_unit_test(snapshot_headings_should_match_atan2_rounding_for_every_direction),
        cmocka_unit_test(snapshot_should_list_predators_after_the_agents_with_their_flag),
        cmocka_unit_test(snapshot_of_a_world_should_show_its_agents_obstacles_targets_and_pause),
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];

    /* One test per vector found at run time. */
    size_t n_vectors = 0;
    vector_case_t *vectors = list_vectors(&n_vectors);
    struct CMUnitTest *tests = calloc(n_fixed + n_vectors, sizeof *tests);
    if (!tests) return 1;
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < n_vectors; i++) {
        tests[n_fixed + i] = (struct CMUnitTest){
            .name = vectors[i].test_name,
            .test_func = snapshot_should_reproduce_the_vector_byte_for_byte,
            .initial_state = &vectors[i],
        };
    }
    int failed = _cmocka_run_group_tests("snapshot", tests, n_fixed + n_vectors, NULL, NULL);
    free(tests);
    free(vectors);
    return failed;
}

/* The decoder of protocol v2 frames, for tests, fuzzing and tools (the
 * browser's is client-web/net/wire2.js). A frame is decoded into spare buffers
 * and only committed when all of it is valid, so a rejected frame leaves the
 * state as it was. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"
#include "protocol/wire2_bits.h"
#include "protocol/wire2_canon.h"

typedef struct vstate {
    bool valid;
    wire2_mode_t mode;
    wire2_rect_t rect;
    wire2_bounds_t b;
    uint32_t wq, hq, seq;
    wire2_item_t *items; /* detail, canonical order */
    size_t n, cap;
    uint32_t cols, rows; /* LOD */
    uint8_t *d, *a;
    size_t cells_cap;
} vstate_t;

typedef struct scene {
    bool present;
    float width, height;
    wire2_dec_obstacle_t *obstacles;
    wire2_dec_target_t *targets;
    size_t n_obstacles, n_targets, obstacles_cap, targets_cap;
} scene_t;

struct wire2_dec {
    wire2_dec_state_t pub;
    scene_t scene, staged;
    vstate_t vs[3];
    int cur;
    uint32_t *qx, *qy; /* the public absolute view of the committed items */
    uint16_t *h;
    uint8_t *f;
    size_t out_cap;
    uint8_t *exit_mark;
    size_t exit_cap;
    wire2_sorter_t sorter;
};

wire2_dec_t *wire2_dec_new(void) { return calloc(1, sizeof(wire2_dec_t)); }

static void scene_free(scene_t *s)
{
    free(s->obstacles);
    free(s->targets);
}

void wire2_dec_free(wire2_dec_t *d)
{
    if (!d) return;
    scene_free(&d->scene);
    scene_free(&d->staged);
    for (int i = 0; i < 3; i++) {
        free(d->vs[i].items);
        free(d->vs[i].d);
        free(d->vs[i].a);
    }
    free(d->qx);
    free(d->qy);
    free(d->h);
    free(d->f);
    free(d->exit_mark);
    wire2_sorter_free(&d->sorter);
    free(d);
}

const wire2_dec_state_t *wire2_dec_state(const wire2_dec_t *d) { return &d->pub; }

static int fail(char *err, size_t err_len, int code, const char *fmt, ...)
{
    if (err && err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return code;
}

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

static int reserve_items(vstate_t *v, size_t n)
{
    if (n <= v->cap && v->items) return 0; /* never NULL, even for no items: pointer arithmetic on it follows */
    size_t cap = n + n / 2 + 16;
    wire2_item_t *p = realloc(v->items, cap * sizeof *p);
    if (!p) return WIRE2_E_NOMEM;
    v->items = p;
    v->cap = cap;
    return 0;
}

static int reserve_cells(vstate_t *v, size_t cells)
{
    if (cells <= v->cells_cap) return 0;
    uint8_t *d = realloc(v->d, cells);
    if (!d) return WIRE2_E_NOMEM;
    v->d = d;
    uint8_t *a = realloc(v->a, cells);
    if (!a) return WIRE2_E_NOMEM;
    v->a = a;
    v->cells_cap = cells;
    return 0;
}

static size_t bits_left(const wire2_bitr_t *r) { return r->len_bits - r->pos; }

/* Items coded as a key's (also a delta's entries), appended at out[0 … n). */
static int read_items(wire2_bitr_t *r, wire2_item_t *out, size_t n, unsigned bx, uint64_t w, uint64_t h,
                      char *err, size_t err_len)
{
    unsigned k_gap = wire2_get_u(r, 4), k_h = wire2_get_u(r, 4);
    uint64_t ry = 0;
    int64_t hd = 0;
    unsigned f = 0;
    for (size_t i = 0; i < n; i++) {
        ry += wire2_get_eg(r, k_gap);
        uint32_t rx = wire2_get_u(r, bx);
        hd = (hd + wire2_get_se(r, k_h)) & 1023;
        if (!wire2_get_u(r, 1)) f = wire2_get_u(r, 8);
        if (!wire2_bitr_ok(r)) break;
        if (ry >= h || rx >= w)
            return fail(err, err_len, WIRE2_E_MALFORMED, "item %zu at (%u, %llu) outside the rect", i, rx,
                        (unsigned long long)ry);
        out[i] = (wire2_item_t){.ry = (uint32_t)ry, .rx = rx, .h = (uint16_t)hd, .f = (uint8_t)f, .py = (uint32_t)ry,
                                .px = rx};
    }
    return 0;
}

static int check_reader(const wire2_bitr_t *r, char *err, size_t err_len)
{
    if (r->malformed) return fail(err, err_len, WIRE2_E_MALFORMED, "Exp-Golomb prefix longer than 32 bits");
    if (r->overrun) return fail(err, err_len, WIRE2_E_MALFORMED, "payload read past its end");
    return 0;
}

/* A count read from the stream: at most 2^22, and at most one per `min_bits`
 * bits left (so a forged count cannot make us allocate much). */
static int check_count(const wire2_bitr_t *r, uint64_t count, unsigned min_bits, const char *what, char *err,
                       size_t err_len)
{
    if (!wire2_bitr_ok(r)) return check_reader(r, err, err_len);
    if (count > WIRE2_MAX_COUNT) return fail(err, err_len, WIRE2_E_MALFORMED, "%s %llu above 2^22", what,
                                             (unsigned long long)count);
    if (count > bits_left(r) / min_bits) return fail(err, err_len, WIRE2_E_MALFORMED, "%s %llu: payload truncated",
                                                     what, (unsigned long long)count);
    return 0;
}

typedef struct geom {
    uint64_t w, h;
    unsigned bx;
} geom_t;

static geom_t geom_of(const wire2_bounds_t *b)
{
    geom_t g = {.w = b->qx1 - b->qx0, .h = b->qy1 - b->qy0};
    g.bx = g.w > 1 ? wire2_bitlength(g.w - 1) : 0;
    return g;
}

static unsigned by_of(const geom_t *g) { return g->h > 1 ? wire2_bitlength(g->h - 1) : 0; }

static int detail_key(wire2_dec_t *d, wire2_bitr_t *r, vstate_t *dst, char *err, size_t err_len)
{
    geom_t g = geom_of(&dst->b);
    uint64_t n = wire2_get_eg(r, 4);
    int rc = check_count(r, n, 3, "item count", err, err_len);
    if (rc < 0) return rc;
    if ((rc = reserve_items(dst, n)) < 0) return fail(err, err_len, rc, "out of memory");
    if ((rc = read_items(r, dst->items, n, g.bx, g.w, g.h, err, err_len)) < 0) return rc;
    if ((rc = check_reader(r, err, err_len)) < 0) return rc;
    dst->n = n;
    if (wire2_sort_items(dst->items, n, g.bx, by_of(&g), &d->sorter) < 0) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
    return 0;
}

static int detail_delta(wire2_dec_t *d, wire2_bitr_t *r, const vstate_t *src, vstate_t *dst, char *err, size_t err_len)
{
    geom_t g = geom_of(&dst->b);
    size_t old_n = src->n;
    uint64_t n_exits = wire2_get_eg(r, 4);
    int rc = check_count(r, n_exits, 1, "exit count", err, err_len);
    if (rc < 0) return rc;
    if (n_exits > old_n)
        return fail(err, err_len, WIRE2_E_MALFORMED, "%llu exits from %zu items", (unsigned long long)n_exits, old_n);
    if (old_n + 1 > d->exit_cap) {
        uint8_t *m = realloc(d->exit_mark, old_n + 1);
        if (!m) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
        d->exit_mark = m;
        d->exit_cap = old_n + 1;
    }
    memset(d->exit_mark, 0, old_n);
    unsigned k_e = wire2_get_u(r, 4);
    uint64_t idx = 0;
    for (uint64_t i = 0; i < n_exits; i++) {
        uint64_t v = wire2_get_eg(r, k_e);
        idx = i ? idx + 1 + v : v;
        if (!wire2_bitr_ok(r)) return check_reader(r, err, err_len);
        if (idx >= old_n)
            return fail(err, err_len, WIRE2_E_MALFORMED, "exit index %llu out of range (%zu items)",
                        (unsigned long long)idx, old_n);
        d->exit_mark[idx] = 1;
    }
    size_t n_stays = old_n - n_exits;
    unsigned kx = wire2_get_u(r, 4), ky = wire2_get_u(r, 4), kh = wire2_get_u(r, 4);
    if ((rc = check_count(r, n_stays, 3, "stay count", err, err_len)) < 0) return rc;
    /* Entries are not known yet: reserve for the stays, grow later. */
    if (reserve_items(dst, n_stays) < 0) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
    size_t m = 0;
    for (size_t j = 0; j < old_n; j++) {
        if (d->exit_mark[j]) continue;
        const wire2_item_t *o = &src->items[j];
        int64_t ex = wire2_get_se(r, kx), ey = wire2_get_se(r, ky), eh = wire2_get_se(r, kh);
        if (!wire2_bitr_ok(r)) return check_reader(r, err, err_len);
        int64_t rx = 2 * (int64_t)o->rx - (int64_t)o->px + ex;
        int64_t ry = 2 * (int64_t)o->ry - (int64_t)o->py + ey;
        if (rx < 0 || ry < 0 || (uint64_t)rx >= g.w || (uint64_t)ry >= g.h)
            return fail(err, err_len, WIRE2_E_MALFORMED, "stay %zu moved outside the rect", m);
        dst->items[m++] = (wire2_item_t){.ry = (uint32_t)ry, .rx = (uint32_t)rx,
                                         .h = (uint16_t)(((int64_t)o->h + eh) & 1023), .f = o->f,
                                         .py = o->ry, .px = o->rx};
    }
    uint64_t n_flags = wire2_get_eg(r, 4);
    if ((rc = check_count(r, n_flags, 1, "flag change count", err, err_len)) < 0) return rc;
    if (n_flags > n_stays) return fail(err, err_len, WIRE2_E_MALFORMED, "%llu flag changes for %zu stays",
                                       (unsigned long long)n_flags, n_stays);
    idx = 0;
    for (uint64_t i = 0; i < n_flags; i++) {
        uint64_t v = wire2_get_eg(r, 4);
        idx = i ? idx + 1 + v : v;
        uint32_t f = wire2_get_u(r, 8);
        if (!wire2_bitr_ok(r)) return check_reader(r, err, err_len);
        if (idx >= n_stays)
            return fail(err, err_len, WIRE2_E_MALFORMED, "flag change index %llu out of range (%zu stays)",
                        (unsigned long long)idx, n_stays);
        dst->items[idx].f = (uint8_t)f;
    }
    uint64_t n_entries = wire2_get_eg(r, 4);
    if ((rc = check_count(r, n_entries, 3, "entry count", err, err_len)) < 0) return rc;
    if (n_stays + n_entries > WIRE2_MAX_COUNT)
        return fail(err, err_len, WIRE2_E_MALFORMED, "%llu items above 2^22", (unsigned long long)(n_stays + n_entries));
    if (reserve_items(dst, n_stays + n_entries) < 0) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
    if ((rc = read_items(r, dst->items + n_stays, n_entries, g.bx, g.w, g.h, err, err_len)) < 0) return rc;
    if ((rc = check_reader(r, err, err_len)) < 0) return rc;
    dst->n = n_stays + n_entries;
    if (wire2_sort_items(dst->items, dst->n, g.bx, by_of(&g), &d->sorter) < 0)
        return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
    return 0;
}

static int lod_chunk(wire2_bitr_t *r, const vstate_t *src, vstate_t *dst, bool is_delta, char *err, size_t err_len)
{
    size_t cells = (size_t)dst->cols * dst->rows;
    if (reserve_cells(dst, cells) < 0) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
    unsigned kd = wire2_get_u(r, 4), ka = wire2_get_u(r, 4);
    int rc = check_count(r, cells, 1, "cell count", err, err_len);
    if (rc < 0) return rc;
    int32_t pa = 0;
    for (size_t c = 0; c < cells; c++) {
        int64_t dv;
        if (is_delta) {
            dv = (int64_t)src->d[c] + wire2_get_se(r, kd);
        } else {
            dv = (int64_t)wire2_get_eg(r, kd);
        }
        if (!wire2_bitr_ok(r)) return check_reader(r, err, err_len);
        if (dv < 0 || dv > 63) return fail(err, err_len, WIRE2_E_MALFORMED, "cell %zu density %lld outside 0..63", c, (long long)dv);
        dst->d[c] = (uint8_t)dv;
        dst->a[c] = 0;
        if (dv > 0) {
            int64_t base = is_delta ? src->a[c] : pa;
            int64_t av = (base + wire2_get_se(r, ka)) & 63;
            dst->a[c] = (uint8_t)av;
            pa = (int32_t)av;
        }
    }
    return check_reader(r, err, err_len);
}

static int read_scene(scene_t *s, const uint8_t *p, size_t len, size_t *used, char *err, size_t err_len)
{
    if (len < WIRE2_SCENE_FIXED_BYTES) return fail(err, err_len, WIRE2_E_MALFORMED, "truncated scene");
    size_t no = get_u16(p + 8), nt = get_u16(p + 10);
    size_t size = WIRE2_SCENE_FIXED_BYTES + SNAP_OBSTACLE_BYTES * no + SNAP_TARGET_BYTES * nt;
    if (len < size) return fail(err, err_len, WIRE2_E_MALFORMED, "truncated scene");
    if (no > s->obstacles_cap) {
        wire2_dec_obstacle_t *o = realloc(s->obstacles, no * sizeof *o);
        if (!o) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
        s->obstacles = o;
        s->obstacles_cap = no;
    }
    if (nt > s->targets_cap) {
        wire2_dec_target_t *t = realloc(s->targets, nt * sizeof *t);
        if (!t) return fail(err, err_len, WIRE2_E_NOMEM, "out of memory");
        s->targets = t;
        s->targets_cap = nt;
    }
    s->present = true;
    s->width = get_f32(p);
    s->height = get_f32(p + 4);
    s->n_obstacles = no;
    s->n_targets = nt;
    const uint8_t *q = p + WIRE2_SCENE_FIXED_BYTES;
    for (size_t k = 0; k < no; k++, q += SNAP_OBSTACLE_BYTES)
        s->obstacles[k] = (wire2_dec_obstacle_t){get_u32(q), get_f32(q + 4), get_f32(q + 8), get_f32(q + 12)};
    for (size_t k = 0; k < nt; k++, q += SNAP_TARGET_BYTES)
        s->targets[k] = (wire2_dec_target_t){get_u32(q), get_f32(q + 4), get_f32(q + 8)};
    *used = size;
    return 0;
}

/* The public arrays of the committed view. */
static int publish(wire2_dec_t *d)
{
    const vstate_t *v = &d->vs[d->cur];
    wire2_dec_state_t *p = &d->pub;
    const scene_t *s = &d->scene;
    p->has_scene = s->present;
    p->width = s->width;
    p->height = s->height;
    p->wq = s->present ? wire2_quanta_of(s->width) : 0;
    p->hq = s->present ? wire2_quanta_of(s->height) : 0;
    p->n_obstacles = s->n_obstacles;
    p->n_targets = s->n_targets;
    p->obstacles = s->obstacles;
    p->targets = s->targets;
    p->has_view = v->valid;
    p->mode = v->mode;
    p->rect = v->rect;
    p->bounds = v->b;
    p->view_seq = v->seq;
    size_t n = v->valid && v->mode == WIRE2_DETAIL ? v->n : 0;
    if (n > d->out_cap) {
        size_t cap = n + n / 2 + 16;
        uint32_t *qx = realloc(d->qx, cap * sizeof *qx);
        if (!qx) return WIRE2_E_NOMEM;
        d->qx = qx;
        uint32_t *qy = realloc(d->qy, cap * sizeof *qy);
        if (!qy) return WIRE2_E_NOMEM;
        d->qy = qy;
        uint16_t *h = realloc(d->h, cap * sizeof *h);
        if (!h) return WIRE2_E_NOMEM;
        d->h = h;
        uint8_t *f = realloc(d->f, cap);
        if (!f) return WIRE2_E_NOMEM;
        d->f = f;
        d->out_cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        d->qx[i] = (uint32_t)(v->items[i].rx + v->b.qx0);
        d->qy[i] = (uint32_t)(v->items[i].ry + v->b.qy0);
        d->h[i] = v->items[i].h;
        d->f[i] = v->items[i].f;
    }
    p->count = n;
    p->qx = d->qx;
    p->qy = d->qy;
    p->h = d->h;
    p->f = d->f;
    bool lod = v->valid && v->mode == WIRE2_LOD;
    p->cols = lod ? v->cols : 0;
    p->rows = lod ? v->rows : 0;
    p->d = lod ? v->d : NULL;
    p->a = lod ? v->a : NULL;
    return 0;
}

int wire2_dec_frame(wire2_dec_t *d, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    if (err && err_len) err[0] = '\0';
    if (len < WIRE2_HEADER_BYTES) return fail(err, err_len, WIRE2_E_MALFORMED, "truncated header (%zu bytes)", len);
    if (buf[0] != WIRE2_KIND) return fail(err, err_len, WIRE2_E_MALFORMED, "kind 0x%02x is not a snapshot", buf[0]);
    if (buf[1] != WIRE2_VERSION) return fail(err, err_len, WIRE2_E_MALFORMED, "version %u is not 2", buf[1]);
    uint32_t flags = get_u16(buf + 2);
    uint32_t seq = get_u32(buf + 4), tick = get_u32(buf + 8), population = get_u32(buf + 12);
    size_t n_chunks = get_u16(buf + 16);
    size_t off = WIRE2_HEADER_BYTES;
    int rc;

    const scene_t *scene = &d->scene;
    if (flags & WIRE2_FLAG_SCENE) {
        size_t used = 0;
        if ((rc = read_scene(&d->staged, buf + off, len - off, &used, err, err_len)) < 0) return rc;
        off += used;
        scene = &d->staged;
    }
    uint32_t wq = scene->present ? wire2_quanta_of(scene->width) : 0;
    uint32_t hq = scene->present ? wire2_quanta_of(scene->height) : 0;

    int src = d->cur, last = d->cur;
    bool keyed = false;
    for (size_t i = 0; i < n_chunks; i++) {
        if (len - off < WIRE2_CHUNK_HEADER_BYTES) return fail(err, err_len, WIRE2_E_MALFORMED, "truncated chunk %zu header", i);
        const uint8_t *c = buf + off;
        unsigned type = c[0];
        wire2_rect_t rect = {c[1], (uint16_t)get_u16(c + 2), (uint16_t)get_u16(c + 4), (uint16_t)get_u16(c + 6),
                             (uint16_t)get_u16(c + 8)};
        uint32_t cseq = get_u32(c + 10);
        uint32_t payload = get_u32(c + 14);
        off += WIRE2_CHUNK_HEADER_BYTES;
        if (type < WIRE2_CHUNK_DETAIL_KEY || type > WIRE2_CHUNK_LOD_DELTA)
            return fail(err, err_len, WIRE2_E_MALFORMED, "chunk %zu: unknown type %u", i, type);
        if (rect.level > WIRE2_MAX_LEVEL) return fail(err, err_len, WIRE2_E_MALFORMED, "chunk %zu: level %u > 7", i, rect.level);
        if (!wire2_rect_valid(rect)) return fail(err, err_len, WIRE2_E_MALFORMED, "chunk %zu: bad rect", i);
        if (payload > len - off) return fail(err, err_len, WIRE2_E_MALFORMED, "chunk %zu: truncated payload", i);
        if (!wq || !hq) return fail(err, err_len, WIRE2_E_MALFORMED, "chunk %zu: no scene (world size) known", i);
        bool is_lod = type >= WIRE2_CHUNK_LOD_KEY, is_delta = type == WIRE2_CHUNK_DETAIL_DELTA || type == WIRE2_CHUNK_LOD_DELTA;
        const vstate_t *sv = &d->vs[src];
        if (is_delta) {
            if (!sv->valid || sv->mode != (is_lod ? WIRE2_LOD : WIRE2_DETAIL) || !wire2_rect_equal(sv->rect, rect) ||
                sv->wq != wq || sv->hq != hq || sv->seq != cseq - 1u)
                return fail(err, err_len, WIRE2_E_STATE, "chunk %zu: delta to seq %u for a state not held", i, cseq);
        }
        int dst = 0;
        while (dst == src || dst == d->cur) dst++;
        vstate_t *dv = &d->vs[dst];
        dv->valid = false;
        dv->mode = is_lod ? WIRE2_LOD : WIRE2_DETAIL;
        dv->rect = rect;
        dv->b = wire2_rect_bounds(rect, wq, hq);
        dv->wq = wq;
        dv->hq = hq;
        dv->seq = cseq;
        dv->n = 0;
        dv->cols = (uint32_t)(rect.x1 - rect.x0) * WIRE2_LOD_CELLS;
        dv->rows = (uint32_t)(rect.y1 - rect.y0) * WIRE2_LOD_CELLS;
        wire2_bitr_t r;
        wire2_bitr_init(&r, c + WIRE2_CHUNK_HEADER_BYTES, payload);
        if (is_lod)
            rc = lod_chunk(&r, sv, dv, is_delta, err, err_len);
        else if (is_delta)
            rc = detail_delta(d, &r, sv, dv, err, err_len);
        else
            rc = detail_key(d, &r, dv, err, err_len);
        if (rc < 0) return rc;
        dv->valid = true;
        keyed |= !is_delta;
        off += payload;
        src = last = dst;
    }
    if (off != len) return fail(err, err_len, WIRE2_E_MALFORMED, "%zu bytes after the last chunk", len - off);

    /* Commit. */
    if (flags & WIRE2_FLAG_SCENE) {
        scene_t t = d->scene;
        d->scene = d->staged;
        d->staged = t;
    }
    d->cur = last;
    d->pub.seq = seq;
    d->pub.tick = tick;
    d->pub.population = population;
    d->pub.paused = flags & WIRE2_FLAG_PAUSED;
    d->pub.keyed = keyed;
    if ((rc = publish(d)) < 0) return fail(err, err_len, rc, "out of memory");
    return 0;
}

/* The per-view encoder of protocol v2. It keeps what a decoder of the view
 * holds — the canonical item list of a detail view (with each item's agent
 * id, which the decoder does not see), or the cells of a LOD view — and from
 * the next quantized world makes the key (the whole new state) and the delta
 * (old state → new state). See protocol/PROTOCOL.md for the payloads. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/wire2.h"
#include "protocol/wire2_bits.h"
#include "protocol/wire2_canon.h"
#include "sim/clones.h"

/* ---- choosing k: the EG/SE order that minimises a field's bits ---- */

#define KSTAT_SMALL 256u
typedef struct kstat {
    uint32_t small[KSTAT_SMALL]; /* exact counts of the values below KSTAT_SMALL */
    uint32_t big[65];            /* larger values by bit length (their cost is estimated) */
} kstat_t;

static void kstat_clear(kstat_t *s) { memset(s, 0, sizeof *s); }

static inline void kstat_add(kstat_t *s, uint64_t v)
{
    if (v < KSTAT_SMALL)
        s->small[v]++;
    else
        s->big[wire2_bitlength(v)]++;
}

/* The k in 0…15 with the fewest bits in total. The estimate for large values
 * (taken at 1.5 × their bit length's lower bound) only affects the choice. */
static unsigned kstat_best(const kstat_t *s)
{
    unsigned best = 0;
    uint64_t best_bits = UINT64_MAX;
    for (unsigned k = 0; k < 16; k++) {
        uint64_t bits = 0;
        for (unsigned v = 0; v < KSTAT_SMALL; v++)
            if (s->small[v]) bits += (uint64_t)s->small[v] * wire2_eg_bits(v, k);
        for (unsigned b = 9; b < 64; b++)
            if (s->big[b]) bits += (uint64_t)s->big[b] * wire2_eg_bits((uint64_t)3 << (b - 2u), k);
        if (bits < best_bits) {
            best_bits = bits;
            best = k;
        }
    }
    return best;
}

/* ---- LOD tables ---- */

#define LOD_TRIG_SCALE 65536.0
#define LOD_D_TABLE 65536u
static int32_t lod_sin[WIRE2_HEADING_STEPS], lod_cos[WIRE2_HEADING_STEPS];
static uint8_t lod_d_of_count[LOD_D_TABLE];
static pthread_once_t lod_once = PTHREAD_ONCE_INIT;

static void init_lod_tables(void)
{
    for (unsigned h = 0; h < WIRE2_HEADING_STEPS; h++) {
        double t = 2.0 * M_PI * h / WIRE2_HEADING_STEPS;
        lod_sin[h] = (int32_t)lround(sin(t) * LOD_TRIG_SCALE);
        lod_cos[h] = (int32_t)lround(cos(t) * LOD_TRIG_SCALE);
    }
    lod_d_of_count[0] = 0;
    for (unsigned c = 1; c < LOD_D_TABLE; c++) {
        double d = 1.0 + floor(4.0 * log2((double)c) + 0.5);
        lod_d_of_count[c] = (uint8_t)(d > 63.0 ? 63.0 : d);
    }
}

uint8_t wire2_lod_density(uint32_t count)
{
    pthread_once(&lod_once, init_lod_tables);
    return count < LOD_D_TABLE ? lod_d_of_count[count] : 63u;
}

uint8_t wire2_lod_heading(int64_t sum_sin, int64_t sum_cos)
{
    if (sum_sin == 0 && sum_cos == 0) return 0;
    double steps = floor(atan2((double)sum_sin, (double)sum_cos) * 64.0 / (2.0 * M_PI) + 0.5);
    return (uint8_t)((int)steps & 63);
}

void wire2_lod_heading_terms(uint16_t h, int32_t *s, int32_t *c)
{
    pthread_once(&lod_once, init_lod_tables);
    *s = lod_sin[h & (WIRE2_HEADING_STEPS - 1u)];
    *c = lod_cos[h & (WIRE2_HEADING_STEPS - 1u)];
}

/* ---- the encoder ---- */

/* The view's geometry for a world size. */
typedef struct geom {
    wire2_bounds_t b;
    uint64_t w, h;   /* quanta across and down */
    unsigned bx, by; /* bit lengths of the largest rx, ry */
} geom_t;

static geom_t geom_of(wire2_rect_t r, uint32_t wq, uint32_t hq)
{
    geom_t g = {.b = wire2_rect_bounds(r, wq, hq)};
    g.w = g.b.qx1 - g.b.qx0;
    g.h = g.b.qy1 - g.b.qy0;
    g.bx = g.w > 1 ? wire2_bitlength(g.w - 1) : 0;
    g.by = g.h > 1 ? wire2_bitlength(g.h - 1) : 0;
    return g;
}

static inline bool in_rect(const geom_t *g, uint32_t qx, uint32_t qy)
{
    return qx >= g->b.qx0 && qx < g->b.qx1 && qy >= g->b.qy0 && qy < g->b.qy1;
}


#define RES_PER_STAY 5
#define TILES_SIDE (1u << WIRE2_INDEX_LEVEL)

struct wire2_view_enc {
    wire2_rect_t rect;
    wire2_mode_t mode;
    bool held;           /* the state below is that of seq, for a world of wq × hq */
    uint32_t seq, wq, hq;

    /* detail */
    wire2_item_t *items, *next; /* the held list; the one being made */
    size_t n, cap, next_cap;
    int32_t *res;               /* per stay: ex, ey, eh (prediction from motion), then ex, ey of no motion */
    size_t res_cap;
    uint32_t *exits, *flag_idx; /* exit indices; stays whose flags changed */
    uint8_t *flag_val;
    size_t aux_cap;
    uint64_t *stays;            /* bit per agent id: set while the agent is a stay (all clear between steps) */
    size_t stays_cap;           /* in words */
    wire2_sorter_t sorter;

    /* LOD */
    uint32_t cols, rows;
    uint8_t *d, *a, *nd, *na;
    uint32_t *count;
    int64_t *sum_sin, *sum_cos;
    size_t cells_cap;
    bool summing;    /* wire2_view_enc_lod_begin cleared the sums for a world of sum_wq × sum_hq */
    uint32_t sum_wq, sum_hq;
    geom_t sum_g;

    wire2_bitw_t bw;
};

wire2_view_enc_t *wire2_view_enc_new(wire2_rect_t r, wire2_mode_t m)
{
    if (!wire2_rect_valid(r) || (m != WIRE2_DETAIL && m != WIRE2_LOD)) return NULL;
    wire2_view_enc_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->rect = r;
    e->mode = m;
    pthread_once(&lod_once, init_lod_tables);
    return e;
}

void wire2_view_enc_free(wire2_view_enc_t *e)
{
    if (!e) return;
    free(e->items);
    free(e->next);
    free(e->res);
    free(e->exits);
    free(e->flag_idx);
    free(e->flag_val);
    free(e->stays);
    wire2_sorter_free(&e->sorter);
    free(e->d);
    free(e->a);
    free(e->nd);
    free(e->na);
    free(e->count);
    free(e->sum_sin);
    free(e->sum_cos);
    wire2_bitw_free(&e->bw);
    free(e);
}

wire2_rect_t wire2_view_enc_rect(const wire2_view_enc_t *e) { return e->rect; }
wire2_mode_t wire2_view_enc_mode(const wire2_view_enc_t *e) { return e->mode; }
size_t wire2_view_enc_count(const wire2_view_enc_t *e) { return e->mode == WIRE2_DETAIL ? e->n : 0; }

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = need + need / 2 + 64;
    void *np = realloc(*p, c * elem);
    if (!np) return WIRE2_E_NOMEM;
    *p = np;
    *cap = c;
    return 0;
}

/* Starts a chunk: the header's room, filled in by end_chunk. */
static void begin_chunk(wire2_bitw_t *w)
{
    static const uint8_t room[WIRE2_CHUNK_HEADER_BYTES];
    wire2_bitw_reset(w);
    wire2_bitw_bytes(w, room, sizeof room);
}

static int end_chunk(wire2_view_enc_t *e, unsigned type, uint32_t seq, wire2_chunk_t *out)
{
    size_t len = wire2_bitw_finish(&e->bw);
    if (e->bw.failed || len < WIRE2_CHUNK_HEADER_BYTES || len - WIRE2_CHUNK_HEADER_BYTES > UINT32_MAX)
        return WIRE2_E_NOMEM;
    wire2_chunk_header_write(e->bw.buf, type, e->rect, seq, (uint32_t)(len - WIRE2_CHUNK_HEADER_BYTES));
    uint8_t *buf = malloc(len);
    if (!buf) return WIRE2_E_NOMEM;
    memcpy(buf, e->bw.buf, len);
    *out = (wire2_chunk_t){buf, len};
    return 0;
}

/* Items as a key codes them (also a delta's entries): EG(4) n, u(4) k_gap,
 * u(4) k_h, then per item in canonical order the ry gap, rx, the heading
 * change and the flags (or "same as the previous item"). */
static void write_items(wire2_bitw_t *w, const wire2_item_t *items, size_t n, unsigned bx)
{
    kstat_t gaps, turns;
    kstat_clear(&gaps);
    kstat_clear(&turns);
    uint32_t pry = 0, ph = 0;
    for (size_t i = 0; i < n; i++) {
        kstat_add(&gaps, items[i].ry - pry);
        kstat_add(&turns, wire2_zigzag(wire2_wrap_h((int32_t)items[i].h - (int32_t)ph)));
        pry = items[i].ry;
        ph = items[i].h;
    }
    unsigned k_gap = kstat_best(&gaps), k_h = kstat_best(&turns);
    wire2_put_eg(w, n, 4);
    wire2_put_u(w, k_gap, 4);
    wire2_put_u(w, k_h, 4);
    pry = 0;
    ph = 0;
    unsigned pf = 0;
    for (size_t i = 0; i < n; i++) {
        const wire2_item_t *it = &items[i];
        unsigned ng, nh;
        uint64_t gap = wire2_eg_code(it->ry - pry, k_gap, &ng);
        uint64_t turn = wire2_eg_code(wire2_zigzag(wire2_wrap_h((int32_t)it->h - (int32_t)ph)), k_h, &nh);
        uint64_t flags = it->f == pf ? 1u : (uint64_t)it->f << 1;
        unsigned nf = it->f == pf ? 1u : 9u;
        if (ng && nh && ng + bx + nh + nf <= 56) {
            /* One write for the item when it fits (almost always). */
            wire2_put_bits(w, gap | (uint64_t)it->rx << ng | turn << (ng + bx) | flags << (ng + bx + nh),
                           ng + bx + nh + nf);
        } else {
            wire2_put_eg(w, it->ry - pry, k_gap);
            wire2_put_u(w, it->rx, bx);
            wire2_put_se(w, wire2_wrap_h((int32_t)it->h - (int32_t)ph), k_h);
            wire2_put_bits(w, flags, nf);
        }
        pry = it->ry;
        ph = it->h;
        pf = it->f;
    }
}

/* The encoder visits agents in an order (canonical, or by tile) that is
 * random with respect to their ids, so each look-up in q is a cache miss (a
 * million agents: 12 MB). Asking for the line of an agent this many visits
 * ahead overlaps those misses. */
#define PREFETCH_AHEAD 16

static inline void prefetch_agent(const wire2_world_t *q, uint32_t id)
{
    if (id < q->n) __builtin_prefetch(&q->agent[id]); /* else an agent that left the world */
}

static int push_next(wire2_view_enc_t *e, size_t *m, wire2_item_t it)
{
    if (*m == e->next_cap && grow((void **)&e->next, &e->next_cap, *m + 1, sizeof *e->next) < 0)
        return WIRE2_E_NOMEM;
    e->next[(*m)++] = it;
    return 0;
}

/* A delta payload from the stays' residuals (ex, ey at res[xy], res[xy + 1]
 * of each stay; eh at res[2]), the exits, the flag changes and the entries
 * (e->next[n_stays …], in canonical order among themselves). */
static int write_delta(wire2_view_enc_t *e, const geom_t *g, uint32_t seq, size_t xy, size_t n_exits, size_t n_stays,
                       size_t n_flags, size_t n_entries, wire2_chunk_t *out)
{
    wire2_bitw_t *w = &e->bw;
    begin_chunk(w);
    wire2_bitw_reserve(w, n_stays + 8 * n_entries + 64);
    kstat_t s0, s1, s2;
    kstat_clear(&s0);
    for (size_t i = 0; i < n_exits; i++) kstat_add(&s0, i ? e->exits[i] - e->exits[i - 1] - 1 : e->exits[0]);
    unsigned k_e = kstat_best(&s0);
    wire2_put_eg(w, n_exits, 4);
    wire2_put_u(w, k_e, 4);
    for (size_t i = 0; i < n_exits; i++) wire2_put_eg(w, i ? e->exits[i] - e->exits[i - 1] - 1 : e->exits[0], k_e);

    kstat_clear(&s0);
    kstat_clear(&s1);
    kstat_clear(&s2);
    const int32_t *res = e->res;
    for (size_t j = 0; j < n_stays; j++, res += RES_PER_STAY) {
        kstat_add(&s0, wire2_zigzag(res[xy]));
        kstat_add(&s1, wire2_zigzag(res[xy + 1]));
        kstat_add(&s2, wire2_zigzag(res[2]));
    }
    unsigned kx = kstat_best(&s0), ky = kstat_best(&s1), kh = kstat_best(&s2);
    wire2_put_u(w, kx, 4);
    wire2_put_u(w, ky, 4);
    wire2_put_u(w, kh, 4);
    res = e->res;
    for (size_t j = 0; j < n_stays; j++, res += RES_PER_STAY) {
        /* The three codes in one write when they fit (almost always). */
        unsigned na, nb, nc;
        uint64_t a = wire2_eg_code(wire2_zigzag(res[xy]), kx, &na);
        uint64_t b = wire2_eg_code(wire2_zigzag(res[xy + 1]), ky, &nb);
        uint64_t c = wire2_eg_code(wire2_zigzag(res[2]), kh, &nc);
        if (na && nb && nc && na + nb + nc <= 56) {
            wire2_put_bits(w, a | b << na | c << (na + nb), na + nb + nc);
        } else {
            wire2_put_se(w, res[xy], kx);
            wire2_put_se(w, res[xy + 1], ky);
            wire2_put_se(w, res[2], kh);
        }
    }
    wire2_put_eg(w, n_flags, 4);
    for (size_t i = 0; i < n_flags; i++) {
        wire2_put_eg(w, i ? e->flag_idx[i] - e->flag_idx[i - 1] - 1 : e->flag_idx[0], 4);
        wire2_put_u(w, e->flag_val[i], 8);
    }
    write_items(w, e->next + n_stays, n_entries, g->bx);
    return end_chunk(e, WIRE2_CHUNK_DETAIL_DELTA, seq, out);
}

/* track: the encoder holds seq − 1 and a delta is wanted: the new state
 * follows from the old (stays keep their history); else it is a fresh key
 * state. */
static int detail_step(wire2_view_enc_t *e, const wire2_world_t *q, bool track, wire2_chunk_t *key,
                       wire2_chunk_t *delta, wire2_chunk_t *key_delta)
{
    geom_t g = geom_of(e->rect, q->wq, q->hq);
    size_t old_n = track ? e->n : 0;
    if (!track) delta = key_delta = NULL;
    size_t words = q->n / 64 + 1;
    if (words > e->stays_cap) {
        /* The marks are kept all clear between steps: new room starts clear. */
        size_t old_cap = e->stays_cap;
        if (grow((void **)&e->stays, &e->stays_cap, words, sizeof *e->stays) < 0) return WIRE2_E_NOMEM;
        memset(e->stays + old_cap, 0, (e->stays_cap - old_cap) * sizeof *e->stays);
    }
    if (grow((void **)&e->next, &e->next_cap, old_n + 16, sizeof *e->next) < 0) return WIRE2_E_NOMEM;
    if (grow((void **)&e->res, &e->res_cap, RES_PER_STAY * old_n + RES_PER_STAY, sizeof *e->res) < 0) return WIRE2_E_NOMEM;
    if (e->aux_cap < old_n + 1) {
        size_t c = old_n + old_n / 2 + 64;
        uint32_t *x = realloc(e->exits, c * sizeof *x);
        if (!x) return WIRE2_E_NOMEM;
        e->exits = x;
        uint32_t *fi = realloc(e->flag_idx, c * sizeof *fi);
        if (!fi) return WIRE2_E_NOMEM;
        e->flag_idx = fi;
        uint8_t *fv = realloc(e->flag_val, c);
        if (!fv) return WIRE2_E_NOMEM;
        e->flag_val = fv;
        e->aux_cap = c;
    }
    /* Stays (the new list's head, in old list order) and exits. */
    size_t m = 0, n_exits = 0, n_flags = 0;
    for (size_t j = 0; j < old_n; j++) {
        const wire2_item_t *o = &e->items[j];
        uint32_t id = o->id;
        if (j + PREFETCH_AHEAD < old_n) prefetch_agent(q, e->items[j + PREFETCH_AHEAD].id);
        if (id < q->n && in_rect(&g, q->agent[id].qx, q->agent[id].qy)) {
            int64_t nrx = (int64_t)(q->agent[id].qx - g.b.qx0), nry = (int64_t)(q->agent[id].qy - g.b.qy0);
            int64_t ex = nrx - (2 * (int64_t)o->rx - (int64_t)o->px);
            int64_t ey = nry - (2 * (int64_t)o->ry - (int64_t)o->py);
            if (ex >= -WIRE2_MAX_RESIDUAL && ex <= WIRE2_MAX_RESIDUAL && ey >= -WIRE2_MAX_RESIDUAL &&
                ey <= WIRE2_MAX_RESIDUAL) {
                int32_t *r = &e->res[RES_PER_STAY * m];
                r[0] = (int32_t)ex;
                r[1] = (int32_t)ey;
                r[2] = wire2_wrap_h((int32_t)q->agent[id].h - (int32_t)o->h);
                r[3] = (int32_t)(nrx - (int64_t)o->rx); /* after a key: px = rx */
                r[4] = (int32_t)(nry - (int64_t)o->ry);
                if (q->agent[id].f != o->f) {
                    e->flag_idx[n_flags] = (uint32_t)m;
                    e->flag_val[n_flags++] = q->agent[id].f;
                }
                e->next[m++] = (wire2_item_t){.ry = (uint32_t)nry, .rx = (uint32_t)nrx, .h = q->agent[id].h,
                                              .f = q->agent[id].f, .py = o->ry, .px = o->rx, .id = id};
                e->stays[id >> 6] |= (uint64_t)1 << (id & 63);
                continue;
            }
        }
        e->exits[n_exits++] = (uint32_t)j;
    }
    size_t n_stays = m;
    /* Entries: every agent in the rect that is not a stay (the marks are
     * cleared on the way: every stay is in the rect). */
    int rc = 0;
    unsigned tx0, ty0, tx1, ty1;
    wire2_world_tiles(q, &g.b, &tx0, &ty0, &tx1, &ty1);
    for (unsigned ty = ty0; ty < ty1 && rc == 0; ty++) {
        uint32_t k1 = q->tile_start[ty * TILES_SIDE + tx1];
        for (uint32_t k = q->tile_start[ty * TILES_SIDE + tx0]; k < k1 && rc == 0; k++) {
            uint32_t id = q->by_tile[k];
            if (k + PREFETCH_AHEAD < k1) prefetch_agent(q, q->by_tile[k + PREFETCH_AHEAD]);
            if (!in_rect(&g, q->agent[id].qx, q->agent[id].qy)) continue;
            uint64_t bit = (uint64_t)1 << (id & 63);
            if (e->stays[id >> 6] & bit) {
                e->stays[id >> 6] &= ~bit;
                continue;
            }
            uint32_t rx = (uint32_t)(q->agent[id].qx - g.b.qx0), ry = (uint32_t)(q->agent[id].qy - g.b.qy0);
            rc = push_next(e, &m, (wire2_item_t){.ry = ry, .rx = rx, .h = q->agent[id].h, .f = q->agent[id].f, .py = ry,
                                                 .px = rx, .id = id});
        }
    }
    if (rc < 0) {
        memset(e->stays, 0, words * sizeof *e->stays);
        return rc;
    }
    size_t n_entries = m - n_stays;
    if (m > WIRE2_MAX_COUNT) return WIRE2_E_ARG;
    if ((rc = wire2_sort_items(e->next + n_stays, n_entries, g.bx, g.by, &e->sorter)) < 0) return rc;

    if (delta && (rc = write_delta(e, &g, q->seq, 0, n_exits, n_stays, n_flags, n_entries, delta)) < 0) return rc;
    if (key_delta && (rc = write_delta(e, &g, q->seq, 3, n_exits, n_stays, n_flags, n_entries, key_delta)) < 0)
        return rc;

    /* The new state, in canonical order (the stays are nearly sorted already). */
    if ((rc = wire2_sort_items(e->next, m, g.bx, g.by, &e->sorter)) < 0) return rc;
    wire2_item_t *t = e->items;
    e->items = e->next;
    e->next = t;
    size_t tc = e->cap;
    e->cap = e->next_cap;
    e->next_cap = tc;
    e->n = m;

    if (key) {
        begin_chunk(&e->bw);
        wire2_bitw_reserve(&e->bw, 3 * m + 64);
        write_items(&e->bw, e->items, e->n, g.bx);
        if ((rc = end_chunk(e, WIRE2_CHUNK_DETAIL_KEY, q->seq, key)) < 0) return rc;
    }
    return 0;
}

/* One agent into its LOD cell, if it is in the view. The cell is
 * floor(rx·cols / w) with rx < w ≤ 2^31 and cols ≤ 2^10 (≤ 2^16 asserted): wire2_scale_floor
 * is exact there (wire2.h), without a 64-bit division per axis. */
_Static_assert(((uint64_t)1 << WIRE2_MAX_LEVEL) * WIRE2_LOD_CELLS <= 65536u, "LOD cols and rows within wire2_scale_floor's side");
static inline void lod_add(wire2_view_enc_t *e, const geom_t *g, uint32_t cols, uint32_t rows, uint32_t qx,
                           uint32_t qy, uint16_t h)
{
    if (!in_rect(g, qx, qy)) return;
    unsigned cx = wire2_scale_floor((uint32_t)(qx - g->b.qx0), cols, (uint32_t)g->w);
    unsigned cy = wire2_scale_floor((uint32_t)(qy - g->b.qy0), rows, (uint32_t)g->h);
    size_t c = (size_t)cy * cols + cx;
    e->count[c]++;
    e->sum_sin[c] += lod_sin[h & (WIRE2_HEADING_STEPS - 1u)];
    e->sum_cos[c] += lod_cos[h & (WIRE2_HEADING_STEPS - 1u)];
}

int wire2_view_enc_lod_begin(wire2_view_enc_t *e, uint32_t wq, uint32_t hq)
{
    e->summing = false;
    if (e->mode != WIRE2_LOD || !wq || !hq) return WIRE2_E_ARG;
    geom_t g = geom_of(e->rect, wq, hq);
    uint32_t cols = (uint32_t)(e->rect.x1 - e->rect.x0) * WIRE2_LOD_CELLS;
    uint32_t rows = (uint32_t)(e->rect.y1 - e->rect.y0) * WIRE2_LOD_CELLS;
    size_t cells = (size_t)cols * rows;
    if (cells > e->cells_cap) {
        uint8_t **bytes[] = {&e->d, &e->a, &e->nd, &e->na};
        for (size_t i = 0; i < 4; i++) {
            uint8_t *p = realloc(*bytes[i], cells);
            if (!p) return WIRE2_E_NOMEM;
            *bytes[i] = p;
        }
        /* The sums have a spare cell past the view's (lod_cells_block's outside). */
        uint32_t *c = realloc(e->count, (cells + 1) * sizeof *c);
        if (!c) return WIRE2_E_NOMEM;
        e->count = c;
        int64_t *ss = realloc(e->sum_sin, (cells + 1) * sizeof *ss);
        if (!ss) return WIRE2_E_NOMEM;
        e->sum_sin = ss;
        int64_t *sc = realloc(e->sum_cos, (cells + 1) * sizeof *sc);
        if (!sc) return WIRE2_E_NOMEM;
        e->sum_cos = sc;
        e->cells_cap = cells;
    }
    /* cols and rows belong to the held cells until the step ends: the
     * rect's are the same for every world size anyway. */
    e->cols = cols;
    e->rows = rows;
    memset(e->count, 0, (cells + 1) * sizeof *e->count);
    memset(e->sum_sin, 0, (cells + 1) * sizeof *e->sum_sin);
    memset(e->sum_cos, 0, (cells + 1) * sizeof *e->sum_cos);
    e->sum_g = g;
    e->sum_wq = wq;
    e->sum_hq = hq;
    e->summing = true;
    return 0;
}

/* Agents a block at a time in wire2_view_enc_lod_add: a fixed count, so
 * that the compiler vectorizes the cells' computation. */
#define LOD_BLOCK 64

/* A view's frame for lod_cells_block, in 32 bits (every bound ≤ 2^31). */
typedef struct lod_frame {
    uint32_t qx0, qy0, w, h, cols, outside;
} lod_frame_t;

/* Each agent's cell as lod_add finds it, or f.outside (a spare cell past
 * the view's, never coded) for an agent outside the rect. qx − qx0 wraps
 * (to ≥ 2^31 ≥ w) for qx < qx0, so one unsigned comparison an axis tests
 * both bounds. Every choice is a mask, not ?: (GCC makes those branches
 * here, and the loop no longer vectorizes); wire2_scale_floor's operations,
 * the double of a value below 2^31 taken through int32 (AVX2 converts
 * signed lanes only): the same cell, the same bits. */
KERNEL_CLONES static void lod_cells_block(const uint32_t *restrict qx, const uint32_t *restrict qy, lod_frame_t f,
                                          uint32_t rows, uint32_t *restrict cell)
{
    const double cols_d = (double)f.cols, rows_d = (double)rows, w_d = (double)f.w, h_d = (double)f.h;
    for (int i = 0; i < LOD_BLOCK; i++) {
        uint32_t rx = qx[i] - f.qx0, ry = qy[i] - f.qy0;
        uint32_t inside = 0u - (uint32_t)((rx < f.w) & (ry < f.h)); /* all ones or zero */
        rx &= inside;
        ry &= inside;
        int32_t cx = (int32_t)((double)(int32_t)rx * cols_d / w_d);
        int32_t cy = (int32_t)((double)(int32_t)ry * rows_d / h_d);
        uint32_t c = (uint32_t)cy * f.cols + (uint32_t)cx;
        cell[i] = (c & inside) | (f.outside & ~inside);
    }
}

void wire2_view_enc_lod_add(wire2_view_enc_t *e, const uint32_t *qx, const uint32_t *qy, const uint16_t *h, size_t n)
{
    if (!e->summing) return;
    const lod_frame_t f = {(uint32_t)e->sum_g.b.qx0, (uint32_t)e->sum_g.b.qy0, (uint32_t)e->sum_g.w,
                           (uint32_t)e->sum_g.h, e->cols, e->cols * e->rows};
    uint32_t cell[LOD_BLOCK];
    for (size_t start = 0; start < n; start += LOD_BLOCK) {
        size_t count = n - start < LOD_BLOCK ? n - start : LOD_BLOCK;
        if (count == LOD_BLOCK) {
            lod_cells_block(qx + start, qy + start, f, e->rows, cell);
        } else {
            /* A short tail: its extra lanes fall outside (qx = qy = 0 may
             * be inside, but those lanes are not added). */
            uint32_t tx[LOD_BLOCK] = {0}, ty[LOD_BLOCK] = {0};
            memcpy(tx, qx + start, count * sizeof *tx);
            memcpy(ty, qy + start, count * sizeof *ty);
            lod_cells_block(tx, ty, f, e->rows, cell);
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t c = cell[i], k = h[start + i] & (WIRE2_HEADING_STEPS - 1u);
            e->count[c]++;
            e->sum_sin[c] += lod_sin[k];
            e->sum_cos[c] += lod_cos[k];
        }
    }
}

bool wire2_view_enc_lod_meets(const wire2_view_enc_t *e, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1)
{
    const wire2_bounds_t *b = &e->sum_g.b;
    return e->summing && x1 >= b->qx0 && x0 < b->qx1 && y1 >= b->qy0 && y0 < b->qy1;
}

/* The cells summed since wire2_view_enc_lod_begin → the chunks. */
static int lod_finish(wire2_view_enc_t *e, const wire2_world_t *q, bool track, wire2_chunk_t *key,
                      wire2_chunk_t *delta, wire2_chunk_t *key_delta)
{
    if (!e->summing || e->sum_wq != q->wq || e->sum_hq != q->hq) return WIRE2_E_ARG;
    e->summing = false;
    bool make_delta = track && (delta || key_delta);
    size_t cells = (size_t)e->cols * e->rows;
    for (size_t c = 0; c < cells; c++) {
        e->nd[c] = wire2_lod_density(e->count[c]);
        e->na[c] = e->count[c] ? wire2_lod_heading(e->sum_sin[c], e->sum_cos[c]) : 0;
    }
    int rc;
    if (make_delta) {
        wire2_bitw_t *w = &e->bw;
        kstat_t sd, sa;
        kstat_clear(&sd);
        kstat_clear(&sa);
        for (size_t c = 0; c < cells; c++) {
            kstat_add(&sd, wire2_zigzag((int32_t)e->nd[c] - (int32_t)e->d[c]));
            if (e->nd[c]) kstat_add(&sa, wire2_zigzag(wire2_wrap_l((int32_t)e->na[c] - (int32_t)e->a[c])));
        }
        unsigned kd = kstat_best(&sd), ka = kstat_best(&sa);
        begin_chunk(w);
        wire2_bitw_reserve(w, cells / 4 + 64);
        wire2_put_u(w, kd, 4);
        wire2_put_u(w, ka, 4);
        for (size_t c = 0; c < cells; c++) {
            wire2_put_se(w, (int32_t)e->nd[c] - (int32_t)e->d[c], kd);
            if (e->nd[c]) wire2_put_se(w, wire2_wrap_l((int32_t)e->na[c] - (int32_t)e->a[c]), ka);
        }
        wire2_chunk_t made;
        if ((rc = end_chunk(e, WIRE2_CHUNK_LOD_DELTA, q->seq, &made)) < 0) return rc;
        /* No prediction state: a key's holder takes the same delta. */
        if (delta && key_delta) {
            key_delta->buf = malloc(made.len);
            if (!key_delta->buf) {
                wire2_chunk_free(&made);
                return WIRE2_E_NOMEM;
            }
            memcpy(key_delta->buf, made.buf, made.len);
            key_delta->len = made.len;
        }
        if (delta)
            *delta = made;
        else
            *key_delta = made;
    }
    uint8_t *t = e->d;
    e->d = e->nd;
    e->nd = t;
    t = e->a;
    e->a = e->na;
    e->na = t;
    if (key) {
        wire2_bitw_t *w = &e->bw;
        kstat_t sd, sa;
        kstat_clear(&sd);
        kstat_clear(&sa);
        int32_t pa = 0;
        for (size_t c = 0; c < cells; c++) {
            kstat_add(&sd, e->d[c]);
            if (e->d[c]) {
                kstat_add(&sa, wire2_zigzag(wire2_wrap_l((int32_t)e->a[c] - pa)));
                pa = e->a[c];
            }
        }
        unsigned kd = kstat_best(&sd), ka = kstat_best(&sa);
        begin_chunk(w);
        wire2_bitw_reserve(w, cells / 4 + 64);
        wire2_put_u(w, kd, 4);
        wire2_put_u(w, ka, 4);
        pa = 0;
        for (size_t c = 0; c < cells; c++) {
            wire2_put_eg(w, e->d[c], kd);
            if (e->d[c]) {
                wire2_put_se(w, wire2_wrap_l((int32_t)e->a[c] - pa), ka);
                pa = e->a[c];
            }
        }
        if ((rc = end_chunk(e, WIRE2_CHUNK_LOD_KEY, q->seq, key)) < 0) return rc;
    }
    return 0;
}

/* A LOD view stepped on a world quantized by id: the sums through the
 * world's arrays, then lod_finish. */
static int lod_step(wire2_view_enc_t *e, const wire2_world_t *q, bool track, wire2_chunk_t *key,
                    wire2_chunk_t *delta, wire2_chunk_t *key_delta)
{
    int rc = wire2_view_enc_lod_begin(e, q->wq, q->hq);
    if (rc < 0) return rc;
    const geom_t g = e->sum_g;
    const uint32_t cols = e->cols, rows = e->rows;
    /* A cell's count and sums are integer sums, the same in any order.
     * Through the tile index each agent is a read at a random place of
     * q->agent (a cache miss an agent); when the rect's tiles hold most
     * agents (the whole-world view of a large room) reading q->agent in
     * id order, and skipping who is outside, is the cheaper walk. */
    unsigned tx0, ty0, tx1, ty1;
    wire2_world_tiles(q, &g.b, &tx0, &ty0, &tx1, &ty1);
    size_t in_tiles = 0;
    for (unsigned ty = ty0; ty < ty1; ty++)
        in_tiles += q->tile_start[ty * TILES_SIDE + tx1] - q->tile_start[ty * TILES_SIDE + tx0];
    if (in_tiles > q->n / 2) {
        for (size_t id = 0; id < q->n; id++) lod_add(e, &g, cols, rows, q->agent[id].qx, q->agent[id].qy, q->agent[id].h);
    } else {
        for (unsigned ty = ty0; ty < ty1; ty++) {
            uint32_t k1 = q->tile_start[ty * TILES_SIDE + tx1];
            for (uint32_t k = q->tile_start[ty * TILES_SIDE + tx0]; k < k1; k++) {
                const wire2_agent_t *a = &q->agent[q->by_tile[k]];
                lod_add(e, &g, cols, rows, a->qx, a->qy, a->h);
            }
        }
    }
    return lod_finish(e, q, track, key, delta, key_delta);
}

/* Whether a step to q makes deltas (see wire2_view_enc_step). */
static bool tracks(const wire2_view_enc_t *e, const wire2_world_t *q, const wire2_chunk_t *delta,
                   const wire2_chunk_t *key_delta)
{
    return (delta || key_delta) && e->held && q->seq == e->seq + 1u && q->wq == e->wq && q->hq == e->hq;
}

/* After a step: what the encoder holds, and no chunk on error. */
static int step_done(wire2_view_enc_t *e, const wire2_world_t *q, int rc, wire2_chunk_t *key, wire2_chunk_t *delta,
                     wire2_chunk_t *key_delta)
{
    if (rc < 0) {
        if (key) wire2_chunk_free(key);
        if (delta) wire2_chunk_free(delta);
        if (key_delta) wire2_chunk_free(key_delta);
        e->held = false;
        e->n = 0;
        return rc;
    }
    e->held = true;
    e->seq = q->seq;
    e->wq = q->wq;
    e->hq = q->hq;
    return 0;
}

static void clear_outputs(wire2_chunk_t *key, wire2_chunk_t *delta, wire2_chunk_t *key_delta)
{
    if (key) *key = (wire2_chunk_t){0};
    if (delta) *delta = (wire2_chunk_t){0};
    if (key_delta) *key_delta = (wire2_chunk_t){0};
}

int wire2_view_enc_lod_end(wire2_view_enc_t *e, const wire2_world_t *head, wire2_chunk_t *key, wire2_chunk_t *delta,
                           wire2_chunk_t *key_delta)
{
    clear_outputs(key, delta, key_delta);
    int rc = !head->wq || !head->hq || head->n > WIRE2_MAX_COUNT
                 ? WIRE2_E_ARG
                 : lod_finish(e, head, tracks(e, head, delta, key_delta), key, delta, key_delta);
    e->summing = false;
    return step_done(e, head, rc, key, delta, key_delta);
}

int wire2_view_enc_step(wire2_view_enc_t *e, const wire2_world_t *q, wire2_chunk_t *key, wire2_chunk_t *delta,
                        wire2_chunk_t *key_delta)
{
    clear_outputs(key, delta, key_delta);
    if (!q->wq || !q->hq || q->n > WIRE2_MAX_COUNT) return WIRE2_E_ARG;
    bool track = tracks(e, q, delta, key_delta);
    int rc = e->mode == WIRE2_DETAIL ? detail_step(e, q, track, key, delta, key_delta)
                                     : lod_step(e, q, track, key, delta, key_delta);
    return step_done(e, q, rc, key, delta, key_delta);
}

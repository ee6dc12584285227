#include "bridge/bridge_msg.h"

#include <stdlib.h>
#include <string.h>

#include "protocol/le_bytes.h"

/* ---- Writing ------------------------------------------------------------ */

typedef struct writer {
    uint8_t *buf;
    size_t len, cap;
    bool failed;
} writer_t;

static void w_reserve(writer_t *w, size_t more)
{
    if (w->failed) return;
    if (more > SIZE_MAX - w->len) {
        w->failed = true;
        return;
    }
    if (w->len + more <= w->cap) return;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < w->len + more) cap = cap > SIZE_MAX / 2 ? w->len + more : cap * 2;
    uint8_t *b = realloc(w->buf, cap);
    if (!b) {
        w->failed = true;
        return;
    }
    w->buf = b;
    w->cap = cap;
}

static void w_bytes(writer_t *w, const void *p, size_t n)
{
    w_reserve(w, n);
    if (w->failed || !n) return;
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void w_u8(writer_t *w, uint8_t v) { w_bytes(w, &v, 1); }

static void w_u16(writer_t *w, uint32_t v)
{
    uint8_t b[2];
    put_u16(b, v);
    w_bytes(w, b, 2);
}

static void w_u32(writer_t *w, uint32_t v)
{
    uint8_t b[4];
    put_u32(b, v);
    w_bytes(w, b, 4);
}

static void w_varint(writer_t *w, uint32_t v)
{
    uint8_t b[5];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7fu;
        v >>= 7;
        b[n++] = (uint8_t)(byte | (v ? 0x80u : 0));
    } while (v);
    w_bytes(w, b, n);
}

/* A length-prefixed byte string; lengths from 2^32 − 1 up do not fit. */
static void w_blob(writer_t *w, const uint8_t *p, size_t n)
{
    if (n >= BRIDGE_ABSENT) {
        w->failed = true;
        return;
    }
    w_u32(w, (uint32_t)n);
    w_bytes(w, p, n);
}

static void w_optional(writer_t *w, bridge_bytes_t b)
{
    if (!b.present) w_u32(w, BRIDGE_ABSENT);
    else w_blob(w, b.data, b.len);
}

static void w_header(writer_t *w, enum bridge_msg_type type)
{
    w_u8(w, 'S');
    w_u8(w, 'B');
    w_u8(w, BRIDGE_MSG_VERSION);
    w_u8(w, (uint8_t)type);
}

static uint8_t *w_finish(writer_t *w, size_t *len)
{
    if (w->failed) {
        free(w->buf);
        return NULL;
    }
    *len = w->len;
    return w->buf;
}

/* ---- Reading ------------------------------------------------------------ */

typedef struct reader {
    const uint8_t *p;
    size_t left;
    bool failed;
} reader_t;

static const uint8_t *r_take(reader_t *r, size_t n)
{
    if (r->failed || n > r->left) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += n;
    r->left -= n;
    return at;
}

static uint8_t r_u8(reader_t *r)
{
    const uint8_t *b = r_take(r, 1);
    return b ? b[0] : 0;
}

static uint16_t r_u16(reader_t *r)
{
    const uint8_t *b = r_take(r, 2);
    return b ? (uint16_t)(b[0] | b[1] << 8) : 0;
}

static uint32_t r_u32(reader_t *r)
{
    const uint8_t *b = r_take(r, 4);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}

/* A canonical LEB128 u32: at most 5 bytes, no bits beyond 32, no
 * superfluous trailing zero group (so that each value has one encoding). */
static uint32_t r_varint(reader_t *r)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 5; i++) {
        uint8_t b = r_u8(r);
        if (r->failed) return 0;
        if (i == 4 && (b & 0xf0u)) break; /* bits 32 and up, or a 6th byte */
        v |= (uint32_t)(b & 0x7fu) << (7 * i);
        if (!(b & 0x80u)) {
            if (i > 0 && b == 0) break; /* overlong */
            return v;
        }
    }
    r->failed = true;
    return 0;
}

static bridge_bytes_t r_blob(reader_t *r)
{
    bridge_bytes_t out = {0};
    uint32_t n = r_u32(r);
    if (n == BRIDGE_ABSENT) r->failed = true;
    const uint8_t *at = r_take(r, n);
    if (r->failed) return out;
    out.data = at;
    out.len = n;
    out.present = true;
    return out;
}

static bridge_bytes_t r_optional(reader_t *r)
{
    bridge_bytes_t out = {0};
    uint32_t n = r_u32(r);
    if (r->failed || n == BRIDGE_ABSENT) return out;
    const uint8_t *at = r_take(r, n);
    if (r->failed) return out;
    out.data = at;
    out.len = n;
    out.present = true;
    return out;
}

static int r_header(reader_t *r, enum bridge_msg_type type)
{
    const uint8_t *h = r_take(r, BRIDGE_MSG_HEADER_BYTES);
    if (!h || h[0] != 'S' || h[1] != 'B' || h[2] != BRIDGE_MSG_VERSION || h[3] != type) return -1;
    return 0;
}

/* The whole input and nothing more. */
static int r_done(const reader_t *r) { return !r->failed && r->left == 0 ? 0 : -1; }

int bridge_msg_type(const uint8_t *p, size_t len)
{
    if (!p || len < BRIDGE_MSG_HEADER_BYTES || p[0] != 'S' || p[1] != 'B' || p[2] != BRIDGE_MSG_VERSION) return -1;
    if (p[3] < BRIDGE_MSG_SNAPSHOT || p[3] > BRIDGE_MSG_SHARED) return -1;
    return p[3];
}

/* ---- Snapshot ----------------------------------------------------------- */

static bridge_bytes_t buf_bytes(const shared_buf_t *b)
{
    bridge_bytes_t out = {0};
    if (b) {
        out.data = shared_buf_data(b);
        out.len = b->len;
        out.present = true;
    }
    return out;
}

uint8_t *bridge_snapshot_encode(const bundle_t *b, size_t *len)
{
    writer_t w = {0};
    bridge_bytes_t header = buf_bytes(b->header), header_scene = buf_bytes(b->header_scene);
    w_reserve(&w, 32 + header.len + header_scene.len + 2 * COUNT_GRID_SIDE * COUNT_GRID_SIDE);
    w_header(&w, BRIDGE_MSG_SNAPSHOT);
    w_u32(&w, b->seq);
    w_u32(&w, b->scene_version);
    w_blob(&w, header.data, header.len);
    w_blob(&w, header_scene.data, header_scene.len);
    w_u32(&w, b->grid.wq);
    w_u32(&w, b->grid.hq);
    for (size_t i = 0; i < COUNT_GRID_SIDE * COUNT_GRID_SIDE; i++) w_varint(&w, b->grid.cells[i]);
    return w_finish(&w, len);
}

int bridge_snapshot_decode(const uint8_t *p, size_t len, bridge_snapshot_t *out)
{
    reader_t r = {p, len, false};
    memset(out, 0, sizeof *out);
    if (r_header(&r, BRIDGE_MSG_SNAPSHOT) < 0) return -1;
    out->seq = r_u32(&r);
    out->scene_version = r_u32(&r);
    out->header = r_blob(&r);
    out->header_scene = r_blob(&r);
    out->grid.wq = r_u32(&r);
    out->grid.hq = r_u32(&r);
    for (size_t i = 0; i < COUNT_GRID_SIDE * COUNT_GRID_SIDE && !r.failed; i++) out->grid.cells[i] = r_varint(&r);
    return r_done(&r);
}

/* ---- View --------------------------------------------------------------- */

uint8_t *bridge_view_encode_parts(uint32_t seq, uint32_t sim_view_id, wire2_mode_t mode, wire2_rect_t rect,
                                  bridge_bytes_t key, bridge_bytes_t delta, bridge_bytes_t key_delta, size_t *len)
{
    if (!wire2_rect_valid(rect) || (mode != WIRE2_DETAIL && mode != WIRE2_LOD)) return NULL;
    writer_t w = {0};
    w_reserve(&w, 40 + key.len + delta.len + key_delta.len);
    w_header(&w, BRIDGE_MSG_VIEW);
    w_u32(&w, seq);
    w_u32(&w, sim_view_id);
    w_u8(&w, (uint8_t)mode);
    w_u8(&w, rect.level);
    w_u16(&w, rect.x0);
    w_u16(&w, rect.y0);
    w_u16(&w, rect.x1);
    w_u16(&w, rect.y1);
    w_optional(&w, key);
    w_optional(&w, delta);
    w_optional(&w, key_delta);
    return w_finish(&w, len);
}

uint8_t *bridge_view_encode(uint32_t seq, const bundle_view_t *v, const view_spec_t *spec, size_t *len)
{
    return bridge_view_encode_parts(seq, spec->id, spec->mode, spec->rect, buf_bytes(v->key), buf_bytes(v->delta),
                                    buf_bytes(v->key_delta), len);
}

int bridge_view_decode(const uint8_t *p, size_t len, bridge_view_t *out)
{
    reader_t r = {p, len, false};
    memset(out, 0, sizeof *out);
    if (r_header(&r, BRIDGE_MSG_VIEW) < 0) return -1;
    out->seq = r_u32(&r);
    out->sim_view_id = r_u32(&r);
    uint8_t mode = r_u8(&r);
    out->rect.level = r_u8(&r);
    out->rect.x0 = r_u16(&r);
    out->rect.y0 = r_u16(&r);
    out->rect.x1 = r_u16(&r);
    out->rect.y1 = r_u16(&r);
    out->key = r_optional(&r);
    out->delta = r_optional(&r);
    out->key_delta = r_optional(&r);
    if (r_done(&r) < 0 || mode > WIRE2_LOD || !wire2_rect_valid(out->rect)) return -1;
    out->mode = (wire2_mode_t)mode;
    return 0;
}

/* ---- News --------------------------------------------------------------- */

uint8_t *bridge_news_encode(uint16_t key, const char *text, size_t *len)
{
    writer_t w = {0};
    size_t n = strlen(text);
    w_reserve(&w, 10 + n);
    w_header(&w, BRIDGE_MSG_NEWS);
    w_u16(&w, key);
    w_blob(&w, (const uint8_t *)text, n);
    return w_finish(&w, len);
}

int bridge_news_decode(const uint8_t *p, size_t len, bridge_news_t *out)
{
    reader_t r = {p, len, false};
    memset(out, 0, sizeof *out);
    if (r_header(&r, BRIDGE_MSG_NEWS) < 0) return -1;
    out->key = r_u16(&r);
    out->text = r_blob(&r);
    return r_done(&r);
}

/* ---- Shared ------------------------------------------------------------- */

uint8_t *bridge_shared_encode(uint32_t share_id, bridge_bytes_t text, bridge_bytes_t frame, size_t *len)
{
    writer_t w = {0};
    w_reserve(&w, 16 + text.len + frame.len);
    w_header(&w, BRIDGE_MSG_SHARED);
    w_u32(&w, share_id);
    w_blob(&w, text.data, text.len);
    w_optional(&w, frame);
    return w_finish(&w, len);
}

int bridge_shared_decode(const uint8_t *p, size_t len, bridge_shared_t *out)
{
    reader_t r = {p, len, false};
    memset(out, 0, sizeof *out);
    if (r_header(&r, BRIDGE_MSG_SHARED) < 0) return -1;
    out->share_id = r_u32(&r);
    out->text = r_blob(&r);
    out->frame = r_optional(&r);
    return r_done(&r);
}

/* ---- Envelope ----------------------------------------------------------- */

static bool kind_valid(unsigned k) { return k >= BRIDGE_OPEN && k <= BRIDGE_KIND_LAST; }

/* A room code in its canonical form (one room, one spelling). */
static bool room_canonical(const char *code)
{
    char canonical[ROOM_CODE_LEN + 1];
    return room_code_normalize(code, canonical) && strcmp(canonical, code) == 0;
}

uint8_t *bridge_envelope_encode(const bridge_envelope_t *e, size_t *len)
{
    size_t room_len = strnlen(e->room, sizeof e->room);
    if (!kind_valid((unsigned)e->kind) || room_len > ROOM_CODE_LEN || (room_len && !room_canonical(e->room)))
        return NULL;
    bool has_text = e->text.present && e->text.data;
    size_t n = has_text ? e->text.len : 0;
    writer_t w = {0};
    w_reserve(&w, 17 + ROOM_CODE_LEN + n);
    w_header(&w, BRIDGE_MSG_ENVELOPE);
    w_u8(&w, (uint8_t)e->kind);
    w_u8(&w, e->operator ? BRIDGE_ENV_OPERATOR : 0);
    w_u32(&w, e->client_id);
    w_u16(&w, e->code);
    w_u8(&w, (uint8_t)room_len);
    w_bytes(&w, e->room, room_len);
    w_blob(&w, has_text ? e->text.data : NULL, n);
    return w_finish(&w, len);
}

int bridge_envelope_decode(const uint8_t *p, size_t len, bridge_envelope_t *out)
{
    reader_t r = {p, len, false};
    memset(out, 0, sizeof *out);
    if (r_header(&r, BRIDGE_MSG_ENVELOPE) < 0) return -1;
    uint8_t kind = r_u8(&r), flags = r_u8(&r);
    out->client_id = r_u32(&r);
    out->code = r_u16(&r);
    uint8_t room_len = r_u8(&r);
    if (room_len != 0 && room_len != ROOM_CODE_LEN) return -1;
    for (size_t i = 0; i < room_len; i++) out->room[i] = (char)r_u8(&r);
    out->room[room_len] = '\0';
    out->text = r_blob(&r);
    if (r_done(&r) < 0 || !kind_valid(kind) || (flags & ~BRIDGE_ENV_OPERATOR) || (room_len && !room_canonical(out->room)))
        return -1;
    out->kind = (bridge_kind_t)kind;
    out->operator = flags & BRIDGE_ENV_OPERATOR;
    return 0;
}

/* ---- A scrubbing viewer's view ----------------------------------------- */

void bridge_scrub_view_encode(wire2_mode_t mode, wire2_rect_t rect, uint8_t out[BRIDGE_SCRUB_VIEW_BYTES])
{
    out[0] = (uint8_t)mode;
    out[1] = rect.level;
    put_u16(out + 2, rect.x0);
    put_u16(out + 4, rect.y0);
    put_u16(out + 6, rect.x1);
    put_u16(out + 8, rect.y1);
}

int bridge_scrub_view_decode(bridge_bytes_t text, wire2_mode_t *mode, wire2_rect_t *rect)
{
    if (!text.present || text.len != BRIDGE_SCRUB_VIEW_BYTES) return -1;
    reader_t r = {text.data, text.len, false};
    uint8_t m = r_u8(&r);
    wire2_rect_t got;
    got.level = r_u8(&r);
    got.x0 = r_u16(&r);
    got.y0 = r_u16(&r);
    got.x1 = r_u16(&r);
    got.y1 = r_u16(&r);
    if (r_done(&r) < 0 || (m != WIRE2_DETAIL && m != WIRE2_LOD) || !wire2_rect_valid(got)) return -1;
    *mode = (wire2_mode_t)m;
    *rect = got;
    return 0;
}

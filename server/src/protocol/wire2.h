/* wire2: the codec of protocol v2 (protocol/PROTOCOL.md, "Snapshot frame v2").
 *
 * Server side, per snapshot:
 *   1. wire2_world_quantize: the world (a snap_view_t) → positions in 1/16
 *      unit quanta, 10-bit headings and flags, indexed by agent id
 *      (predators after the agents). Once per snapshot, shared by all views.
 *   2. wire2_view_enc_step, once per distinct view (rect + mode): advances
 *      that view's encoder, which mirrors exactly what a decoder of the view
 *      holds, and returns the view's key chunk (the whole state at this seq)
 *      and delta chunk (seq − 1 → seq). Chunks are complete (18-byte chunk
 *      header + payload) and independent of the frame around them.
 *   3. wire2_frame_header + the chunks of one view (one key, or a chain of
 *      consecutive deltas) = one frame (one binary WebSocket message).
 * Encoders are independent objects: different views may be stepped on
 * different threads; the quantized world is only read by them.
 *
 * Client side (tests, fuzzing, tools; the browser has client-web/net/wire2.js):
 * wire2_dec_frame decodes whole frames; on error the state is unchanged.
 *
 * Error rule: 0 on success, negative on failure (WIRE2_E_*). */
#ifndef SWARMCAST_WIRE2_H
#define SWARMCAST_WIRE2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/snapshot.h"

#define WIRE2_KIND 0x53u
#define WIRE2_VERSION 2u
#define WIRE2_HEADER_BYTES 20u
#define WIRE2_SCENE_FIXED_BYTES 12u /* f32 width, f32 height, u16 n_obstacles, u16 n_targets */
#define WIRE2_CHUNK_HEADER_BYTES 18u
#define WIRE2_FLAG_PAUSED 0x0001u
#define WIRE2_FLAG_SCENE 0x0002u
#define WIRE2_QUANTA_PER_UNIT 16u
#define WIRE2_HEADING_STEPS 1024u
#define WIRE2_LOD_CELLS 8u        /* LOD cells per tile per axis */
#define WIRE2_MAX_LEVEL 7u
#define WIRE2_MAX_COUNT (1u << 22) /* any count above this is malformed */
#define WIRE2_INDEX_LEVEL 4u       /* the quantized world's spatial index: 16 × 16 tiles */
/* Encoder policy: a residual beyond this many quanta is sent as exit + entry. */
#define WIRE2_MAX_RESIDUAL 1024

enum wire2_chunk_type {
    WIRE2_CHUNK_DETAIL_KEY = 1,
    WIRE2_CHUNK_DETAIL_DELTA = 2,
    WIRE2_CHUNK_LOD_KEY = 3,
    WIRE2_CHUNK_LOD_DELTA = 4,
};

enum wire2_error {
    WIRE2_E_NOMEM = -1,
    WIRE2_E_ARG = -2,       /* a bad argument (a rect out of range, …) */
    WIRE2_E_MALFORMED = -3, /* a frame the decoder rejects (err says why) */
    WIRE2_E_STATE = -4,     /* a delta for a state the decoder does not hold */
};

/* A tile rectangle: at level L the world is 2^L × 2^L tiles; columns
 * [x0, x1), rows [y0, y1). Valid: L ≤ 7, x0 < x1 ≤ 2^L, y0 < y1 ≤ 2^L. */
typedef struct wire2_rect {
    uint8_t level;
    uint16_t x0, y0, x1, y1;
} wire2_rect_t;

typedef enum { WIRE2_DETAIL = 0, WIRE2_LOD = 1 } wire2_mode_t;

/* A rect's bounds in quanta: qx0 ≤ qx < qx1, qy0 ≤ qy < qy1. */
typedef struct wire2_bounds {
    uint64_t qx0, qy0, qx1, qy1;
} wire2_bounds_t;

static inline bool wire2_rect_valid(wire2_rect_t r)
{
    uint32_t side = 1u << (r.level & 7u);
    return r.level <= WIRE2_MAX_LEVEL && r.x0 < r.x1 && r.y0 < r.y1 && r.x1 <= side && r.y1 <= side;
}
/* The whole world: level 0, one tile. */
static inline wire2_rect_t wire2_rect_world(void) { return (wire2_rect_t){0, 0, 0, 1, 1}; }
static inline bool wire2_rect_equal(wire2_rect_t a, wire2_rect_t b)
{
    return a.level == b.level && a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
}
/* qx0 = floor(x0·Wq / 2^L) and so on, in exact integer arithmetic. */
wire2_bounds_t wire2_rect_bounds(wire2_rect_t r, uint32_t wq, uint32_t hq);
/* floor(v·side / size) for v < size ≤ 2^31 and side ≤ 2^16 (which tile
 * of `side` across a quantum falls in), without a 64-bit integer division
 * (~40 cycles; the index and the census take two per agent). In double,
 * v·side < 2^47 is exact and the quotient, below side, is correctly rounded
 * to within side·2^-53 < 2^-37; a quotient that is not an integer lies at
 * least 1/size ≥ 2^-31 below the next one, so truncation gives the floor. */
static inline unsigned wire2_scale_floor(uint32_t v, unsigned side, uint32_t size)
{
    return (unsigned)((double)v * (double)side / (double)size);
}
/* Wq = ceil(width·16) (in double); 0 if width is not a positive finite
 * number or Wq would exceed 2^31 (no chunk can then be coded). */
uint32_t wire2_quanta_of(float size);

/* One agent quantized. Its fields side by side: an encoder looks agents up
 * by id in an order random with respect to ids (canonical, or by tile), so
 * each look-up is a cache miss, one line per agent instead of one per field
 * (a million-agent view's look-ups: 27% less CPU; docs/BENCHMARKS.md,
 * "Encoding a million"). */
typedef struct wire2_agent {
    uint32_t qx, qy; /* qx < wq, qy < hq */
    uint16_t h;      /* 0 … 1023 */
    uint8_t f;       /* flags (predators: AGENT_PREDATOR) */
} wire2_agent_t;

/* The quantized world at one snapshot, indexed by agent id (agents 0 … n_agents−1,
 * then the predators). Start from wire2_world_t q = {0}; quantize reuses the
 * arrays (growing them), wire2_world_free releases them. Read-only for encoders. */
typedef struct wire2_world {
    uint32_t seq, tick;
    bool paused;
    float width, height;
    uint32_t wq, hq;        /* world size in quanta (0: unusable size, every view is empty) */
    size_t n;               /* agents + predators */
    size_t n_agents;
    wire2_agent_t *agent;   /* by id */
    /* Private to the codec: a spatial index, so that a view visits only the
     * agents of the tiles it covers. Ids by their tile at level
     * WIRE2_INDEX_LEVEL (row-major), tile t's ids being
     * by_tile[tile_start[t] … tile_start[t + 1]). */
    uint32_t *by_tile;
    uint8_t *tile_of;
    uint32_t tile_start[(1u << (2 * WIRE2_INDEX_LEVEL)) + 1];
    size_t cap;             /* allocated entries */
} wire2_world_t;

/* Fills q from v (positions and headings quantized as PROTOCOL.md says:
 * NaN → 0, clamped to the world; heading round(atan2·1024/2π) mod 1024, a
 * zero or NaN velocity → 0). seq is the snapshot's sequence number. */
int wire2_world_quantize(wire2_world_t *q, const snap_view_t *v, uint32_t seq);
void wire2_world_free(wire2_world_t *q);
/* Agents quantized as wire2_world_quantize does (qx, qy; h when headings is
 * set, else 0), a block of at most 64 at a time. */
typedef void (*wire2_block_fn)(void *user, const uint32_t *qx, const uint32_t *qy, const uint16_t *h, size_t n);
/* The quantized world without its by-id arrays, for a room that needs only
 * sums over the agents (LOD cells, the census), which do not depend on the
 * order: hands v's agents to fn in v's own order (sequential reads: no
 * scatter by id, no tile index), then the predators, and fills head's
 * fields that are not per agent (seq, tick, paused, size, n, n_agents; its
 * agent and index pointers are NULL: no view's wire2_view_enc_step may be
 * given it). 0, or WIRE2_E_ARG for more than WIRE2_MAX_COUNT items (fn not
 * called), as wire2_world_quantize. */
int wire2_world_blocks(wire2_world_t *head, const snap_view_t *v, uint32_t seq, bool headings, wire2_block_fn fn,
                       void *user);
/* The heading step of a velocity (the quantizer's, exposed for tests). */
uint16_t wire2_quantize_heading(float vx, float vy);
/* The index tiles [tx0, tx1) × [ty0, ty1) that hold every agent within b
 * (and maybe others: check each agent). For the encoder. */
void wire2_world_tiles(const wire2_world_t *q, const wire2_bounds_t *b, unsigned *tx0, unsigned *ty0, unsigned *tx1,
                       unsigned *ty1);
/* How many items (agents + predators) lie in a rect: for choosing a view's
 * mode. Visits only the agents of the tiles the rect covers. */
size_t wire2_world_count_in(const wire2_world_t *q, wire2_rect_t r);

/* LOD cell values (PROTOCOL.md "LOD"): d of a member count, min(63, 1 +
 * round(4·log2 count)) (0 when empty); a of the sums of the members'
 * heading terms, round(atan2(Σsin, Σcos)·64/2π) mod 64 (0 for zero sums).
 * The sums are exact integers: wire2_lod_heading_terms gives sin and cos of
 * a heading step in units of 2^-16, so the cell's value does not depend on
 * the order its members are added in. */
uint8_t wire2_lod_density(uint32_t count);
void wire2_lod_heading_terms(uint16_t h, int32_t *sin_term, int32_t *cos_term);
uint8_t wire2_lod_heading(int64_t sum_sin, int64_t sum_cos);

/* A chunk: 18-byte header + payload, malloc'd (free() it), or {NULL, 0}. */
typedef struct wire2_chunk {
    uint8_t *buf;
    size_t len;
} wire2_chunk_t;

/* One view's encoder. It mirrors what a decoder of this view holds after the
 * last step: the canonical item list (detail) or the cells (LOD). */
typedef struct wire2_view_enc wire2_view_enc_t;

/* NULL if the rect is invalid or out of memory. */
wire2_view_enc_t *wire2_view_enc_new(wire2_rect_t r, wire2_mode_t m);
void wire2_view_enc_free(wire2_view_enc_t *e);
wire2_rect_t wire2_view_enc_rect(const wire2_view_enc_t *e);
wire2_mode_t wire2_view_enc_mode(const wire2_view_enc_t *e);
/* Advances the view to q. Outputs (each may be NULL: not wanted, not encoded):
 *   key        the key chunk of seq q->seq (the whole new state);
 *   delta      the delta chunk seq−1 → seq for a decoder that FOLLOWED the
 *              deltas (it holds seq−1 from a delta);
 *   key_delta  the delta chunk seq−1 → seq for a decoder that holds the KEY
 *              of seq−1 and nothing since.
 * Why two deltas: a key carries no motion (after a key px = rx), while a
 * decoder that applied a delta predicts from the previous positions, so the
 * two hold different prediction states at the same seq. Both deltas have
 * the same exits, entries and flag changes, and after either one the
 * decoder holds exactly the same state: a client is back on the shared
 * delta stream after one key_delta. Server rule: a client whose last chunk
 * was its view's key of seq k gets key_delta(k + 1) next (the first link of
 * a chain), then regular deltas. For LOD views key_delta is a copy of delta.
 * The deltas are made when the encoder held q->seq − 1 for a world of the
 * same size, else they are {NULL, 0} (the first step, a skipped seq, a
 * world resized). Either way the encoder then holds q->seq. On error all
 * outputs are {NULL, 0} and the encoder holds nothing (no delta next). */
int wire2_view_enc_step(wire2_view_enc_t *e, const wire2_world_t *q, wire2_chunk_t *key, wire2_chunk_t *delta,
                        wire2_chunk_t *key_delta);
/* A LOD view stepped from sums the caller makes (a room with only LOD
 * views needs no world by id: wire2_world_blocks). A cell's count and sums
 * are integer sums, so the order the agents come in changes no byte: the
 * chunks are those wire2_view_enc_step makes from the same snapshot.
 *   wire2_view_enc_lod_begin  clears the sums for a world of wq × hq (0, or
 *                             WIRE2_E_ARG for a detail view or an unusable
 *                             size, WIRE2_E_NOMEM);
 *   wire2_view_enc_lod_add    adds agents (quantized: qx < wq, qy < hq);
 *                             nothing after a failed begin;
 *   wire2_view_enc_lod_end    as wire2_view_enc_step with head (the
 *                             snapshot's seq, size and count); an error,
 *                             with the encoder holding nothing, if the sums
 *                             were not begun for head's size. */
int wire2_view_enc_lod_begin(wire2_view_enc_t *e, uint32_t wq, uint32_t hq);
void wire2_view_enc_lod_add(wire2_view_enc_t *e, const uint32_t *qx, const uint32_t *qy, const uint16_t *h, size_t n);
/* Whether agents whose positions all lie in [x0, x1] × [y0, y1] (quanta,
 * inclusive) may fall in the view being summed: when not, adding them
 * would change none of its cells, and the caller may skip them (a room of
 * many small views adds each block of nearby agents to the few it meets). */
bool wire2_view_enc_lod_meets(const wire2_view_enc_t *e, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1);
int wire2_view_enc_lod_end(wire2_view_enc_t *e, const wire2_world_t *head, wire2_chunk_t *key, wire2_chunk_t *delta,
                           wire2_chunk_t *key_delta);
/* Items (detail) the encoder holds now; for metrics and tests. */
size_t wire2_view_enc_count(const wire2_view_enc_t *e);
void wire2_chunk_free(wire2_chunk_t *c);
/* Writes an 18-byte chunk header at out (tests build odd chunks with it). */
void wire2_chunk_header_write(uint8_t *out, unsigned type, wire2_rect_t r, uint32_t seq, uint32_t payload_bytes);

/* Frame assembly: the header (+ scene when `scene` is not NULL: its width,
 * height, obstacles and targets are written as in v1). Returns the bytes
 * written, or 0 if cap is too small or a count does not fit its field. The
 * frame is the header followed by the n_chunks chunks' bytes. */
size_t wire2_frame_header_size(const snap_view_t *scene);
size_t wire2_frame_header(uint8_t *out, size_t cap, const wire2_world_t *q, uint32_t population,
                          const snap_view_t *scene, uint16_t n_chunks);
/* A whole frame in one malloc'd buffer (header, scene if given, the chunks
 * in order); for tools and tests. 0 or WIRE2_E_*. */
int wire2_frame_build(const wire2_world_t *q, uint32_t population, const snap_view_t *scene,
                      const wire2_chunk_t *chunks, size_t n_chunks, uint8_t **out, size_t *out_len);

/* ---- Decoder ------------------------------------------------------------- */

typedef struct wire2_dec wire2_dec_t;

typedef struct wire2_dec_obstacle {
    uint32_t id;
    float x, y, r;
} wire2_dec_obstacle_t;
typedef struct wire2_dec_target {
    uint32_t client_id;
    float x, y;
} wire2_dec_target_t;

/* What a decoder holds after the last accepted frame. Pointers stay valid
 * until the next wire2_dec_frame or wire2_dec_free. */
typedef struct wire2_dec_state {
    /* the last frame's header */
    uint32_t seq, tick, population;
    bool paused;
    /* the last scene received (has_scene false before the first) */
    bool has_scene;
    float width, height;
    uint32_t wq, hq;
    size_t n_obstacles, n_targets;
    const wire2_dec_obstacle_t *obstacles;
    const wire2_dec_target_t *targets;
    /* the view: valid once a key was decoded */
    bool has_view;
    wire2_mode_t mode;
    wire2_rect_t rect;
    wire2_bounds_t bounds;
    uint32_t view_seq; /* the seq of the view's state */
    bool keyed;        /* the last frame carried a key */
    /* detail: items in canonical order, absolute quanta */
    size_t count;
    const uint32_t *qx, *qy;
    const uint16_t *h;
    const uint8_t *f;
    /* LOD: cols × rows cells, row-major */
    uint32_t cols, rows;
    const uint8_t *d, *a;
} wire2_dec_state_t;

wire2_dec_t *wire2_dec_new(void);
void wire2_dec_free(wire2_dec_t *d);
/* Decodes one frame. 0, or WIRE2_E_MALFORMED / WIRE2_E_STATE / WIRE2_E_NOMEM
 * with the reason in err (if err_len > 0) and the state unchanged.
 * Beyond the spec's list, the decoder also rejects: an unknown chunk type, a
 * chunk before any scene was received (its rect has no size), a decoded
 * position outside the rect, a flag-change index out of range, a LOD density
 * above 63 (key) or outside 0…63 after a delta. */
int wire2_dec_frame(wire2_dec_t *d, const uint8_t *buf, size_t len, char *err, size_t err_len);
const wire2_dec_state_t *wire2_dec_state(const wire2_dec_t *d);

#endif

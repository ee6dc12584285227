/* Fuzz target: the NATS bridge's binary messages (server/src/bridge/bridge_msg.c).
 * Any input goes to all five strict decoders. Invariants:
 *   - at most one decoder accepts it, the one bridge_msg_type names;
 *   - decoded byte ranges lie inside the input;
 *   - an accepted message encodes back to exactly the input (each message
 *     has one encoding: canonical varints, no trailing bytes);
 *   - a scrubbing viewer's view (a SCRUB_VIEW envelope's text, or the whole
 *     input) is accepted only with a valid mode and rect, and encodes back
 *     to exactly its bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/bridge_msg.h"
#include "fuzz_check.h"

static bool inside(bridge_bytes_t b, const uint8_t *p, size_t len)
{
    return !b.present || (b.data >= p && b.len <= len && b.data + b.len <= p + len);
}

/* enc_len by address: the encoder that makes enc writes it, and the order in
 * which a call's arguments are evaluated is unspecified (GCC read n before
 * the encoder had set it, clang after). */
static void same_bytes(uint8_t *enc, const size_t *enc_len_at, const uint8_t *p, size_t len, const char *what)
{
    REQUIRE(enc != NULL, "%s: re-encoding failed", what);
    size_t enc_len = *enc_len_at;
    REQUIRE(enc_len == len && memcmp(enc, p, len) == 0, "%s: re-encoded %zu bytes differ from the %zu read", what,
            enc_len, len);
    free(enc);
}

static shared_buf_t *copy_buf(bridge_bytes_t b)
{
    shared_buf_t *s = shared_buf_new(16, b.len);
    REQUIRE(s != NULL, "out of memory");
    if (b.len) memcpy(shared_buf_data(s), b.data, b.len);
    return s;
}

static void check_scrub_view(bridge_bytes_t text)
{
    wire2_mode_t mode;
    wire2_rect_t rect;
    if (bridge_scrub_view_decode(text, &mode, &rect) < 0) return;
    REQUIRE(text.len == BRIDGE_SCRUB_VIEW_BYTES, "a scrub view of %zu bytes accepted", text.len);
    REQUIRE((mode == WIRE2_DETAIL || mode == WIRE2_LOD) && wire2_rect_valid(rect), "an invalid scrub view accepted");
    uint8_t again[BRIDGE_SCRUB_VIEW_BYTES];
    bridge_scrub_view_encode(mode, rect, again);
    REQUIRE(memcmp(again, text.data, BRIDGE_SCRUB_VIEW_BYTES) == 0, "a scrub view re-encodes to other bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *p, size_t len)
{
    int type = bridge_msg_type(p, len);
    int accepted = 0;
    size_t n;

    bridge_snapshot_t s;
    if (bridge_snapshot_decode(p, len, &s) == 0) {
        accepted++;
        REQUIRE(type == BRIDGE_MSG_SNAPSHOT, "snapshot accepted, type %d", type);
        REQUIRE(inside(s.header, p, len) && inside(s.header_scene, p, len), "snapshot bytes outside the input");
        bundle_t b = {.seq = s.seq, .scene_version = s.scene_version, .grid = s.grid};
        b.header = copy_buf(s.header);
        b.header_scene = copy_buf(s.header_scene);
        same_bytes(bridge_snapshot_encode(&b, &n), &n, p, len, "snapshot");
        shared_buf_unref(b.header);
        shared_buf_unref(b.header_scene);
    }
    bridge_view_t v;
    if (bridge_view_decode(p, len, &v) == 0) {
        accepted++;
        REQUIRE(type == BRIDGE_MSG_VIEW, "view accepted, type %d", type);
        REQUIRE(wire2_rect_valid(v.rect), "view with an invalid rect accepted");
        REQUIRE(inside(v.key, p, len) && inside(v.delta, p, len) && inside(v.key_delta, p, len),
                "view bytes outside the input");
        same_bytes(bridge_view_encode_parts(v.seq, v.sim_view_id, v.mode, v.rect, v.key, v.delta, v.key_delta, &n), &n,
                   p, len, "view");
    }
    bridge_news_t nw;
    if (bridge_news_decode(p, len, &nw) == 0) {
        accepted++;
        REQUIRE(type == BRIDGE_MSG_NEWS, "news accepted, type %d", type);
        REQUIRE(inside(nw.text, p, len), "news bytes outside the input");
        if (!memchr(nw.text.data, 0, nw.text.len)) { /* the encoder takes a C string */
            char *text = malloc(nw.text.len + 1);
            memcpy(text, nw.text.data, nw.text.len);
            text[nw.text.len] = '\0';
            same_bytes(bridge_news_encode(nw.key, text, &n), &n, p, len, "news");
            free(text);
        }
    }
    bridge_shared_t sh;
    if (bridge_shared_decode(p, len, &sh) == 0) {
        accepted++;
        REQUIRE(type == BRIDGE_MSG_SHARED, "shared accepted, type %d", type);
        REQUIRE(inside(sh.text, p, len) && inside(sh.frame, p, len), "shared bytes outside the input");
        same_bytes(bridge_shared_encode(sh.share_id, sh.text, sh.frame, &n), &n, p, len, "shared");
    }
    bridge_envelope_t e;
    if (bridge_envelope_decode(p, len, &e) == 0) {
        accepted++;
        REQUIRE(type == BRIDGE_MSG_ENVELOPE, "envelope accepted, type %d", type);
        REQUIRE(e.kind >= BRIDGE_OPEN && e.kind <= BRIDGE_KIND_LAST, "envelope kind %d accepted", (int)e.kind);
        REQUIRE(inside(e.text, p, len), "envelope bytes outside the input");
        same_bytes(bridge_envelope_encode(&e, &n), &n, p, len, "envelope");
    }
    REQUIRE(accepted <= 1, "%d decoders accepted one input", accepted);
    check_scrub_view((bridge_bytes_t){p, len, true});
    if (accepted && type == BRIDGE_MSG_ENVELOPE && e.kind == BRIDGE_SCRUB_VIEW) check_scrub_view(e.text);
    return 0;
}

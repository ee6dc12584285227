/* bridge_msg: the binary messages the simulation and its edge relays
 * exchange over NATS (protocol/PROTOCOL.md, "NATS subjects (scaled
 * set-up)"). Every message starts with the magic 'S','B', the version
 * (BRIDGE_MSG_VERSION) and a type byte; every multi-byte field is
 * little-endian.
 *
 * Encoders return a malloc'd buffer (*len set) or NULL (out of memory, or a
 * field that does not fit). Decoders are strict: 0 when the whole input is
 * exactly one well-formed message of the type, else -1 (a wrong magic,
 * version or type, a truncation, trailing bytes, an out-of-range field, a
 * non-canonical varint); they never read past len, and decoded byte ranges
 * (bridge_bytes_t) point into the input. */
#ifndef SWARMCAST_BRIDGE_MSG_H
#define SWARMCAST_BRIDGE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "rooms/room_code.h"
#include "stream/bundle.h"
#include "stream/count_grid.h"
#include "stream/encoder.h" /* view_spec_t */

/* 2: an envelope names its viewer's room (rooms through relays). */
#define BRIDGE_MSG_VERSION 2u
#define BRIDGE_MSG_HEADER_BYTES 4u   /* 'S', 'B', version, type */
#define BRIDGE_ABSENT 0xFFFFFFFFu    /* a view part's length when the part is absent */
#define BRIDGE_ENV_OPERATOR 0x01u    /* envelope flags bit 0 */

enum bridge_msg_type {
    BRIDGE_MSG_SNAPSHOT = 1,
    BRIDGE_MSG_VIEW = 2,
    BRIDGE_MSG_NEWS = 3,
    BRIDGE_MSG_ENVELOPE = 4,
    BRIDGE_MSG_SHARED = 5,
};

typedef struct bridge_bytes {
    const uint8_t *data;
    size_t len;
    bool present;
} bridge_bytes_t;

/* Snapshot (type 1): what a relay needs besides the views to rebuild a
 * bundle: seq, scene version, both frame headers and the census. */
typedef struct bridge_snapshot {
    uint32_t seq, scene_version;
    bridge_bytes_t header, header_scene;
    count_grid_t grid;
} bridge_snapshot_t;

/* View (type 2): one view's chunks for one seq. */
typedef struct bridge_view {
    uint32_t seq, sim_view_id;
    wire2_mode_t mode;
    wire2_rect_t rect;
    bridge_bytes_t key, delta, key_delta;
} bridge_view_t;

/* News (type 3): a latest-key broadcast. */
typedef struct bridge_news {
    uint16_t key;
    bridge_bytes_t text;
} bridge_news_t;

typedef enum {
    BRIDGE_OPEN = 1,  /* a client joined the relay, or its role changed (auth) */
    BRIDGE_CLOSE = 2, /* the client left (relay → sim) */
    BRIDGE_TEXT = 3,  /* one message of the client (relay → sim) */
    BRIDGE_REPLY = 4, /* a message for the client (sim → relay) */
    BRIDGE_KICK = 5,  /* close the client with code and reason (sim → relay) */
    BRIDGE_ROLE = 6,  /* the client's role is now the flags' (a room token it sent; sim → relay) */
    /* The timeline through relays (PROTOCOL.md, "Timeline"): */
    BRIDGE_PAST = 7,       /* the client looks at the past: text is its v2 frame of it, or empty (its seat
                            * has no frame yet): no live frames for it meanwhile (sim → relay) */
    BRIDGE_LIVE = 8,       /* the client is back on the live stream: its next frame is a key (sim → relay) */
    BRIDGE_SCRUB_VIEW = 9, /* the view the client watches, for its frames of the past: text is
                            * bridge_scrub_view_encode's (relay → sim) */
} bridge_kind_t;
/* The kinds are BRIDGE_OPEN … BRIDGE_KIND_LAST: a new kind goes after the
 * last and moves this, which the decoder, the encoder and their tests read. */
#define BRIDGE_KIND_LAST BRIDGE_SCRUB_VIEW

/* Envelope (type 4): one client's traffic between a relay and the sim. */
typedef struct bridge_envelope {
    bridge_kind_t kind;
    bool operator;
    uint32_t client_id;
    uint16_t code;       /* KICK: the WebSocket close code; else 0 */
    char room[ROOM_CODE_LEN + 1]; /* the client's room: "" the default room, else a canonical code */
    bridge_bytes_t text; /* TEXT: the client's JSON; REPLY: JSON for it; KICK: the reason */
} bridge_envelope_t;

/* Shared (type 5): an operator's shared moment in one room (PROTOCOL.md,
 * "Timeline", share), for the relays' viewers who watch that room live:
 * the share's number (a new number: a new share), the timeline message its
 * followers are told (JSON), and its newest frame of the past (a v2 frame),
 * absent when the share ended. */
typedef struct bridge_shared {
    uint32_t share_id;
    bridge_bytes_t text, frame;
} bridge_shared_t;

/* The message type of p (1 … 5), or -1 when p has no valid magic/version
 * header or an unknown type. */
int bridge_msg_type(const uint8_t *p, size_t len);

/* The bundle's seq, scene version, headers (payload bytes, not the
 * headroom) and census. */
uint8_t *bridge_snapshot_encode(const bundle_t *b, size_t *len);
int bridge_snapshot_decode(const uint8_t *p, size_t len, bridge_snapshot_t *out);

/* v's key / delta / key_delta (NULL ones absent) for the view spec (id,
 * rect, mode) at seq. */
uint8_t *bridge_view_encode(uint32_t seq, const bundle_view_t *v, const view_spec_t *spec, size_t *len);
/* The same from raw parts (tests, tools, the fuzz target). */
uint8_t *bridge_view_encode_parts(uint32_t seq, uint32_t sim_view_id, wire2_mode_t mode, wire2_rect_t rect,
                                  bridge_bytes_t key, bridge_bytes_t delta, bridge_bytes_t key_delta, size_t *len);
int bridge_view_decode(const uint8_t *p, size_t len, bridge_view_t *out);

/* frame absent (present false): the share ended. */
uint8_t *bridge_shared_encode(uint32_t share_id, bridge_bytes_t text, bridge_bytes_t frame, size_t *len);
int bridge_shared_decode(const uint8_t *p, size_t len, bridge_shared_t *out);

/* text is NUL-terminated. */
uint8_t *bridge_news_encode(uint16_t key, const char *text, size_t *len);
int bridge_news_decode(const uint8_t *p, size_t len, bridge_news_t *out);

/* e->text.present false (or data NULL) encodes an empty text. */
uint8_t *bridge_envelope_encode(const bridge_envelope_t *e, size_t *len);
int bridge_envelope_decode(const uint8_t *p, size_t len, bridge_envelope_t *out);

/* A SCRUB_VIEW envelope's text: mode (u8), then the rect's level (u8) and
 * x0, y0, x1, y1 (u16 each). The decoder refuses another length, a mode
 * that is not one, and an invalid rect (wire2_rect_valid). */
#define BRIDGE_SCRUB_VIEW_BYTES 10u
void bridge_scrub_view_encode(wire2_mode_t mode, wire2_rect_t rect, uint8_t out[BRIDGE_SCRUB_VIEW_BYTES]);
int bridge_scrub_view_decode(bridge_bytes_t text, wire2_mode_t *mode, wire2_rect_t *rect);

#endif

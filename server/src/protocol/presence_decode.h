/* presence_decode: the session messages of many hands on one flock —
 * hello (a name and a colour), cursor (where one's pointer is), inspect
 * (select an agent to look into) and ping (answered at once by pong, so a
 * page can show its round-trip time without waiting for a tick). Like auth they never reach the world,
 * the command queue or the command log. cmd_decode has already checked the
 * text is one strict JSON object; this reads it again only when cmd_decode
 * found no simulation command in it. */
#ifndef SWARMCAST_PRESENCE_DECODE_H
#define SWARMCAST_PRESENCE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"
#include "protocol/presence_name.h"


typedef enum { PRESENCE_HELLO, PRESENCE_CURSOR, PRESENCE_INSPECT, PRESENCE_PING } presence_kind_t;
/* The kinds are 0 … PRESENCE_KINDS - 1 (not an enumerator, so that switches
 * over every kind need no case for it). presence_decode.c's table of names
 * must have exactly this many entries, or it does not compile. */
enum { PRESENCE_KINDS = PRESENCE_PING + 1 };

typedef struct presence_msg {
    presence_kind_t kind;
    int64_t request_id; /* -1 when none */
    /* hello: either may be absent (then kept as is, or the default) */
    bool has_name, has_color;
    char name[PRESENCE_NAME_BYTES];
    uint32_t color; /* 0xrrggbb */
    /* cursor, inspect: a point in the world; inspect without one stops */
    bool has_point;
    float x, y;
} presence_msg_t;

enum { PRESENCE_DECODED = 0, PRESENCE_NOT_PRESENCE = 1, PRESENCE_INVALID = -1 };

/* PRESENCE_DECODED (out filled), PRESENCE_NOT_PRESENCE (something else),
 * or PRESENCE_INVALID (err filled: code, message, the command's name). */
int presence_decode(const char *text, size_t len, const cmd_limits_t *limits, presence_msg_t *out, cmd_error_t *err);
/* The message type of a presence kind ("hello", "cursor", "inspect",
 * "ping"), NULL past PRESENCE_KINDS. This is the table presence_decode
 * recognises a message's "type" by: a type is presence exactly when some
 * kind's name is it, so whoever checks the decoder (tests/fuzz) takes the
 * list from here and never falls behind a new message. */
const char *presence_kind_name(presence_kind_t kind);

#endif

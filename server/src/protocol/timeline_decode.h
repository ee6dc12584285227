/* timeline_decode: a viewer's timeline message (protocol/PROTOCOL.md,
 * "Timeline"):
 *
 *   {"type":"timeline","op":"seek","tick":T}     show the world at tick T, paused
 *   {"type":"timeline","op":"play","speed":S}    play from what is shown (S: ±0.25 … ±8, default 1)
 *   {"type":"timeline","op":"pause"}             stop at what is shown (from live: the present)
 *   {"type":"timeline","op":"step","by":N}       N ticks forward or back (±1 … ±600), paused
 *   {"type":"timeline","op":"live"}              back to the live world
 *   {"type":"timeline","op":"window"}            just the answer: the ticks kept
 *   {"type":"timeline","op":"share"}             (operators) everyone watching live follows what this one shows
 *
 * with an optional "id" echoed in the answer. Like view, it never reaches
 * the world: read only after the other decoders found no type of theirs. */
#ifndef SWARMCAST_TIMELINE_DECODE_H
#define SWARMCAST_TIMELINE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"

#define TIMELINE_MIN_SPEED 0.25
#define TIMELINE_MAX_SPEED 8.0
#define TIMELINE_MAX_STEP 600

enum { TIMELINE_DECODED = 0, TIMELINE_NOT_TIMELINE = 1, TIMELINE_INVALID = -1 };

typedef enum {
    TIMELINE_SEEK,
    TIMELINE_PLAY,
    TIMELINE_PAUSE,
    TIMELINE_STEP,
    TIMELINE_LIVE,
    TIMELINE_WINDOW,
    TIMELINE_SHARE,
} timeline_op_t;

extern const char *const timeline_op_names[];

typedef struct timeline_request {
    timeline_op_t op;
    uint64_t tick;  /* seek */
    double speed;   /* play (1 when not given) */
    int64_t by;     /* step */
    int64_t request_id; /* -1: none */
} timeline_request_t;

/* TIMELINE_DECODED (out filled), TIMELINE_NOT_TIMELINE, or TIMELINE_INVALID
 * (err filled, code "bad_request", saying which field and why). */
int timeline_decode(const char *text, size_t len, timeline_request_t *out, cmd_error_t *err);

#endif

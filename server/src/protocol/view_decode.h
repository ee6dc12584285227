/* view_decode: the v2 session message {"type":"view","x":X,"y":Y,"w":W,
 * "h":H,"budget":B} (world units; budget optional: the most agents the
 * client wants drawn one by one). Like auth, it never reaches the world:
 * read only when cmd_decode found no simulation command in a text it had
 * already checked as one strict JSON object. */
#ifndef SWARMCAST_VIEW_DECODE_H
#define SWARMCAST_VIEW_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"

/* Coordinates beyond this magnitude are refused (no world is that big). */
#define VIEW_MAX_COORD 1e9

enum { VIEW_DECODED = 0, VIEW_NOT_VIEW = 1, VIEW_INVALID = -1 };

typedef struct view_request {
    double x, y, w, h;
    double budget; /* < 0: not given */
    int64_t request_id; /* -1: none */
} view_request_t;

/* VIEW_DECODED (out filled), VIEW_NOT_VIEW, or VIEW_INVALID (err filled,
 * code "bad_request"). */
int view_decode(const char *text, size_t len, view_request_t *out, cmd_error_t *err);

#endif

/* auth_decode: the one session command, {"type":"auth","token":"…"}, which
 * asks for the operator role. It is not a simulation command: it never
 * reaches the world, the command queue or the command log. cmd_decode has
 * already checked the text is one strict JSON object; this reads it again
 * only when cmd_decode found no simulation command in it. */
#ifndef SWARMCAST_AUTH_DECODE_H
#define SWARMCAST_AUTH_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"

#define AUTH_MAX_TOKEN 256

enum { AUTH_DECODED = 0, AUTH_NOT_AUTH = 1, AUTH_INVALID = -1 };

/* AUTH_DECODED (token and request_id filled), AUTH_NOT_AUTH (the message
 * is something else), or AUTH_INVALID (an auth message with bad fields:
 * err filled). */
int auth_decode(const char *text, size_t len, char token[AUTH_MAX_TOKEN + 1], int64_t *request_id, cmd_error_t *err);

#endif

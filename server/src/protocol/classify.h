/* classify: what one client text message is — a simulation command, a
 * presence message (hello, cursor, inspect, ping), auth, a view, a
 * message about rooms, or an
 * error to send back. The decoders are tried in that order, each only when
 * the previous one found "unknown_command", so that the first decoder that
 * recognises the type reports its own errors. Shared by the simulation's
 * loop (app/viewer_sessions.c) and a relay (relay/relay_viewers.c), which
 * must sort messages the same way. */
#ifndef SWARMCAST_CLASSIFY_H
#define SWARMCAST_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/auth_decode.h"
#include "protocol/cmd_decode.h"
#include "protocol/presence_decode.h"
#include "protocol/room_decode.h"
#include "protocol/view_decode.h"

typedef enum {
    CLASSIFIED_COMMAND,  /* cmd */
    CLASSIFIED_PRESENCE, /* presence */
    CLASSIFIED_AUTH,     /* token, request_id */
    CLASSIFIED_VIEW,     /* view */
    CLASSIFIED_ROOM,     /* room */
    CLASSIFIED_INVALID,  /* err: what to reply */
} classified_kind_t;

typedef struct classified {
    classified_kind_t kind;
    sim_cmd_t cmd;
    presence_msg_t presence;
    char token[AUTH_MAX_TOKEN + 1];
    int64_t request_id; /* of an auth */
    view_request_t view;
    room_msg_t room;
    cmd_error_t err;
} classified_t;

/* Fills out; client_id goes into a decoded command. */
void classify_message(const char *data, size_t len, const cmd_limits_t *limits, uint32_t client_id, classified_t *out);

#endif

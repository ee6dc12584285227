/* room_messages: the JSON the server sends about rooms (PROTOCOL.md,
 * "Rooms"): a made room with its token, the ack of a rename or close, and
 * the list of rooms (for the server's operator, and /healthz). Each builder
 * returns a malloc'd string, or NULL when out of memory. */
#ifndef SWARMCAST_ROOM_MESSAGES_H
#define SWARMCAST_ROOM_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Close codes of the room protocol (PROTOCOL.md "Rooms"), from the server
 * and from relays alike. */
#define CLOSE_NO_SUCH_ROOM 4404
#define CLOSE_ROOM_CLOSED 4410
#define CLOSE_TOO_MANY_CODES 4429
/* RFC 6455's "try again later": a kept room that cannot reopen now. */
#define CLOSE_TRY_AGAIN_LATER 1013

/* One room, as the list shows it. */
typedef struct room_info {
    const char *code; /* "" for the default room */
    const char *name;
    size_t people, agents;
    uint64_t tick;
    double ticks_per_s; /* over the last second it stepped */
    double slowest_second; /* the fewest ticks in one whole second since it started (0 before its first) */
    bool paused;        /* by its operators */
    bool resting;       /* nobody watches: it does not step */
} room_info_t;

/* {"type":"room_created","id":…,"code":…,"name":…,"token":…,"path":"/r/CODE"} */
char *msg_room_created(int64_t request_id, const char *code, const char *name, const char *token);
/* {"type":"room","code":…,"name":…}: the room's news (a rename), to everyone in it */
char *msg_room_news(const char *code, const char *name);
/* {"type":"ack","id":…,"cmd":…} */
char *msg_room_ack(int64_t request_id, const char *cmd);
/* {"type":"rooms","id":…,"rooms":[…]} (request_id < 0: id null) */
char *msg_rooms(int64_t request_id, const room_info_t *rooms, size_t n);
/* The list alone, a JSON array (for /healthz). */
char *rooms_json_array(const room_info_t *rooms, size_t n);

#endif

/* room_decode: the messages about rooms (PROTOCOL.md, "Rooms"):
 *   {"type":"create_room","from":"defaults"|"copy"|"scenario","scenario":"NAME","name":"…"}
 *   {"type":"create_room","from":"run","experiment":"NAME","run":"RUN_ID"}   one run of a sweep
 *   {"type":"room_rename","name":"…"}
 *   {"type":"room_close","code":"…"}        code: only the server's operator names another room
 *   {"type":"rooms"}                        the server's operator: every room
 * each with an optional "id". Like auth, they are not simulation commands:
 * they never reach a world or its command log. cmd_decode has already
 * checked the text is one strict JSON object. */
#ifndef SWARMCAST_ROOM_DECODE_H
#define SWARMCAST_ROOM_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/cmd_decode.h"
#include "protocol/presence_name.h"
#include "rooms/room_code.h"

typedef enum { ROOM_MSG_CREATE, ROOM_MSG_RENAME, ROOM_MSG_CLOSE, ROOM_MSG_LIST, ROOM_MSG_KINDS } room_msg_kind_t;
typedef enum { ROOM_FROM_DEFAULTS, ROOM_FROM_COPY, ROOM_FROM_NAMED_SCENARIO, ROOM_FROM_RUN } room_from_t;

/* The longest scenario name, and experiment folder name. */
#define ROOM_SCENARIO_NAME_BYTES 48
#define ROOM_EXPERIMENT_NAME_BYTES 64
/* A run id: 16 lowercase hexadecimal digits (run_plan.h). */
#define ROOM_RUN_ID_BYTES 16

typedef struct room_msg {
    room_msg_kind_t kind;
    int64_t request_id;  /* -1: none */
    room_from_t from;    /* create_room */
    char scenario[ROOM_SCENARIO_NAME_BYTES + 1]; /* create_room from a scenario: [a-z0-9-]+ */
    char experiment[ROOM_EXPERIMENT_NAME_BYTES + 1]; /* from a run: a folder name, [A-Za-z0-9._-]+, not "." first */
    char run[ROOM_RUN_ID_BYTES + 1];                  /* from a run: its id */
    bool has_name;
    char name[PRESENCE_NAME_BYTES]; /* create_room, room_rename: cleaned as a person's name */
    bool has_code;
    char code[ROOM_CODE_LEN + 1];   /* room_close: canonical */
} room_msg_t;

/* The message types this decoder knows, by kind (the names clients send). */
extern const char *const room_msg_names[ROOM_MSG_KINDS];

enum { ROOM_DECODED = 0, ROOM_NOT_ROOM = 1, ROOM_INVALID = -1 };

/* ROOM_DECODED (out filled), ROOM_NOT_ROOM (the message is something
 * else), or ROOM_INVALID (a room message with bad fields: err filled). */
int room_decode(const char *text, size_t len, room_msg_t *out, cmd_error_t *err);

#endif

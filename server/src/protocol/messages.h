/* messages: the JSON text messages the server sends (hello, ack, error,
 * param). Each builder returns a malloc'd NUL-terminated string (free()), or
 * NULL when out of memory. */
#ifndef SWARMCAST_MESSAGES_H
#define SWARMCAST_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/commands.h"

#define PROTOCOL_VERSION 1
#define PROTOCOL_MAX_MESSAGE_BYTES 4096

typedef struct hello_info {
    uint32_t client_id;
    double tick_hz, snapshot_hz;
    bool operator;      /* the client's role: operator, else visitor */
    bool control_token; /* whether the server has one (else everyone is an operator) */
    int protocol;       /* what this connection speaks: 1 or 2 (its sub-protocol) */
    const char *public_url; /* --public-url (hello's public_url), or NULL: the field is left out */
    const char *room;       /* the room's code ("" for the default room) … */
    const char *room_name;  /* … and name ("" when it has none) */
    const char *rooms;      /* who may make rooms: "open", "operators" or "off" */
} hello_info_t;

char *msg_hello(const hello_info_t *info, const world_info_t *w);
char *msg_ack(const sim_cmd_t *cmd, const sim_result_t *res, uint64_t tick);
/* request_id < 0 and cmd NULL are sent as null. */
char *msg_error(const char *code, const char *message, int64_t request_id, const char *cmd);
/* A parameter changed: `value` as set (species < 0: for every species),
 * and, with n_species > 1, every species' value now (species_values), so
 * that the newest message alone tells the whole truth about the parameter
 * (the server may send only the newest of several changes). */
char *msg_param(size_t index, double value, int species, uint32_t by, uint64_t tick, const double *species_values,
                int n_species);
/* The reply to auth: the role the client now has. */
char *msg_auth_ack(int64_t request_id, bool operator, uint64_t tick);
/* The answer to a ping (request_id < 0: none), into out (64 bytes do). */
void msg_pong(int64_t request_id, char *out, size_t cap);
/* The wire error code of a SIM_E_* status. */
const char *msg_error_code(int sim_status);

#endif

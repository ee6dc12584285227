/* cmd_decode: turns one client text message (JSON) into a validated sim_cmd_t,
 * or into an error naming the problem. Everything that can be checked without
 * the live world is checked here, so a refused command never reaches it. */
#ifndef SWARMCAST_CMD_DECODE_H
#define SWARMCAST_CMD_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/commands.h"

typedef struct cmd_limits {
    float width, height; /* the world: targets, obstacles and spawn points lie inside */
    size_t max_agents;
} cmd_limits_t;

typedef struct cmd_error {
    const char *code;     /* wire error code, e.g. "out_of_range" */
    char message[200];
    int64_t request_id;   /* -1 when unknown */
    const char *cmd;      /* command name, or NULL when unknown */
} cmd_error_t;

/* Fills err (code, and the message printf makes of fmt, cut if it must be
 * between characters, so it stays valid UTF-8) and returns -1. */
int cmd_refuse(cmd_error_t *err, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 0 on success (out filled), -1 on error (err filled). */
int cmd_decode(const char *text, size_t len, const cmd_limits_t *limits, uint32_t client_id,
               sim_cmd_t *out, cmd_error_t *err);

#endif

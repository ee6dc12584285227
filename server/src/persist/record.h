/* record: the command log of a live run and its reader, for replay.
 *
 * The log is JSON lines: a header (seed, population, world, tick rate,
 * limits, every parameter's initial value), then one line per command the
 * simulation applied, in order, with the world's tick at that moment:
 *
 *   {"tick":120,"cmd":{"type":"add_obstacle","id":4,"client_id":2,"x":400,"y":300,"radius":40}}
 *
 * and at shutdown {"end_tick":T}. Commands are written as the JSON a client
 * sends (plus client_id, and "visitor":true when a visitor sent it) and read
 * back through cmd_decode, so the log goes through exactly the validation the
 * network does. The one exception is the server's own command, written
 *
 *   {"tick":300,"cmd":{"type":"leave","client_id":2}}
 *
 * when a client goes, which no client may send and which is read here.
 * See protocol/PROTOCOL.md. */
#ifndef SWARMCAST_RECORD_H
#define SWARMCAST_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/cmd_decode.h"
#include "sim/commands.h"
#include "sim/params.h"

#define RECORD_FORMAT 1

typedef struct record_header {
    uint32_t seed;
    size_t agents;
    float width, height;
    double tick_hz;
    size_t max_agents;
    size_t max_targets;
    sim_params_t params; /* initial values */
} record_header_t;

typedef struct record_entry {
    bool end;       /* the {"end_tick":T} line: tick is T, cmd unused */
    uint64_t tick;  /* world tick when the command was applied */
    sim_cmd_t cmd;
} record_entry_t;

/* The command as the JSON a client would send, with "client_id" (and "id"
 * when it had one, "visitor":true when a visitor sent it), into buf.
 * Returns the length, or -1 when cap is too small or the kind is unknown.
 * 512 bytes are always enough. */
#define RECORD_CMD_MAX 512
int record_cmd_json(const sim_cmd_t *cmd, char *buf, size_t cap);

/* Each writes one line; 0, or -1 when the stream reports an error. */
int record_write_header(FILE *f, const record_header_t *h);
int record_write_cmd(FILE *f, uint64_t tick, const sim_cmd_t *cmd);
int record_write_end(FILE *f, uint64_t end_tick);

/* Reading. Each returns 0, or -1 with a reason in msg. */
int record_parse_header(const char *line, record_header_t *h, char *msg, size_t msg_len);
int record_parse_entry(const char *line, const record_header_t *h, record_entry_t *e, char *msg, size_t msg_len);

#endif

/* param_json: a parameter value given as JSON (scenario files, the record
 * header) checked exactly as a set_param command is — by building that
 * command and decoding it — so that every source of parameters gives the
 * same validation and the same messages. Internal to persist/ (uses cJSON):
 * the readers of the files (scenario, command log, state file) share it;
 * the network's messages go through protocol/cmd_decode directly. */
#ifndef SWARMCAST_PARAM_JSON_H
#define SWARMCAST_PARAM_JSON_H

#include <cJSON.h>
#include <stddef.h>

#include "protocol/cmd_decode.h"
#include "protocol/json_out.h"

/* 0 with *index and *value (numeric form), or -1 with a reason in msg. */
int param_from_json(const char *name, const cJSON *value, int *index, double *out, char *msg, size_t msg_len);

/* Appends a parameter's value (numeric form) in its wire form: true/false,
 * the enum's name, or the shortest number that reads back exactly. Marks
 * the buffer failed for an enum index out of range. */
void param_json_put(jbuf_t *b, const param_desc_t *d, double value);

/* Decodes obj (a JSON object holding a command's fields) as a command of the
 * given type through cmd_decode; "type" and "id" in obj are ignored. 0, or
 * -1 with the decoder's message in msg. */
int cmd_from_json(const char *type, const cJSON *obj, const cmd_limits_t *limits, uint32_t client_id, sim_cmd_t *out,
                  char *msg, size_t msg_len);

#endif

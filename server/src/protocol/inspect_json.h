/* inspect_json: the inspect message a viewer gets for the agent it
 * selected (protocol/PROTOCOL.md, "Presence, inspection and stepping"). */
#ifndef SWARMCAST_INSPECT_JSON_H
#define SWARMCAST_INSPECT_JSON_H

#include <stdint.h>

#include "sim/inspect.h"

/* malloc'd text (free()), or NULL when out of memory; in NULL: the agent is
 * gone ("agent": null). */
char *msg_inspect(uint64_t tick, const inspect_t *in);

#endif

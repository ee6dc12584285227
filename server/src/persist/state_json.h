/* state_json: a world's state as JSON, for --final (headless runs, replays
 * and the live server at shutdown). Byte-for-byte reproducible: the same
 * world gives the same text.
 *
 *   {"tick":T,"seed":S,
 *    "params":{"sep_radius":25,…,"border":"wrap"},
 *    "agents":[{"id":0,"x":…,"y":…,"vx":…,"vy":…,"flags":0},…],   in id order
 *    "obstacles":[{"id":0,"x":…,"y":…,"radius":…,"vx":…,"vy":…},
 *                 {"id":1,…,"vy":…,"owner":7}],     owner: only a visitor's (its client id)
 *    "targets":[{"client_id":1,"x":…,"y":…}],
 *    "predators":[{"x":…,"y":…,"vx":…,"vy":…}]}
 *
 * Floats are printed with %.9g (they read back as the same float); one
 * agent per line. */
#ifndef SWARMCAST_STATE_JSON_H
#define SWARMCAST_STATE_JSON_H

#include <stdio.h>

#include "sim/world.h"

/* 0, or -1 when out of memory or the stream reports an error. */
int state_json_write(FILE *f, const world_t *w);
/* Writes to path ("-" is stdout); 0, or -1 with a message on stderr. */
int state_json_write_file(const char *path, const world_t *w);

#endif

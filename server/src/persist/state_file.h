/* state_file: what the operator set up, kept across restarts (--state-file;
 * see "State file" in protocol/PROTOCOL.md). One JSON object:
 *
 *   {"format":"swarmcast-state","version":1,"server":"swarmcast 0.1.0",
 *    "world":{"width":1600,"height":900},"seed":1,"agents":1000,"paused":false,
 *    "params":{"model":"reynolds","species":1,"sep_radius":25,…},
 *    "species_params":{"2":{"max_speed":60}},
 *    "obstacles":[{"x":500,"y":300,"radius":60,"vx":0,"vy":0}],
 *    "agent_state":{…}}                       (only with --state-agents)
 *
 * The fields a scenario file also has (world, seed, agents, params,
 * obstacles) have its shapes and are checked the same way: each parameter
 * and each obstacle by the network's own decoder, against this world's
 * limits. "agent_state" holds the motion itself — tick, generator, every
 * agent in the world's storage order, as little-endian base64 arrays (a
 * million agents as JSON objects would take hundreds of megabytes to parse)
 * — so that a restored world steps on bit for bit as the saved one would.
 *
 * A file is read in two stages, so that nothing changes until everything
 * is known to be good: state_file_parse validates the text into a
 * state_image_t, state_image_apply puts it into the world. Saving is the
 * reverse (capture, then write), and the two halves may run on different
 * threads: capture copies what it needs out of the world. */
#ifndef SWARMCAST_STATE_FILE_H
#define SWARMCAST_STATE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/cmd_decode.h"
#include "sim/world.h"

#define STATE_FILE_FORMAT "swarmcast-state"
#define STATE_FILE_VERSION 1

enum {
    STATE_FILE_OK = 0,
    STATE_FILE_MISSING = -1,    /* no file at the path: start clean, nothing is wrong */
    STATE_FILE_INVALID = -2,    /* the content is refused (msg says why); the world is untouched */
    STATE_FILE_UNREADABLE = -3, /* the file is there but cannot be read (permissions, a directory, I/O
                                   error, too large); the world is untouched */
    STATE_FILE_NO_MEMORY = -4,  /* memory ran out while restoring: the world may be partly restored */
};

/* Everything a state file holds, out of a world or out of a file. */
typedef struct state_image {
    float width, height;
    uint32_t seed;
    size_t agents; /* the population */
    bool paused;
    sim_params_t params; /* the world's own (species 0's) */
    sim_params_t species_params[SIM_MAX_SPECIES];
    obstacle_t obstacles[SIM_MAX_OBSTACLES]; /* the operator's; ids are not kept (0, 1, … again) */
    size_t n_obstacles;

    /* The motion, when has_agents; otherwise a restore draws `agents`
     * agents from `seed`, as a reset would. */
    bool has_agents;
    uint64_t tick;
    prng_t rng;
    float gamma_x, gamma_y;
    predator_t predators[SIM_MAX_PREDATORS];
    size_t n_predators;
    agents_t list;                           /* `agents` entries, in the world's storage order */
    float *radius_ali, *radius_coh, *wander; /* by agent id; NULL when the world had none */
} state_image_t;

/* Copies a world's state (with its agents or not). 0, or -1 when out of
 * memory. Free with state_image_free. */
int state_image_capture(state_image_t *img, const world_t *w, bool with_agents);
void state_image_free(state_image_t *img);

/* The image as the file's text. 0, or -1 when the stream reports an error. */
int state_image_print(FILE *f, const state_image_t *img);

/* Writes the image to path atomically: into path + ".tmp" in the same
 * directory, flushed and fsynced, then renamed over path (and the directory
 * synced), so that a crash at any moment leaves either the old file or the
 * new one at path, never a part. 0, or -1 with a message. */
int state_image_write(const state_image_t *img, const char *path, char *msg, size_t msg_len);

/* Validates text (len bytes, no NUL needed) as a state file for a world
 * with these limits (its size must match exactly; the population may not
 * pass max_agents). STATE_FILE_OK with img filled (free it), or
 * STATE_FILE_INVALID / STATE_FILE_NO_MEMORY with a message naming the
 * problem and nothing to free. */
int state_file_parse(const char *text, size_t len, const cmd_limits_t *limits, state_image_t *img, char *msg,
                     size_t msg_len);

/* Puts a parsed (or captured) image into the world, through the world's
 * validated setters: parameters, population, agents, obstacles, pause.
 * Targets stay as they are (they belong to connected clients). The world
 * must have the image's size. STATE_FILE_OK, or STATE_FILE_NO_MEMORY. */
int state_image_apply(const state_image_t *img, world_t *w, char *msg, size_t msg_len);

/* capture + write. */
int state_file_save(const char *path, const world_t *w, bool with_agents, char *msg, size_t msg_len);

/* Reads, validates, then applies: STATE_FILE_OK, or one of the codes above
 * with a message. Only OK and NO_MEMORY change the world. */
int state_file_load(const char *path, world_t *w, char *msg, size_t msg_len);

/* Moves a refused file out of the way, to path + ".bad-YYYYmmdd-HHMMSS"
 * (UTC; "-2", "-3", … appended when that name is taken: an earlier bad file
 * is never overwritten), so that the operator can look at it. 0 with the
 * new name in moved_to, or -1 (errno set). */
int state_file_set_aside(const char *path, char *moved_to, size_t len);

#endif

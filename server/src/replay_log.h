/* replay_log: a --record log re-run into a world, line by line: the world
 * its header describes, then each command applied at its tick, the world
 * stepped in between, exactly as the live server did. Shared by
 * `--headless --replay` (headless.c, which steps with its CSV rows) and a
 * served `--replay` (the default room's past, app/room.c), so that the two
 * are the same run.
 *
 * A log is refused at the first line that is not right, with the file, the
 * line and the reason on stderr: a header that is not one, a line that does
 * not parse as a command (the network's own decoder reads it), a tick
 * before the world's, text after the end line. */
#ifndef SWARMCAST_REPLAY_LOG_H
#define SWARMCAST_REPLAY_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "persist/record.h"
#include "sim/world.h"

typedef struct replay_hooks {
    /* The world is built from the header (tick 0, before any command). 0, or an exit code. */
    int (*ready)(void *user, world_t *w);
    /* Steps the world once (headless: and its CSV rows). 0, or an exit code. */
    int (*step)(void *user, world_t *w);
    /* After each command is applied at tick (the world's tick before it); may be NULL. */
    void (*applied)(void *user, uint64_t tick, const sim_cmd_t *cmd, const world_t *w);
    void *user;
} replay_hooks_t;

typedef struct replay_result {
    uint64_t commands, refused; /* applied, and of those refused by the world (as they were live) */
    bool ended;                 /* the log has its {"end_tick":T} line … */
    uint64_t end_tick;          /* … T */
} replay_result_t;

enum { REPLAY_OK = 0, REPLAY_E_IO = 1, REPLAY_E_USAGE = 2 }; /* the process's exit codes */

/* Runs the log at path into w (world_init'd here with `threads`; *have_world
 * says whether w must be freed). REPLAY_OK, or REPLAY_E_USAGE (a log that
 * cannot be read or is refused) / REPLAY_E_IO / a hook's code, with the
 * reason printed. */
int replay_log_run(const char *path, int threads, world_t *w, bool *have_world, const replay_hooks_t *hooks,
                   replay_result_t *out);

#endif

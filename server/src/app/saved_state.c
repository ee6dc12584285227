/* saved_state: a room's saved set-up (--state-file for the default room,
 * --state-dir for every room: room_store.c), the operator's set-up kept
 * across restarts (the file's format is persist/state_file.c): restored
 * before the first tick, captured by the simulation thread every
 * --state-every seconds, written on libuv's thread pool (the disk never
 * holds up a tick or the loop), and written a last time at shutdown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "sim/params.h"

/* --state-file at start: the operator's set-up back, or a clean start (a
 * bad file is moved aside for the operator to look at, never lost). */
int restore_state(room_t *r)
{
    const char *path = r->state_path;
    char msg[256], moved[4096 + 64];
    int rc = state_file_load(path, &r->world, msg, sizeof msg);
    switch (rc) {
    case STATE_FILE_OK:
        if (r->record_path)
            fprintf(stderr, "swarmcast: warning: --record's log starts from a fresh world; with a restored state file "
                            "(obstacles, agents) its replay will differ from this run\n");
        fprintf(stderr, "swarmcast: restored the set-up from %s (model %s, %zu agents, %zu obstacles%s)\n", path,
                params_desc((size_t)params_find("model"))->enum_names[r->world.params.model], r->world.n,
                r->world.n_obstacles, r->world.paused ? ", paused" : "");
        return 0;
    case STATE_FILE_MISSING:
        fprintf(stderr, "swarmcast: no state file at %s yet: starting clean; the set-up will be kept there\n", path);
        return 0;
    case STATE_FILE_NO_MEMORY:
        fprintf(stderr, "swarmcast: out of memory restoring %s: %s\n", path, msg);
        return -1;
    case STATE_FILE_UNREADABLE:
        fprintf(stderr, "swarmcast: state file %s; left where it is; starting clean\n", msg);
        return 0;
    default:
        fprintf(stderr, "swarmcast: state file %s\n", msg);
        if (state_file_set_aside(path, moved, sizeof moved) == 0)
            fprintf(stderr, "swarmcast: kept the bad state file as %s; starting clean\n", moved);
        else
            fprintf(stderr, "swarmcast: cannot move the bad state file aside (%s); starting clean\n", strerror(errno));
        return 0;
    }
}

/* Every --state-every seconds: a copy of the set-up, for the loop to write
 * on its thread pool (the disk never holds up a tick). Skipped while the
 * previous copy is still being written. */
void capture_state(room_t *r, uint64_t now)
{
    if (!r->state_path || now < r->state_due_ns) return;
    r->state_due_ns = now + (uint64_t)(r->cfg->state_every_s * 1e9);
    pthread_mutex_lock(&r->lock);
    bool busy = r->state_in_flight;
    pthread_mutex_unlock(&r->lock);
    if (busy) return;
    state_image_t *img = calloc(1, sizeof *img);
    if (!img || state_image_capture(img, &r->world, r->cfg->state_agents)) {
        fprintf(stderr, "swarmcast: out of memory for a copy of the state; not written this time\n");
        free(img);
        return;
    }
    pthread_mutex_lock(&r->lock);
    r->state_captured = img;
    r->state_in_flight = true;
    pthread_mutex_unlock(&r->lock);
    uv_async_send(&r->wake_loop);
}

/* Writes an image to --state-file (any thread); 0 or -1, logged. Once the
 * final one (at shutdown) is written, a periodic one still queued on the
 * thread pool is older and is dropped. */
static int write_state(room_t *r, const state_image_t *img, bool final)
{
    char msg[256];
    int rc = 0;
    pthread_mutex_lock(&r->state_write_lock);
    if (!r->state_final_written) rc = state_image_write(img, r->state_path, msg, sizeof msg);
    r->state_final_written |= final;
    pthread_mutex_unlock(&r->state_write_lock);
    if (rc) fprintf(stderr, "swarmcast: cannot write the state file: %s\n", msg);
    return rc;
}

static void state_work(uv_work_t *req)
{
    room_t *r = req->data;
    r->state_rc = write_state(r, r->state_writing, false);
}

static void state_work_done(uv_work_t *req, int status)
{
    room_t *r = req->data;
    if (status == 0 && r->state_rc == 0)
        r->app->loop_counters.state_writes++;
    else
        r->app->loop_counters.state_write_failures++;
    state_image_free(r->state_writing);
    free(r->state_writing);
    r->state_writing = NULL;
    pthread_mutex_lock(&r->lock);
    r->state_in_flight = false;
    pthread_mutex_unlock(&r->lock);
}

/* A capture the simulation handed over (on_wake, loop thread): written on
 * the thread pool; state_work_done counts it and allows the next capture. */
void state_write_queue(room_t *r, state_image_t *captured)
{
    r->state_writing = captured;
    r->state_work.data = r;
    if (uv_queue_work(r->app->loop, &r->state_work, state_work, state_work_done)) state_work_done(&r->state_work, -1);
}

/* At shutdown, the world still: the set-up as it ends, after any periodic
 * write still in flight (write_state waits for it). */
void write_final_state(room_t *r)
{
    state_image_t img;
    if (state_image_capture(&img, &r->world, r->cfg->state_agents) || write_state(r, &img, true)) r->failed = true;
    state_image_free(&img);
}

/* scrubbers: a room's seats for viewers who look at the past, each with a
 * thread of its own that rebuilds the world at the asked tick from the
 * room's history (history.h) and encodes that viewer's view of it as a v2
 * key frame, in the live stream's format and precision (wire2.h).
 *
 * Bounds: a room has at most `seats` seats, and the server counts the seats
 * in use across its rooms against the same number (a shared counter): the
 * next viewer is refused (scrubbers_acquire: -1) and told to try again.
 * Newest wins: a seat works on its viewer's newest request only, so a flood
 * of seeks costs at most one rebuild at a time per seat. A seat's thread
 * runs at a lower priority (nice) than the room's simulation thread: the
 * live tick does not wait for it.
 *
 * The loop thread asks (scrubbers_acquire, scrubbers_request, scrubbers_release)
 * and takes frames (scrubbers_take); a seat's thread calls notify(user)
 * when a frame (or an end) is ready. */
#ifndef SWARMCAST_TIMELINE_SCRUBBERS_H
#define SWARMCAST_TIMELINE_SCRUBBERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "sim/world.h"
#include "stream/shared_buf.h"
#include "timeline/history.h"

typedef struct scrubbers scrubbers_t;

typedef struct scrubbers_config {
    world_config_t world;    /* the room's world, for each seat's copy; its threads: a rebuild's (the result is the same for any count) */
    double tick_hz;          /* ticks per second of the live world */
    double frame_hz;         /* frames per second while playing */
    size_t seats;            /* seats in this room, and in all rooms together */
    atomic_size_t *in_use;   /* the server's count of seats in use (shared by its rooms) */
    size_t headroom;         /* bytes before each frame for the WebSocket header */
    void (*notify)(void *user);
    void *user;
} scrubbers_config_t;

/* What a viewer asks of its seat. */
typedef struct scrub_request {
    double position;  /* the tick to show (playing: the tick to start from) */
    double speed;     /* playing: ticks of the past per tick of wall time (negative: backwards) */
    bool playing;
    wire2_rect_t rect; /* the viewer's view */
    wire2_mode_t mode;
} scrub_request_t;

/* What a seat produced, for the loop. */
typedef struct scrub_output {
    shared_buf_t *frame; /* a new frame (the caller owns this reference), or NULL */
    uint64_t tick;       /* the tick of the newest frame */
    bool reached_live;   /* playing forward reached the newest tick: the viewer goes back to live */
    bool stopped_at_start; /* playing backward reached the window's start: paused there */
    int error;           /* a HISTORY_* code of a rebuild that failed (the window moved past it), or 0 */
} scrub_output_t;

scrubbers_t *scrubbers_create(history_t *history, const scrubbers_config_t *cfg);
/* Stops and joins every seat's thread (a rebuild in progress is abandoned
 * at its next step). */
void scrubbers_destroy(scrubbers_t *s);

/* Loop thread. A seat for the client in slot (the one it has, or a free
 * one): its index, or -1 when every seat of the room or the server is taken. */
int scrubbers_acquire(scrubbers_t *s, size_t slot, uint32_t client_id);
/* The seat the client holds, or -1. */
int scrubbers_seat_of(scrubbers_t *s, size_t slot, uint32_t client_id);
/* The seat's newest request (replaces any not yet served). */
void scrubbers_request(scrubbers_t *s, int seat, const scrub_request_t *req);
/* The seat's current request, with position the tick last shown (for
 * pause, step and speed, which start from what the viewer sees). */
scrub_request_t scrubbers_current(scrubbers_t *s, int seat);
/* Frees the seat. */
void scrubbers_release(scrubbers_t *s, int seat);
/* What the seat produced since the last call. */
void scrubbers_take(scrubbers_t *s, int seat, scrub_output_t *out);
/* The slot and client of a seat in use (false when free). */
bool scrubbers_holder(scrubbers_t *s, int seat, size_t *slot, uint32_t *client_id);
size_t scrubbers_count(const scrubbers_t *s);

/* The newest rebuild's cost on a seat's thread, and where the time of the
 * requests went (sums over every request served, for /metrics and
 * benchmarks: a seek's latency is wait + restore + steps + encode on the
 * server, then the loop's hand-over and the network). */
typedef struct scrubbers_stats {
    uint64_t frames, rebuilds, restores;
    double rebuild_seconds_last, rebuild_seconds_max;
    uint64_t requests_served;  /* fresh requests taken by a seat's thread */
    double wait_seconds;       /* from the request to its seat's thread taking it */
    double restore_seconds;    /* restoring keyframes */
    double step_seconds;       /* re-applying commands and re-stepping */
    uint64_t steps;            /* steps re-taken */
    double encode_seconds;     /* the view's frame */
} scrubbers_stats_t;
void scrubbers_get_stats(scrubbers_t *s, scrubbers_stats_t *out);

#endif

/* history: a room's kept past, for the timeline. Keyframes (exact world
 * images, sim/world_image.h) every keyframe_ticks, plus every command the
 * simulation applied since the oldest of them, each with the tick it was
 * applied at and a sequence number. The world at any place T of the window
 * is the newest keyframe at or before T, then the logged commands re-applied
 * and steps re-taken up to T, exactly as --replay does it: the simulation is
 * deterministic, so that is the world that was.
 *
 * Places: the timeline counts steps. It is the world's tick until a reset
 * sets that tick back to 0; the timeline goes on: a reset applied at place
 * P leaves the new world's tick 0 at P (as one of P's commands) and its
 * tick k at P + k. So the past spans resets (a reset is re-applied like any
 * command), and a place names one moment. base: the place of the present
 * world's tick 0 (0 until a reset).
 *
 * "The world at place T" is the one a live snapshot of T showed: after the
 * step that reached T, before the commands applied at T. A paused world
 * stays at one place while commands apply: the past at that place is the
 * world as the pause found it (before any of them; after the pause command
 * itself only when it was applied at an earlier place); what they did is
 * seen from the next place on (after a step or a resume).
 *
 * Bounds: the window (window_ticks behind the newest place) and a memory
 * budget (max_bytes, and the server's over all rooms, shared_max): the
 * oldest keyframe goes, with the commands before the next one, when any is
 * passed; at least one keyframe is always kept.
 *
 * Threads: the simulation thread writes (history_started, history_stepped,
 * history_applied); scrubbing threads read (history_window, history_plan).
 * They meet under the history's own mutex, held only to link or unlink a
 * keyframe and to copy a span of commands: a keyframe is captured outside
 * it, and read outside it by reference (refcounted), so that a scrubber
 * never holds the simulation up for longer than that copy. */
#ifndef SWARMCAST_TIMELINE_HISTORY_H
#define SWARMCAST_TIMELINE_HISTORY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/commands.h"
#include "sim/world.h"
#include "sim/world_image.h"

typedef struct history history_t;

typedef struct history_limits {
    uint64_t keyframe_ticks; /* a keyframe every this many ticks (≥ 1) */
    uint64_t window_ticks;   /* the past kept behind the newest tick */
    size_t max_bytes;        /* keyframes + commands; at least one keyframe is kept whatever its size */
    /* The server's budget over every room's past: the bytes of all the
     * histories that share the counter (NULL: none), and their cap. A
     * history over it gives up its oldest keyframes, as over its own. */
    atomic_size_t *shared_bytes;
    size_t shared_max;
} history_limits_t;

/* One applied command, as the command log has it. */
typedef struct history_cmd {
    uint64_t seq;  /* 0, 1, 2, … in the order applied */
    uint64_t tick; /* the world's tick when it was applied */
    uint64_t pos;  /* its place on the timeline */
    sim_cmd_t cmd;
} history_cmd_t;

typedef struct keyframe keyframe_t;

/* The world at some place: restore it from `from` (NULL: the caller's world
 * already holds the state up to have_seq and have_pos, and advances
 * instead), then apply cmds in order, stepping while the place is before
 * each one's, and step on to the target. */
typedef struct history_plan {
    keyframe_t *from;   /* a reference: history_plan_done releases it */
    history_cmd_t *cmds; /* the caller's buffer, grown as needed */
    size_t n_cmds, cmds_cap;
    uint64_t start;     /* the place the plan starts from (the keyframe's, or the caller's) */
    uint64_t target;
    uint64_t epoch;     /* the world the plan belongs to (+1 per reset) */
    uint64_t next_seq;  /* the seq after the last command of the plan */
} history_plan_t;

typedef struct history_stats {
    uint64_t from, to;      /* the window: oldest keyframe's place, newest place */
    uint64_t base;          /* the place of the present world's tick 0 */
    uint64_t epoch;
    size_t keyframes, commands;
    size_t bytes;
    uint64_t keyframes_taken, keyframes_evicted, capture_failures;
} history_stats_t;

enum {
    HISTORY_OK = 0,
    HISTORY_BEFORE = -1, /* the tick is older than the window */
    HISTORY_AFTER = -2,  /* the tick is newer than the newest */
    HISTORY_EMPTY = -3,  /* nothing kept yet */
    HISTORY_NO_MEMORY = -4,
};

history_t *history_create(const history_limits_t *limits);
void history_destroy(history_t *h);

/* Simulation thread. The world as it starts (or was reset): the past starts
 * again with a keyframe of it. */
void history_started(history_t *h, const world_t *w);
/* After a step: the newest tick, and a keyframe when one is due. */
void history_stepped(history_t *h, const world_t *w);
/* After sim_apply of cmd at tick `tick` (the world's tick before it), which
 * left the world w: logged; after a reset (w's tick went back) the
 * timeline goes on from the reset's place. */
void history_applied(history_t *h, uint64_t tick, const sim_cmd_t *cmd, const world_t *w);

/* Any thread. */
void history_get_stats(history_t *h, history_stats_t *out);
/* The place of the present world's tick `tick` (base + tick). */
uint64_t history_place_of(history_t *h, uint64_t tick);

/* The plan for the world at place target (any thread). A caller whose
 * world is of epoch have_epoch at place have_pos with commands applied up
 * to have_seq (the plan's next_seq of its last plan) passes them, and gets
 * a plan without a keyframe when advancing its world is no dearer than
 * restoring; have_pos UINT64_MAX: no world. HISTORY_OK, or one of the codes
 * above. */
int history_plan(history_t *h, uint64_t target, uint64_t have_epoch, uint64_t have_pos, uint64_t have_seq,
                 history_plan_t *plan);
/* Releases the plan's keyframe reference (the command buffer is kept for the next plan). */
void history_plan_done(history_plan_t *plan);
/* Frees the plan's buffer too. */
void history_plan_free(history_plan_t *plan);

/* Carries out a plan on w: 0, or -1 when out of memory or *cancel became
 * true (checked before each step; NULL: never). After -1, w is not the
 * world of the plan. */
int history_run_plan(const history_plan_t *plan, world_t *w, const atomic_bool *cancel);

/* The image of a keyframe (its tick is the world's; its place is the plan's start). */
const world_image_t *keyframe_image(const keyframe_t *k);

#endif

/* timeline_messages: what the server answers a viewer's timeline message
 * with (protocol/PROTOCOL.md, "Timeline"): where the viewer is on the
 * timeline and the ticks kept, or why it was refused. */
#ifndef SWARMCAST_TIMELINE_MESSAGES_H
#define SWARMCAST_TIMELINE_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct timeline_state {
    const char *op;   /* the request answered ("seek", …), or NULL for news of the server's (the playback ended) */
    int64_t request_id; /* -1: none */
    const char *mode; /* "live", "paused" or "playing" */
    uint64_t tick;    /* what is shown (live: the newest tick) */
    double speed;
    uint64_t from, to; /* the window: the oldest and newest ticks kept */
    uint64_t base;     /* the tick on the timeline of the live world's tick 0 (0 until a reset) */
    uint64_t keyframe_ticks;
    const char *why;  /* the mode changed by itself: "reached_live", "reached_start"; or NULL */
} timeline_state_t;

/* {"type":"timeline",…}: malloc'd, or NULL when out of memory. */
char *msg_timeline(const timeline_state_t *s);

/* {"type":"error","cmd":"timeline","code":…,"message":…,"from":F,"to":T}
 * with "retry_after_ms" when it is not negative. message: ASCII text of the
 * server's own. */
char *msg_timeline_error(const char *code, const char *message, int64_t request_id, uint64_t from, uint64_t to,
                         int64_t retry_after_ms);

#endif

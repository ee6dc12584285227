/* room: one world and everything that belongs to it. Its model,
 * parameters, agents, obstacles and targets (the world); its people
 * (presence, selections); its stream (views, viewers, encoder, composer);
 * its metrics, command log and saved state; and its own simulation thread,
 * which steps it at the fixed rate. Nothing in one room reaches another:
 * they share only the server (app_internal.h: the network, the per-slot
 * budgets, the population budget).
 *
 * Two threads share a room's state, as they shared the whole app's before
 * rooms (app_internal.h has the picture): the loop thread queues commands
 * and sends what the room produced; the room's simulation thread applies,
 * steps, and hands back replies, a summary and snapshot copies. They meet
 * under the room's own lock. Only app_internal.h includes this file. */
#ifndef SWARMCAST_APP_ROOM_H
#define SWARMCAST_APP_ROOM_H

#include "rooms/room_code.h"
#include "timeline/metrics_past.h"

struct room {
    app_t *app;
    const config_t *cfg; /* the server's (&app->cfg) */
    size_t index;        /* its place in app->rooms, and its channel in net */
    char code[ROOM_CODE_LEN + 1];     /* "" for the default room */
    char name[PRESENCE_NAME_BYTES];   /* "" until someone names it (a person's name's rules) */
    char token[ROOM_TOKEN_BYTES + 1]; /* its operators' token; "" for the default room */
    cmd_limits_t limits;
    uv_async_t wake_loop;
    bool handles_open; /* wake_loop (and the encoder) are on the loop: close them before freeing */

    /* Loop thread only. */
    presence_t *presence;
    encoder_t *encoder;
    views_t *views;         /* the distinct views being encoded */
    viewers_t *viewers;     /* which view each v2 client watches */
    compose_t *compose;     /* v2 frames, per client, from the newest bundle */
    bundle_t *current;      /* the newest bundle (its census feeds the viewers) */
    shared_buf_t *v1_frame; /* the v1 frame net is sending (kept until the next one) */
    size_t people;          /* sessions in the room (local and remote) */
    uint64_t empty_since_ns; /* when the last one left (0 while someone is here) */
    bool closing;           /* closed: its people are being sent away, then it is freed */
    /* --nats: the subjects of its stream (under P for the default room,
     * P.r.<CODE> for the others: subjects.h), and the relays that lease
     * views in it (relay_leases.h; NULL until one does, the default
     * room's from bridge_start). A room no relay leases publishes nothing. */
    char subject_frame[SUBJECT_MAX], subject_news[SUBJECT_MAX], stream_prefix[SUBJECT_MAX];
    relay_leases_t *leases;
    room_t *next_closed;    /* in app->closed_rooms, waiting to be freed */
    /* --state-file for the default room; --state-dir/CODE.state for the others. */
    const char *state_path;
    char *state_path_owned;
    uv_work_t state_work;
    state_image_t *state_writing;
    int state_rc; /* of the last write: set on the pool, read on the loop after it */
    pthread_mutex_t state_write_lock;
    bool state_final_written; /* under state_write_lock */

    /* Owned by the simulation thread once it runs. */
    world_t world;
    pthread_t sim_thread;
    bool sim_started;
    queued_t *taken;      /* commands being applied this tick … */
    size_t taken_cap;     /* … room for this many (it grows with the queue) */
    departures_t leaving; /* departures being applied this tick */
    replies_t produced;
    uint64_t period_ns, started_ns, last_tick_ns;
    double snapshot_credit; /* accumulates snapshot_hz per tick; one frame per tick_hz */
    uint64_t last_overrun_log_ns;
    sim_counters_t counters;
    metrics_state_t metrics;
    double metrics_credit; /* as snapshot_credit, for metrics messages */
    double inspect_credit; /* as snapshot_credit, for inspect messages */
    selection_t *inspecting; /* the sim thread's copy of the selections */
    uint64_t metrics_not_before_ns;
    uint64_t state_due_ns; /* next periodic capture of the saved state */
    size_t agents_held;    /* of the shared population budget (app->agents_held) */
    const char *record_path; /* --record (the default room only) */
    FILE *record;          /* --record, or NULL (also after a write error) */
    char *record_buf;
    uint64_t record_flushed_ns;
    bool record_full;      /* stopped at --record-max-bytes */
    bool failed;           /* an output (record, final state) could not be written */

    /* Shared, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t stop_cond;
    bool stop;
    bool resting; /* nobody has watched for --room-idle-stop: no ticks until someone comes */
    queued_t *queue; /* ring of q_cap places, grown (doubled) up to q_cap_max as people queue more: a
                        room's bound is every client's share, but an idle room holds a few kB */
    departures_t departed;
    size_t q_head, q_len, q_cap, q_cap_max;
    uint32_t *slot_client; /* client id in each slot, 0 when free */
    selection_t *selections; /* per slot */
    size_t n_selections;     /* slots with a selection */
    uint16_t *pending;     /* per slot: commands waiting, whichever client of the slot sent them (so
                              that the slot's next client cannot add 32 more and overflow the queue) */
    replies_t outgoing;
    state_image_t *state_captured; /* the simulation's copy of the set-up, for the loop to write */
    bool state_in_flight;          /* captured or being written: no new capture until done */
    summary_t summary;

    /* The timeline (timeline/, PROTOCOL.md "Timeline"); NULL with
     * --history-minutes 0. The history is written by the simulation thread
     * and read by the seats' threads under its own lock; the seats are the
     * loop's to hand out. */
    history_t *history;
    scrubbers_t *scrubbers;
    uint32_t share_id; /* loop only: the number of the newest share, for relays (S.shared: relay_timeline.c) */
    int *slot_seat;            /* per slot, loop only: the seat its client holds, or -1 (it watches live) */
    shared_buf_t **scrub_next; /* per seat, loop only: a frame of the past waiting for net … */
    shared_buf_t **scrub_sent; /* … and the one net is writing */
    int shared_seat;           /* loop only: the seat an operator shares with everyone watching live, or -1 */
    bool *following;           /* per slot, loop only: its viewer follows the shared seat */
    shared_buf_t *shared_frame; /* loop only: the shared seat's newest frame … */
    uint64_t shared_seq;       /* … its number, and per slot the number each follower was sent: */
    uint64_t *shared_sent;
    bool *share_untold;        /* per slot, loop only: joined during a share, not yet told it follows it */
    uint64_t base_told;        /* loop only: the history's base the live viewers were last told (a reset moves it) */
    bool replaying; /* a served --replay: the recording's end, paused, its whole run the past; no commands */
    metrics_past_t *metrics_past; /* the metrics computed, by tick (past_metrics.c), or NULL */
    struct past_metrics_sent {
        uint32_t client_id; /* per seat: the viewer last sent the metrics of a past tick (0: none) … */
        uint64_t tick;      /* … and that row's tick */
    } *past_metrics_sent;
    bool whole_run; /* a run of a sweep stepped into the past (room.c, sim_thread.c): the whole run on
                       the timeline, paused at its end; commands as in any room once it is there */
    uint64_t run_ahead_to; /* sim thread: the run's last tick while it is still being stepped, else 0 */
};

/* How a new room's world is made (room_create). */
typedef enum { ROOM_FROM_FLAGS, ROOM_FROM_SCENARIO, ROOM_FROM_WORLD, ROOM_FROM_STATE, ROOM_FROM_REPLAY } room_source_t;

typedef struct room_setup {
    room_source_t from;
    const summary_t *copy;     /* ROOM_FROM_WORLD: the parameters, seed and population to copy */
    const char *scenario_path; /* ROOM_FROM_SCENARIO */
    bool whole_run;            /* ROOM_FROM_SCENARIO: step the scenario's run (its steps) into the
                                  room's past (on its thread, sim_thread.c), and pause there */
} room_setup_t;

/* A room in place index of app->rooms, its world built as setup says, its
 * simulation thread not yet started; NULL (msg says why) on failure. */
room_t *room_create(app_t *a, size_t index, const room_setup_t *setup, char *msg, size_t msg_len);
/* Starts its simulation thread; -1 when it cannot. */
int room_start(room_t *r);
/* Stops its simulation thread (and waits for it): the world is still after. */
void room_stop(room_t *r);
/* Stops the encoder and closes the room's loop handles; room_free follows
 * once the loop has run (the handles' close callbacks). */
void room_close_handles(room_t *r);
void room_free(room_t *r);

/* Rests (stops stepping) or wakes the room: the simulation thread skips its
 * ticks while resting, and so costs nothing. */
void room_set_resting(room_t *r, bool resting);

/* The room a session is in, by slot; NULL for a free slot. */
static inline room_t *room_of_slot(const app_t *a, size_t slot) { return slot < a->n_slots ? a->slot_room[slot] : NULL; }

#endif

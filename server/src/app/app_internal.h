/* app_internal: what the parts of the simulation host (server/src/app/)
 * share: the app's one struct, the two threads' meeting point (the command
 * queue, the replies, the summary, under one lock), the keys replies are
 * routed by, and each part's functions that another part calls. Only the
 * files of server/src/app/ include it; everything else sees app.h. */
#ifndef SWARMCAST_APP_INTERNAL_H
#define SWARMCAST_APP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <uv.h>

#include "app.h"
#include "bridge/bridge_msg.h"
#include "bridge/lease_json.h"
#include "bridge/nats_link.h"
#include "bridge/relay_leases.h"
#include "bridge/remote_clients.h"
#include "bridge/subjects.h"
#include "people/client_policy.h"
#include "config.h"
#include "net/net.h"
#include "ops_metrics.h"
#include "people/presence.h"
#include "protocol/cmd_decode.h"
#include "protocol/timeline_messages.h"
#include "protocol/room_decode.h"
#include "protocol/room_messages.h"
#include "persist/state_file.h"
#include "sim/commands.h"
#include "sim/metrics.h"
#include "sim/world.h"
#include "stream/bundle.h"
#include "stream/compose.h"
#include "stream/encoder.h"
#include "stream/shared_buf.h"
#include "stream/viewers.h"
#include "stream/views.h"
#include "protocol/timeline_decode.h"
#include "timeline/history.h"
#include "timeline/metrics_past.h"
#include "timeline/scrubbers.h"

/* Two threads share this state:
 *
 *  - the loop thread runs libuv and libwebsockets: it decodes commands,
 *    queues them, and sends what the simulation produced;
 *  - the simulation thread owns the world: at a fixed rate it takes the
 *    queued commands, applies them, steps (with the world's worker threads),
 *    and every snapshot period copies the world for the encoder;
 *  - the encoder worker (stream/encoder.c) quantizes that copy and encodes
 *    every distinct view once; the loop thread composes each v2 client's
 *    frame from those chunks (stream/compose.c) when the client can write.
 *
 * They meet under one mutex, briefly: commands go in; replies, a frame and a
 * summary of the world come out, announced with uv_async_send. A long step
 * therefore never stalls the network, and the network never stalls a step. */

/* A client may have this many commands waiting for the next tick; more are
 * refused (rate_limited), which bounds the queue whatever clients send. */
#define PENDING_PER_CLIENT 32
/* The command queue's share per remote slot (relays' viewers, --nats): the
 * per-client bound stays PENDING_PER_CLIENT, but thousands of remote slots
 * do not each reserve 32 places (a full queue refuses with rate_limited). */
#define PENDING_PER_REMOTE_SLOT 2

/* A relay's viewer's view, as its relay told it for the timeline (SCRUB_VIEW). */
typedef struct remote_view {
    bool known;
    wire2_mode_t mode;
    wire2_rect_t rect;
} remote_view_t;

typedef struct queued {
    sim_cmd_t cmd;
    size_t slot; /* the sender's */
} queued_t;

/* Client ids that left since the last tick: each is applied as CMD_LEAVE
 * (its target and own obstacles go). Kept apart from the command queue,
 * whose places clients coming and going in one slot within a tick could use
 * up, so that no departure is ever lost; it grows only with the departures
 * of one tick. */
typedef struct departures {
    uint32_t *ids;
    size_t len, cap;
} departures_t;

/* A message for one client (its replies), or news for everyone under a
 * key: net sends each client only the newest text of a key. */
typedef struct reply {
    uint32_t to; /* client id, when key < 0 … */
    size_t slot; /* … and its slot */
    int key;     /* LATEST_* */
    char *text;
} reply_t;

/* The keys of news: the metrics, and one per parameter (its message
 * carries every species' value, so the newest alone is the truth). */
#define LATEST_NONE (-1)
#define LATEST_METRICS 0
#define LATEST_PARAM(index) (1 + (int)(index))
/* Presence keys, far above the parameters' (and what views may add). */
#define LATEST_PRESENCE 500
#define LATEST_CURSORS 501
#define LATEST_ACTIVITY 502
#define LATEST_ROOM 503 /* the room's name, after a rename */
/* Not net keys: replies the loop routes itself. An activity event ("set
 * separation weight to 2.5", to = who did it) goes into the feed with the
 * doer's name, which only the loop thread knows; an inspect message goes
 * to its client only while that client's outbox is not backing up. */
#define ROUTE_ACTIVITY (-2)
#define ROUTE_INSPECT (-3)

/* A client's selected agent (inspect), shared: the loop sets it, the
 * simulation looks the agent up and reports on it. */
typedef struct selection {
    uint32_t client; /* 0: nothing selected in this slot */
    bool pick;       /* a point to pick the nearest agent at, not yet resolved */
    float x, y;
    bool have_agent;
    uint32_t agent_id;
    size_t slot; /* in the simulation's copy: the slot it came from */
} selection_t;

/* Inspections run at about this rate per selection. */
#define INSPECT_HZ 10.0
/* … and are skipped for a client with this many messages still unsent. */
#define INSPECT_MAX_BACKLOG 8

typedef struct replies {
    reply_t *items;
    size_t len, cap;
} replies_t;

/* What the loop thread may know of the world without touching it. */
typedef struct summary {
    world_info_t info;
    uint64_t tick;
    size_t agents;
    uint32_t seed;
    bool paused;
    uint64_t last_tick_ns; /* when the loop last ran a tick (paused or not) */
    double ticks_per_s;    /* ticks in the last whole second it stepped … */
    double slowest_second; /* … and in the slowest such second so far (0: none yet) */
    sim_counters_t counters;
} summary_t;

/* A room: one whole world and everything that belongs to it (room.h). */
typedef struct room room_t;

/* The server: what all rooms share. The network, the per-slot budgets,
 * the rooms and who may make them, the population budget they share, the
 * NATS link to the relays and the counters of the loop thread. */
struct app {
    uv_loop_t *loop;
    config_t cfg;
    net_t *net;
    /* Loop thread only. */
    client_policy_t *policy; /* per slot: the session's budget and role */
    loop_counters_t loop_counters;
    uv_timer_t cursor_timer; /* presence news and cursors, at most INSPECT_HZ times a second */
    uint64_t started_ns;

    /* The rooms (rooms.c). rooms[0] is the default room, `home`, the world
     * at / that the server had before rooms; the others are made by people
     * and found by code. n_rooms_max = --max-rooms + 1 places; a closed
     * room's place (and its net channel) is reused. Loop thread. */
    room_t **rooms;
    size_t n_rooms_max, n_rooms;
    room_t *home;
    room_t *closed_rooms;      /* closed, their handles closing: freed by rooms_free_timer (or rooms_timer) */
    struct kept_room *kept;    /* rooms kept in --state-dir, closed now: they reopen by code (room_store.c) */
    size_t n_kept;
    room_t **slot_room;        /* per slot: the room its session is in (NULL: free) */
    struct room_guard *guard;  /* per address: wrong codes, rooms made */
    uv_timer_t rooms_timer;    /* idle rooms stop stepping, then close */
    uv_timer_t rooms_free_timer; /* frees closed rooms at the next turn of the loop */
    uint64_t rooms_created, rooms_closed, room_codes_wrong, room_codes_throttled;
    /* The population budget all rooms share: agents held (each room's
     * simulation thread takes and gives back) against max_agents. */
    _Atomic size_t agents_held;
    /* The timeline's seats in use, across rooms, against --timeline-seats. */
    atomic_size_t timeline_seats_used;
    /* The bytes of every room's past, against --history-total-mb. */
    atomic_size_t timeline_bytes;

    /* The scaled set-up (--nats; NULL without it), for every room: each
     * room has its own subjects and relays' leases (room.h); a relay's
     * lease of the default room is its heartbeat and holds its tag.
     * Slots [0, max_clients) are net's, [max_clients, n_slots) the relays'
     * viewers' (remote slots), in whichever room they joined; every message
     * to a client goes through client_send / client_close / client_backlog,
     * which route by slot. */
    size_t n_slots;
    nats_link_t *nats;
    remote_clients_t *remote;
    uv_timer_t lease_timer; /* expires relays that stopped renewing */
    uint64_t bridge_refused; /* envelopes dropped: malformed, unknown relay, no free slot */
    /* Census of a relay's viewers (census()): per remote slot, announced
     * since its relay's census began; per tag, leases in a row that
     * reported fewer viewers than held, and a census under way. */
    bool *remote_seen;
    uint32_t *census_ids;
    remote_view_t *remote_views; /* per remote slot: the view its relay told for the timeline */
    uint64_t bridge_past_frames; /* frames of the past sent to relays' viewers */
    uint8_t census_streak[LEASE_TAG_MAX + 1];
    bool census_pending[LEASE_TAG_MAX + 1];
    uint64_t census_closed;
};

#include "room.h"

static inline uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- what each part offers the others, in the order a tick meets them ---- */

/* sim_thread.c: the simulation thread's body (pthread_create in app_create;
 * it runs until app_shutdown sets stop). */
void *sim_main(void *arg); /* arg: the room */

/* replies.c: the replies list (the simulation thread fills its own,
 * produced, and moves it to the shared one, outgoing, under the lock), and
 * on_wake, the loop's side of the hand-over (uv_async_send wakes it). */
void replies_push(replies_t *r, size_t slot, uint32_t to, int key, char *text);
void replies_clear(replies_t *r);
void on_wake(uv_async_t *handle); /* handle->data: the room */

/* viewer_sessions.c: a client takes a slot (on_open for net's, join_slot
 * for a relay's too), sends a message, leaves; net's callbacks for its
 * slots and relay_bridge.c's path for remote ones. on_cursor_timer sends
 * presence, cursors and the feed at most INSPECT_HZ times a second. Loop
 * thread. */
char *on_open(void *user, uint32_t client_id, size_t slot, int protocol, const char *room, net_admit_t *admit);
void join_slot(room_t *r, uint32_t client_id, size_t slot, bool operator);
void on_message(void *user, uint32_t client_id, size_t slot, const char *data, size_t len, bool binary);
void on_close(void *user, uint32_t client_id, size_t slot);
void on_cursor_timer(uv_timer_t *handle);
/* Wall-clock seconds, the time presence and the feed show. */
double wall_clock_s(void);

/* client_route.c: a message to the client in a slot, whether net's or a
 * relay's (is_remote); news under a key for everyone. Loop thread. */
bool is_remote(const app_t *a, size_t slot);
void client_send(app_t *a, size_t slot, uint32_t client_id, const char *text);
size_t client_backlog(const app_t *a, size_t slot, uint32_t client_id);
void client_close(app_t *a, size_t slot, uint32_t client_id, int code, const char *reason);
void send_latest(room_t *r, unsigned key, const char *text);

/* snapshots.c: sync_encoder hands the views that changed to the encoder
 * (after anything that may change them); on_bundles is the encoder's
 * callback and compose_v2 net's, on the loop thread. */
void sync_encoder(room_t *r);
void on_bundles(void *user);
int compose_v2(void *user, uint32_t client_id, size_t slot, const uint8_t **data, size_t *len);

/* timeline_sessions.c: the viewers' timeline messages, their seats and the
 * frames of the past on their way out (loop thread). */
int timeline_open(room_t *r, char *msg, size_t msg_len);
void on_timeline(room_t *r, uint32_t client_id, size_t slot, const timeline_request_t *req);
void timeline_deliver(room_t *r);
/* A scrubbing viewer whose view changed (its camera moved) sees the same moment in the new view. */
void timeline_follow_views(room_t *r);
/* 1 with a frame of the past for a scrubbing client, 0 when it has none
 * new, -1 when the client watches live (compose as usual). */
int timeline_compose(room_t *r, size_t slot, uint32_t client_id, const uint8_t **data, size_t *len);
void timeline_left(room_t *r, size_t slot, uint32_t client_id);
/* A v2 viewer came into the room: during a share, it follows it. */
void timeline_joined(room_t *r, size_t slot, uint32_t client_id);
/* The seats stop (their threads first) and their frames go; the room's
 * past and per-slot state stay until timeline_destroy. */
void timeline_close(room_t *r);
/* What a viewer watching live is told of the timeline (its window, the
 * live world's base), the one place an answer's fields are filled. */
timeline_state_t timeline_live_state(room_t *r, const char *why);
/* Closed, and the past and every per-slot array freed: a room being freed,
 * or one whose making failed after timeline_open. */
void timeline_destroy(room_t *r);
/* The timeline's series of /metrics (all rooms). */
char *timeline_metrics_text(const app_t *a);

/* past_metrics.c: the metrics of the past, by tick (timeline/metrics_past.h).
 * Opens the room's store (for a past of about `ticks`; 0: the window);
 * without it the past has no metrics, and nothing else changes. */
void past_metrics_open(room_t *r, uint64_t ticks);
/* After a step of a past stepped ahead (a run's room, a served --replay),
 * on the thread making the room: the metrics of that tick are kept, as
 * often as live viewers get them (room->metrics is the working memory). */
void past_metrics_stepped(room_t *r, const world_t *w);
/* Sim thread (or the thread making the room): keeps m, computed of the
 * present world, as the row of its place on the timeline. */
void past_metrics_keep(room_t *r, const metrics_t *m);
/* Loop thread: a seat's viewer shown tick `tick` of the past is sent the
 * metrics of it ({"type":"metrics","past":true,…}), once per row. */
void past_metrics_send(room_t *r, int seat, size_t slot, uint32_t client_id, uint64_t tick);
/* sim_thread.c: how a room computes its metrics (the live broadcasts' bounds). */
metrics_config_t room_metrics_config(const room_t *r);

/* relay_bridge.c: the simulation's side of the NATS bridge (--nats).
 * bridge_start connects and subscribes (app_create); bridge_room_subjects
 * names a room's stream (room_create); send_envelope writes to one relay
 * viewer's relay; remote_close frees a remote slot the way a local close
 * does; bridge_room_closing sends a closing room's relay viewers away and
 * gives up its leases; publish_bundle publishes a room's bundle for the
 * relays that lease it and bridge_publishing says whether any does;
 * bridge_metrics_text is the bridge's part of /metrics. */
int bridge_start(app_t *a);
int bridge_room_subjects(room_t *r);
void send_envelope(app_t *a, uint32_t client_id, bridge_kind_t kind, uint16_t code, const char *text);
void send_envelope_bytes(app_t *a, uint32_t client_id, bridge_kind_t kind, uint16_t code, const uint8_t *data,
                         size_t len);
void remote_close(app_t *a, size_t slot, uint32_t client_id);
void bridge_room_closing(app_t *a, room_t *r);
bool bridge_publishing(const room_t *r);
void publish_bundle(room_t *r, const bundle_t *b);
char *bridge_metrics_text(app_t *a);

/* relay_timeline.c: the timeline for relays' viewers. bridge_timeline_start
 * makes the remote slots' views (bridge_start), bridge_timeline_forget
 * forgets a slot's (it opened again); bridge_scrub_view_set takes a
 * SCRUB_VIEW envelope's; bridge_scrub_view is the view a remote slot's
 * frames of the past show (false: none told); bridge_seat_fair says
 * whether the slot's relay may take one more seat (true for a local
 * slot); bridge_send_past sends a frame of the past (NULL: a seat taken,
 * no frame yet) and bridge_send_live the return to live, to a remote
 * slot's relay (nothing for a local slot). */
int bridge_timeline_start(app_t *a);
void bridge_timeline_forget(app_t *a, size_t index);
void bridge_scrub_view_set(app_t *a, size_t index, const bridge_envelope_t *e);
bool bridge_scrub_view(const app_t *a, size_t slot, wire2_rect_t *rect, wire2_mode_t *mode);
bool bridge_seat_fair(const app_t *a, size_t slot);
void bridge_send_past(app_t *a, size_t slot, uint32_t client_id, const shared_buf_t *frame);
void bridge_send_live(app_t *a, size_t slot, uint32_t client_id);
/* An operator's share, for the relays' viewers of the room (S.shared): it
 * began (a new number), a frame of it, it ended. Nothing when no relay
 * leases the room. */
void bridge_share_begin(room_t *r);
void bridge_share_frame(room_t *r, const shared_buf_t *frame);
void bridge_share_end(room_t *r);

/* saved_state.c: --state-file. restore_state before the first tick,
 * capture_state on the simulation thread, state_write_queue on the loop,
 * write_final_state at shutdown once the simulation thread has stopped. */
int restore_state(room_t *r);
void capture_state(room_t *r, uint64_t now);
void state_write_queue(room_t *r, state_image_t *captured);
void write_final_state(room_t *r);

/* command_log.c: --record. open_record writes the header (app_create);
 * the rest run on the simulation thread, record_end at shutdown once it
 * has stopped. */
int open_record(room_t *r);
void record_command(room_t *r, uint64_t tick, const sim_cmd_t *cmd);
void record_flush_due(room_t *r, uint64_t now);
void record_end(room_t *r);
void record_release(room_t *r);

/* rooms.c: the rooms (loop thread). rooms_init before the default room is
 * made, rooms_start_timer once it runs; rooms_admit picks a new session's
 * room by its code (NULL: refused, admit says how); a room's people come
 * and go; rooms_on_message takes create_room, room_rename, room_close and
 * rooms; rooms_close closes one (its people get 4410); rooms_shutdown stops
 * them all at the end, rooms_destroy frees them once the loop has run. */
int rooms_init(app_t *a);
void rooms_start_timer(app_t *a);
room_t *rooms_find(const app_t *a, const char *code);
/* The open room of a canonical code, or the kept one opened again; NULL
 * (*kept says whether it was there; why, when it was) otherwise. */
room_t *rooms_find_or_reopen(app_t *a, const char *code, bool *kept, char *why, size_t why_len);
/* net's room_known: "" (the default room), or a code open or kept. */
bool rooms_known(void *user, const char *typed);
room_t *rooms_admit(app_t *a, size_t slot, uint32_t client_id, const char *typed, net_admit_t *admit);
void rooms_person_joined(room_t *r);
void rooms_person_left(room_t *r);
void rooms_on_message(app_t *a, room_t *r, size_t slot, uint32_t client_id, const room_msg_t *m);
void rooms_close(app_t *a, room_t *r, bool forget, const char *why);
void rooms_shutdown(app_t *a);
void rooms_destroy(app_t *a);
/* Every open room as the list shows it (malloc'd; *n of them, the default
 * room first); and the list as the reply to `rooms`. */
room_info_t *rooms_info(const app_t *a, size_t *n);
char *rooms_list_json(const app_t *a, int64_t request_id);

/* room_store.c: --state-dir. room_store_open reads the kept rooms at
 * start; a made room's identity is written at once and on rename
 * (room_store_write), its set-up to room_store_state_path by saved_state.c;
 * a room closed for want of people is kept (room_store_keep), one closed by
 * its operators forgotten (room_store_forget), one reopened leaves the
 * table (room_store_reopened). */
typedef struct kept_room {
    char code[ROOM_CODE_LEN + 1];
    char name[PRESENCE_NAME_BYTES];
    char token[ROOM_TOKEN_BYTES + 1];
    int64_t last_used_s;
} kept_room_t;
int room_store_open(app_t *a);
void room_store_destroy(app_t *a);
char *room_store_state_path(const app_t *a, const char *code);
const kept_room_t *room_store_find(app_t *a, const char *code);
bool room_store_code_taken(app_t *a, const char *code);
int room_store_write(app_t *a, const room_t *r);
void room_store_keep(app_t *a, const room_t *r);
void room_store_forget(app_t *a, const char *code);
void room_store_reopened(app_t *a, const char *code);

/* health.c: net's /healthz and /metrics callbacks (net_callbacks_t). */
char *on_health(void *user, int *status);
char *on_metrics(void *user);

#endif

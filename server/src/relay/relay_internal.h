/* relay_internal: what the files of relay/ share: the relay's state (its
 * viewers, the stream it passes on, the lease and the simulation's state)
 * and the functions one file calls in another. Not for the rest of the
 * server, which sees relay.h only. One loop thread owns all of it. */
#ifndef SWARMCAST_RELAY_INTERNAL_H
#define SWARMCAST_RELAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bridge/bridge_msg.h"
#include "bridge/lease_json.h"
#include "bridge/nats_link.h"
#include "bridge/subjects.h"
#include "people/client_policy.h"
#include "config.h"
#include "net/net.h"
#include "ops_metrics.h"
#include "protocol/cmd_decode.h"
#include "relay/client_slots.h"
#include "relay/relay.h"
#include "relay/relay_stream.h"
#include "rooms/room_code.h"
#include "stream/compose.h"
#include "stream/viewers.h"
#include "stream/views.h"

/* No snapshot for this long: the world is restarting (banner, /healthz 503). */
#define FRAME_SILENCE_NS 2000000000ull
/* A room's viewers wait this long for the simulation's first answer about
 * it, then are told to try again (1013): no simulation holds it now. */
#define RELAY_ROOM_ANSWER_NS 3000000000ull
/* Rooms one address may have opened here that the simulation has not
 * answered for yet. Each holds one of the relay's --max-rooms places until
 * the answer (a tick or so; 3 s without a simulation), and a wrong code
 * spends its address's budget only then: without this, one address's burst
 * of shaped codes (30 before room_guard stops it) fills the places, and the
 * viewers of real rooms this relay does not serve yet are told 1013. A
 * class joining one room opens it once. */
#define RELAY_ROOMS_ASKED_PER_ADDRESS 2

/* Subscription limits: view and frame messages are large and frequent (a
 * stale backlog is worse than a gap: beyond these, NATS drops, counted);
 * replies are small. */
#define STREAM_PENDING_MSGS 16
#define STREAM_PENDING_BYTES (16 * 1024 * 1024)
#define REPLY_PENDING_MSGS 65536
#define REPLY_PENDING_BYTES (64 * 1024 * 1024)

typedef struct relay_client {
    uint32_t net_id;   /* 0: slot free */
    uint32_t global_id;
    size_t room;       /* its place in relay->rooms */
    bool waiting;      /* its room's hello has not come yet: nothing is sent to it */
    bool control;      /* it has the server's role here (the control token, or none anywhere): OPEN's flag */
    char *hello_text;  /* the viewer's last presence hello, sent again after a simulation restart */
    /* The timeline (relay_scrub.c): it looks at the past (no live frames);
     * its newest frame of the past not yet sent, and the one net sends;
     * the view last told the simulation for them. */
    bool scrubbing;
    shared_buf_t *past_next, *past_sent;
    bool following;       /* it follows an operator's share (its room's shared_frame) … */
    uint32_t shared_sent; /* … of which it was sent the frame of this number */
    bool share_untold;    /* it came during the share: it follows, and is told so at the next timer round */
    bool scrub_view_known;
    wire2_mode_t scrub_mode;
    wire2_rect_t scrub_rect;
} relay_client_t;

/* A view subject listened to: the simulation view granted for some local views. */
typedef struct listening {
    wire2_mode_t mode;
    wire2_rect_t rect;
    nats_link_sub_t *sub;
    bool needed; /* scratch */
} listening_t;

/* The simulation view granted for a local view. */
typedef struct grant {
    uint32_t view_id;
    lease_view_t to;
} grant_t;

/* The views of the last lease request, in its order: an answer is taken
 * for it. */
typedef struct asked {
    uint32_t view_ids[LEASE_MAX_VIEWS];
    lease_view_t views[LEASE_MAX_VIEWS];
    size_t n;
} asked_t;

typedef struct relay_counters {
    uint64_t frames, bad_messages, forwarded, answered_here, refused_here, leases_sent, leases_answered;
    uint64_t received[OPS_CMD_KINDS], rate_limited[OPS_CMD_KINDS], errors[OPS_ERROR_CODES], abuse_closes;
    uint64_t replays, tag_changes, rooms_opened, room_codes_wrong;
    uint64_t timeline_forwarded, past_frames;
} relay_counters_t;

/* One room the relay serves: the default room always (place 0: its lease
 * is the relay's heartbeat), another from its first viewer's arrival to
 * its last one's leaving (relay_rooms.c). Each has its stream from the
 * simulation (under its stream prefix: subjects.h), the views its viewers
 * watch, their lease, and the simulation's hello for it. Its place is its
 * channel in net: its news and frames go to its viewers only. */
typedef struct relay_room {
    struct relay *relay;
    size_t index;
    char code[ROOM_CODE_LEN + 1]; /* "": the default room */
    char stream_prefix[SUBJECT_MAX], subj_frame[SUBJECT_MAX], subj_news[SUBJECT_MAX], subj_shared[SUBJECT_MAX];
    nats_link_sub_t *sub_frame, *sub_news, *sub_shared;
    /* An operator's share (S.shared, relay_scrub.c): under way, its number,
     * its newest frame and that frame's number here, and what a follower
     * is told (for a viewer who comes meanwhile). */
    bool sharing;
    uint32_t share_id, shared_seq;
    shared_buf_t *shared_frame;
    char *shared_text;
    size_t people;     /* viewers in it, greeted or waiting */
    size_t waiting;    /* … of whom still waiting for its hello */
    uint64_t opened_ns; /* waiting viewers give up RELAY_ROOM_ANSWER_NS after it */
    addr_key_t opener;  /* the address of the viewer that opened it (has_opener) */
    bool has_opener;

    cmd_limits_t limits;    /* from the simulation's hello */
    float world_w, world_h; /* the world the views are cut from */
    views_t *views;
    viewers_t *viewers;
    compose_t *compose;
    relay_stream_t *stream;
    bundle_t *current;
    grant_t *grants;
    size_t n_grants;
    listening_t *listening;
    size_t n_listening, cap_listening;
    uint32_t tick; /* of the newest snapshot */

    char *sim_hello; /* NULL until the simulation first answered a lease */
    bool sim_token;  /* the room has a token (its hello says): only a token makes an operator */
    asked_t asked;
    bool lease_due;
    uint64_t lease_sent_ns, lease_answered_ns, last_frame_ns, status_sent_ns;
    bool restarting; /* the banner is up */
} relay_room_t;

struct relay {
    uv_loop_t *loop;
    config_t cfg;
    net_t *net;
    nats_link_t *link;
    uv_timer_t timer;
    bool shut_down;
    uint64_t started_ns;

    unsigned tag;
    char name[CONFIG_MAX_RELAY_NAME + 1];
    /* Each process names itself name#instance in its leases: the simulation
     * takes a lease of the same name and tag for the same relay, and a
     * relay restarted within the lease's 5 s must not inherit the viewers
     * of the one that died (it is refused the tag until they are gone). */
    uint32_t instance;
    char subj_lease[SUBJECT_MAX], subj_cmd[SUBJECT_MAX], subj_reply[SUBJECT_MAX];
    nats_link_sub_t *sub_reply;

    /* Viewers. */
    relay_client_t *clients; /* per slot */
    client_policy_t *policy; /* per slot */
    client_slots_t *by_id;   /* global id → slot */

    /* Rooms: n_rooms_max = --max-rooms + 1 places, rooms[0] the default
     * room; a room's wrong codes and rooms made are counted per address
     * here (the simulation sees only the relay). */
    relay_room_t **rooms;
    size_t n_rooms_max;
    struct room_guard *guard;

    bool tag_waiting; /* our fixed tag was refused as taken: waiting for it (said once) */
    bool replay_due;  /* the simulation may have lost our viewers: OPEN them again at its next answer */
    size_t n_scrubbing; /* viewers looking at the past */
    relay_counters_t n;
};

static inline uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline relay_room_t *relay_room_of(const relay_t *r, size_t slot) { return r->rooms[r->clients[slot].room]; }

/* The conversation with the simulation on the tag's subjects
 * (relay_upstream.c): a viewer's envelope (OPEN, TEXT, CLOSE) under its
 * global id and room, relay_send_open announcing it with its role; a
 * room's lease request; a tag to start with; the subjects of the current
 * tag, listening on its reply subject (0 or -1); NATS connected or not. */
void relay_send_envelope(relay_t *r, bridge_kind_t kind, size_t slot, const char *text, size_t len);
void relay_send_open(relay_t *r, size_t slot);
void relay_send_lease(relay_t *r, relay_room_t *room);
unsigned relay_random_tag(void);
int relay_listen_for_replies(relay_t *r);
void relay_on_nats_state(void *user, bool connected);

/* The rooms (relay_rooms.c): the default room at start; a room found by
 * its canonical code, or opened for a viewer (NULL: no place left); a
 * viewer joining (greeted now when the room's hello is here, else
 * waiting) and leaving (the room closes with its last viewer); the
 * waiting viewers greeted or sent away when the simulation answered; and
 * the timer's round (waiting viewers that got no answer). */
relay_room_t *relay_room_create(relay_t *r, size_t index, const char *code);
void relay_room_destroy(relay_t *r, relay_room_t *room);
relay_room_t *relay_room_find(const relay_t *r, const char *code);
relay_room_t *relay_room_open(relay_t *r, const char *code);
/* The viewer's hello (malloc'd; NULL: out of memory), its role set, its
 * view opened and the simulation told (OPEN). */
char *relay_room_greet(relay_t *r, relay_room_t *room, size_t slot);
void relay_room_left(relay_t *r, relay_room_t *room);
void relay_room_answered(relay_t *r, relay_room_t *room);
/* The simulation closed the room (it kicks each viewer 4410): its hello no
 * longer holds, so that a viewer arriving before the relay's room goes
 * waits for the answer to the room's next lease, sent now ("no_room":
 * 4404), instead of being greeted into a room that is gone. */
void relay_room_gone(relay_room_t *room);
/* Rooms opened from addr still without the simulation's hello. */
size_t relay_rooms_unanswered_from(const relay_t *r, const addr_key_t *addr);
void relay_room_refused(relay_t *r, relay_room_t *room, const char *error);
void relay_rooms_tick(relay_t *r, uint64_t now);
bool relay_room_known(void *user, const char *typed);

/* net's callbacks for the viewers' sessions (relay_viewers.c). */
char *relay_on_open(void *user, uint32_t net_id, size_t slot, int protocol, const char *room, net_admit_t *admit);
void relay_on_message(void *user, uint32_t net_id, size_t slot, const char *data, size_t len, bool binary);
void relay_on_close(void *user, uint32_t net_id, size_t slot);
int relay_compose_v2(void *user, uint32_t net_id, size_t slot, const uint8_t **data, size_t *len);

/* The stream in (relay_feed.c): the callbacks of a room's snapshot and
 * news subjects (user: the room); its banner (restarting or running
 * again); the view subjects listened to, made to match the grants, and
 * the grants of a lease answer. */
void relay_on_frame(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);
void relay_on_news(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);
void relay_show_status(relay_room_t *room, bool restarting);
void relay_sync_subscriptions(relay_room_t *room);
void relay_apply_grants(relay_room_t *room, const lease_reply_t *a);

/* The timeline's viewers (relay_scrub.c): a timeline message forwarded
 * (after the viewer's view); the views of a room's scrubbing viewers told
 * again when they changed; a PAST envelope (frame: a v2 frame, or len 0:
 * a seat and no frame yet) and a LIVE one for a viewer; every viewer back
 * to live, the simulation told (it restarted and holds no seat of ours,
 * or lost touch for a while and frees them); a viewer
 * gone; and its frame: 1 a frame of the past, 0 none new, -1 it watches
 * live (compose as usual). */
void relay_scrub_forward(relay_t *r, size_t slot, const char *data, size_t len);
void relay_scrub_follow_views(relay_t *r, const relay_room_t *room);
void relay_scrub_past(relay_t *r, size_t slot, const uint8_t *frame, size_t len);
void relay_scrub_live(relay_t *r, size_t slot);
void relay_scrub_all_live(relay_t *r);
void relay_scrub_left(relay_t *r, size_t slot);
int relay_scrub_compose(relay_t *r, size_t slot, const uint8_t **data, size_t *len);
/* S.shared's callback (user: the room); the share's end in a room that goes;
 * a viewer greeted in the room (it follows a share under way, as on the
 * simulation); the timer's round (those told so). */
void relay_on_shared(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);
void relay_share_forget(relay_room_t *room);
void relay_share_join(relay_t *r, const relay_room_t *room, size_t slot);
void relay_share_tell_late(relay_t *r, const relay_room_t *room);

/* net's callbacks for /healthz and /metrics (relay_http_status.c). */
char *relay_on_health(void *user, int *status);
char *relay_on_metrics(void *user);

#endif

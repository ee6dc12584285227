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
#include "stream/compose.h"
#include "stream/viewers.h"
#include "stream/views.h"

/* No snapshot for this long: the world is restarting (banner, /healthz 503). */
#define FRAME_SILENCE_NS 2000000000ull

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
    char *hello_text;  /* the viewer's last presence hello, sent again after a simulation restart */
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
    uint64_t replays, tag_changes;
} relay_counters_t;

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
    char subj_frame[SUBJECT_MAX], subj_news[SUBJECT_MAX], subj_lease[SUBJECT_MAX], subj_cmd[SUBJECT_MAX],
        subj_reply[SUBJECT_MAX];
    nats_link_sub_t *sub_frame, *sub_news, *sub_reply;

    /* Viewers. */
    relay_client_t *clients; /* per slot */
    client_policy_t *policy; /* per slot */
    client_slots_t *by_id;   /* global id → slot */
    cmd_limits_t limits;     /* from the simulation's hello */
    float world_w, world_h;  /* the world the views are cut from */

    /* The stream. */
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

    /* The lease and the simulation's state. */
    char *sim_hello; /* NULL until the simulation first answered a lease */
    bool sim_token;  /* the simulation has a control token (its hello says) */
    asked_t asked;
    bool lease_due;
    uint64_t lease_sent_ns, lease_answered_ns, last_frame_ns, status_sent_ns;
    bool restarting;  /* the banner is up */
    bool tag_waiting; /* our fixed tag was refused as taken: waiting for it (said once) */
    bool replay_due;  /* the simulation may have lost our viewers: OPEN them again at its next answer */
    relay_counters_t n;
};

static inline uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline bool relay_is_operator(const relay_t *r, size_t slot) { return r->policy[slot].operator; }

/* The conversation with the simulation on the tag's subjects
 * (relay_upstream.c): a viewer's envelope (OPEN, TEXT, CLOSE) under its
 * global id, relay_send_open announcing it with its role; the lease
 * request; a tag to start with; the subjects of the current tag, listening
 * on its reply subject (0 or -1); NATS connected or not. */
void relay_send_envelope(relay_t *r, bridge_kind_t kind, uint32_t global_id, bool operator, const char *text,
                         size_t len);
void relay_send_open(relay_t *r, size_t slot);
void relay_send_lease(relay_t *r);
unsigned relay_random_tag(void);
int relay_listen_for_replies(relay_t *r);
void relay_on_nats_state(void *user, bool connected);

/* net's callbacks for the viewers' sessions (relay_viewers.c). */
char *relay_on_open(void *user, uint32_t net_id, size_t slot, int protocol, const char *room, net_admit_t *admit);
void relay_on_message(void *user, uint32_t net_id, size_t slot, const char *data, size_t len, bool binary);
void relay_on_close(void *user, uint32_t net_id, size_t slot);
int relay_compose_v2(void *user, uint32_t net_id, size_t slot, const uint8_t **data, size_t *len);

/* The stream in (relay_feed.c): the callbacks of the snapshot and news
 * subjects; the banner (restarting or running again); the view subjects
 * listened to, made to match the grants, and the grants of a lease answer. */
void relay_on_frame(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);
void relay_on_news(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);
void relay_show_status(relay_t *r, bool restarting);
void relay_sync_subscriptions(relay_t *r);
void relay_apply_grants(relay_t *r, const lease_reply_t *a);

/* net's callbacks for /healthz and /metrics (relay_http_status.c). */
char *relay_on_health(void *user, int *status);
char *relay_on_metrics(void *user);

#endif

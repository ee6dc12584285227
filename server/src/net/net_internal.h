/* net_internal: what the files of net/ share (the state of net and of a
 * session, and the functions one file calls in another). Not for the rest
 * of the server, which sees net.h only. */
#ifndef SWARMCAST_NET_INTERNAL_H
#define SWARMCAST_NET_INTERNAL_H

#include <libwebsockets.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/address_limits.h"
#include "net/http_headers.h"
#include "net/forwarded.h"
#include "net/net.h"

/* Why a connection was turned away before it became a session. */
typedef enum {
    REFUSED_FULL,          /* --max-clients */
    REFUSED_PER_ADDRESS,   /* --max-per-address */
    REFUSED_ORIGIN,        /* --allow-origin */
    REFUSED_SHUTTING_DOWN,
    REFUSED_CONNECT_RATE,  /* --connect-rate: too many new sessions from one address (HTTP 429) */
    REFUSED_KINDS
} refusal_t;

/* Close codes counted one by one; any other is counted as "other". */
#define NET_CLOSE_CODES {1000, 1001, 1006, 1007, 1008, 1009, 1011, 1013}
#define NET_CLOSE_KINDS 9 /* the codes above, then other */

/* The kernel's send buffer of a session. Linux grows it to megabytes on
 * its own, and a client that stops reading would only be noticed once that
 * much had piled up (a minute of a small flock). 128 KiB still carries
 * several MB/s at a 50 ms round trip. */
#define SESSION_SNDBUF_BYTES (128 * 1024)

typedef struct net_stats {
    uint64_t accepted;
    uint64_t refused[REFUSED_KINDS];
    uint64_t closes[NET_CLOSE_KINDS];
    uint64_t stalled, idle;            /* closed by the stall and idle timeouts */
    uint64_t evicted;                  /* closed (1013) to give their seat to a newcomer from a smaller holder */
    uint64_t text_frames, text_bytes;
    uint64_t text_refused;             /* text messages not sent: not valid UTF-8 (a bug upstream) */
    uint64_t snapshot_frames, snapshot_bytes;
    uint64_t snapshots_skipped;        /* published while a client still had an older one to send */
    uint64_t v2_frames, v2_bytes;      /* protocol v2 snapshot frames and their bytes (before deflate) */
    uint64_t v2_skipped;
    uint64_t latest_replaced;          /* news replaced by newer news before a client was sent it */
    uint64_t pings;
    uint64_t auth_failed;              /* control-token guesses compared and wrong */
    uint64_t auth_throttled;           /* guesses refused unread: the address must wait */
    uint64_t refused_room;             /* sessions the application turned away at open (no such room, …) */
    uint64_t forwarded[FORWARDED_OUTCOMES]; /* upgrades from trusted proxies, by what their headers said */
} net_stats_t;

#define LATEST_WORDS (NET_LATEST_KEYS / 64)

typedef struct outgoing {
    uint8_t *buf; /* LWS_PRE bytes of headroom, then the text */
    size_t len;
} outgoing_t;

/* A client's outbox holds hello and the replies to its own commands. */
#define OUTBOX_CAP 64

/* libwebsockets zeroes a connection's session before its first callback; a
 * connection whose handshake fails may reach LWS_CALLBACK_CLOSED without
 * ever being established, so nothing here is trusted unless established. */
typedef struct session {
    struct lws *wsi;
    bool established;      /* ESTABLISHED ran for this connection */
    bool counted;          /* holds a slot (and a client id) */
    int protocol;          /* 1 or 2: the sub-protocol it asked for */
    uint32_t client_id;
    size_t slot;
    addr_key_t addr;       /* the client's address (IPv6: its /64), for the per-address limits: the
                            * peer's, or behind a trusted proxy the one it reports (forwarded.h) */
    bool addr_known;       /* addr was found before the upgrade (net_on_filter) */
    size_t channel;        /* the room whose news and snapshots it gets */
    char room[NET_ROOM_ARG_BYTES + 1]; /* the upgrade's ?room=, kept from the filter for on_open */
    uint64_t snap_seq;     /* the last snapshot (v1 or v2, by protocol) this client was sent */
    bool in_message, rx_binary, reading_paused;
    bool closing, ping_due;
    bool peer_closing;     /* the peer sent its close: lws answers it, nothing more is written */
    int close_code;
    uint64_t close_started_ms;
    uint64_t last_rx_ms;        /* anything received: a message chunk or a pong */
    uint64_t message_started_ms;/* first chunk of the message being reassembled */
    uint64_t last_progress_ms;  /* last write, or when output became pending */
    uint64_t last_ping_ms;
    char *rx;              /* reassembly of one message */
    size_t rx_len;
    outgoing_t out[OUTBOX_CAP];
    size_t out_head, out_count;
    uint64_t latest_dirty[LATEST_WORDS]; /* keys whose newest text this client has not had */
} session_t;

typedef struct latest {
    uint8_t *buf; /* LWS_PRE headroom, then the text; NULL: never set */
    size_t len;
} latest_t;

/* A broadcast group (a room): its news under each key and its newest
 * snapshots. Sessions of other channels never see them. */
typedef struct channel {
    uint8_t *snap; /* the newest v1 snapshot, shared by the channel's v1 clients */
    size_t snap_len;
    uint64_t snap_seq;
    uint64_t v2_seq; /* v2 snapshots published */
    latest_t latest[NET_LATEST_KEYS];
    size_t n_protocol[3]; /* its sessions by protocol */
} channel_t;

struct net {
    uv_loop_t *loop;
    struct lws_context *ctx;
    net_config_t cfg;
    net_callbacks_t cb;
    char web_root[PATH_MAX];
    int port;

    session_t **slots;
    size_t n_clients;
    uint32_t last_client_id;
    address_limits_t *limits; /* per address: new sessions, sessions held, token guesses */

    channel_t *channels; /* cfg.channels of them */
    size_t n_protocol[3]; /* sessions by protocol, in all channels */

    net_stats_t stats;
    uv_timer_t sweep_timer; /* keepalive and timeouts, once a second */

    struct lws_protocols protocols[5];
    struct lws_http_mount mount_files, mount_health, mount_room_page;
    http_headers_t headers; /* on every HTTP response of both vhosts (info.headers) */
    /* The operations listener (--metrics-listen): its own vhost. */
    struct lws_protocols ops_protocols[4];
    struct lws_http_mount mount_ops_health, mount_ops_metrics;
    int metrics_port; /* -1: none */

    bool shutting_down;
    uv_timer_t shutdown_timer;
    uint64_t shutdown_started;
    void (*shutdown_done)(void *);
    void *shutdown_arg;
};

static inline net_t *net_of(struct lws *wsi) { return lws_context_user(lws_get_context(wsi)); }
static inline uint64_t now_ms(const net_t *n) { return uv_now(n->loop); }
/* The session in slot if it is still the one of client_id (else it left). */
static inline session_t *net_find(net_t *n, size_t slot, uint32_t client_id)
{
    session_t *s = slot < n->cfg.max_clients ? n->slots[slot] : NULL;
    return s && s->client_id == client_id ? s : NULL;
}

/* Closing (net.c): net_begin_close starts the closing handshake with a code
 * and reason; net_cut_off drops a peer that reads nothing, without one. */
void net_begin_close(net_t *n, session_t *s, int code, const char *reason);
void net_cut_off(session_t *s);

/* Admission (admission.c): the LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION,
 * ESTABLISHED and CLOSED of a session, and the per-address limits they
 * keep (made from cfg by net_limits_create). */
int net_on_filter(net_t *n, session_t *s, struct lws *wsi);
int net_on_established(net_t *n, session_t *s, struct lws *wsi);
void net_on_closed(net_t *n, session_t *s);
address_limits_t *net_limits_create(const net_config_t *cfg);

/* LWS_CALLBACK_RECEIVE: a chunk of a message (receive.c). */
int net_on_receive(net_t *n, session_t *s, struct lws *wsi, const void *in, size_t len);

/* Keepalive and timeouts (keepalive.c): the sweep's timer, started with
 * the context and stopped at shutdown. */
void net_keepalive_start(net_t *n);
void net_keepalive_stop(net_t *n);

/* The fan-out (fanout.c). */
/* Whether anything waits to be written to s. */
bool net_has_pending(const net_t *n, const session_t *s);
/* Frees what s's outbox still holds (it is closed). */
void net_outbox_clear(session_t *s);
/* Queues text for s (copied): closes s when its outbox is full. */
void net_enqueue(net_t *n, session_t *s, const char *text);
/* LWS_CALLBACK_SERVER_WRITEABLE: writes the next thing s is owed. */
int net_on_writeable(net_t *n, session_t *s, struct lws *wsi);
/* Writes what s is owed now, from outside any libwebsockets callback. */
void net_flush_now(net_t *n, session_t *s);

/* The HTTP callbacks (http_status.c): the public /healthz; on the
 * operations listener the detailed /healthz, /metrics, and 404 for the rest. */
int health_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
int health_detail_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
int metrics_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
int ops_not_found_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
/* GET /r/CODE: the page (room_page.c). */
int room_page_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
/* Per-connection state of those two. */
typedef struct http_reply {
    char *body;
    size_t len, sent;
} http_reply_t;

#endif

/* net: libwebsockets on the caller's libuv loop. Serves the web client,
 * a bare /healthz (up or not) and the swarmcast WebSocket on the public
 * port, and /metrics and the detailed /healthz on a second listener of its
 * own (metrics_bind:metrics_port, loopback by default), so that operations
 * stay off the public face;
 * owns sessions (admission, keepalive, timeouts), their reassembly buffers
 * and outboxes, and the fan-out. It never touches the world: it hands text
 * to the callbacks and sends what it is given.
 *
 * What a session is sent, in this order whenever it can write:
 *  1. its outbox: hello, then the replies to its own commands (bounded:
 *     a client that lets it fill is not reading and is closed);
 *  2. the newest text of each "latest" key that changed since it last
 *     wrote (news caused by others — a parameter, the metrics — coalesced:
 *     a slow reader gets the newest value once, never a backlog);
 *  3. the newest snapshot (older ones are skipped): for a v1 client the
 *     one shared v1 frame; for a v2 client whatever compose_v2 builds for
 *     it at that moment (a delta, a chain or a key of its view).
 * So no client is ever closed for traffic that others caused.
 *
 * Sub-protocols: "swarmcast.v1" (also a client that names none) and
 * "swarmcast.v2". */
#ifndef SWARMCAST_NET_H
#define SWARMCAST_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "net/address_limits.h"
#include "net/trusted_proxies.h"

typedef struct net net_t;

/* What on_open decides for a new session: the channel (room) it joins, or
 * when it returns no hello, the close code and reason it is refused with. */
typedef struct net_admit {
    size_t channel;
    int refuse_code;        /* 0: a plain refusal (1011) */
    char refuse_reason[120];
} net_admit_t;

/* The longest room argument net keeps (?room=…, at most this many bytes;
 * a longer one is passed on cut, so that it cannot match any code). */
#define NET_ROOM_ARG_BYTES 32

typedef struct net_callbacks {
    void *user;
    /* A viewer connected, in slot [0, max_clients), asking for room (the
     * upgrade's ?room= argument, "" without one). Returns its hello text
     * (malloc'd; net frees it) with admit->channel set, or NULL to refuse
     * the connection (admit->refuse_code and _reason say how). An empty
     * text admits it with its hello still to come (net_send): a relay's
     * viewer of a room the simulation has not answered for yet. */
    char *(*on_open)(void *user, uint32_t client_id, size_t slot, int protocol, const char *room, net_admit_t *admit);
    /* One complete message of at most max_message_bytes (not NUL-terminated);
     * binary is set for a binary frame, which the protocol does not accept. */
    void (*on_message)(void *user, uint32_t client_id, size_t slot, const char *data, size_t len, bool binary);
    /* The viewer is gone (its slot may be reused right after). */
    void (*on_close)(void *user, uint32_t client_id, size_t slot);
    /* The detailed /healthz body (malloc'd JSON; net frees it) and its
     * HTTP status (200, or 503 when the simulation is stuck). The public
     * port's /healthz answers the status with "ok" or "unavailable" only. */
    char *(*on_health)(void *user, int *status);
    /* The application's part of /metrics (malloc'd Prometheus text; net
     * frees it and adds its own series). */
    char *(*on_metrics)(void *user);
    /* A v2 client can write and a newer v2 snapshot was published: its
     * frame (1, *data with net_headroom() bytes free before it, valid until
     * the next net_publish_v2), or 0 when it has nothing new to get. */
    int (*compose_v2)(void *user, uint32_t client_id, size_t slot, const uint8_t **data, size_t *len);
    /* Whether a new session's ?room= names a room that is there (NULL: any
     * is): on a full server, a session for no room takes nobody's seat. */
    bool (*room_known)(void *user, const char *room);
} net_callbacks_t;

typedef struct net_config {
    const char *bind;
    int port;
    const char *web_root; /* absolute path */
    size_t max_clients;
    size_t max_message_bytes;
    size_t max_per_address;      /* sessions per remote address */
    double connect_per_s;        /* new sessions per second per address, after … */
    double connect_burst;        /* … a burst of this many (address_limits.h) */
    unsigned auth_free_failures; /* wrong tokens from an address before each further guess waits */
    const char *allow_origin;    /* comma-separated Origins allowed on /ws; NULL: any */
    trusted_proxies_t trusted_proxies; /* peers whose X-Forwarded-For / Forwarded name the client (forwarded.h) */
    const char *metrics_bind;    /* the operations listener: /metrics and the detailed /healthz … */
    int metrics_port;            /* … on this port (0: any free one; < 0: no such listener) */
    unsigned idle_timeout_ms;    /* nothing received (message, pong) this long: closed; pings at a third */
    unsigned stall_timeout_ms;   /* output stuck, or a message half-received, this long: closed */
    bool deflate;                /* permessage-deflate with clients that offer it */
    const char *allow_frame;     /* comma-separated origins that may frame the pages; NULL: none */
    uint32_t reserved_client_ids; /* ids 1..this are the world's own (a scenario's targets): sessions get
                                   * ids above, so that none moves or, leaving, clears one of them */
    size_t channels;              /* broadcast groups (rooms): each has its own news and snapshots; 0 means 1 */
} net_config_t;

/* Client ids are 1 … NET_CLIENT_ID_LIMIT − 1 (then they wrap): a relay's
 * viewers are numbered above them (its tag in the bits above; see
 * PROTOCOL.md, "NATS subjects"), so that ids stay unique across a scaled
 * set-up. A wrapped id could meet a session still open from 4 million
 * connections earlier; nothing else reuses one. */
#define NET_CLIENT_ID_LIMIT (1u << 22)

/* Keys of net_send_latest: at most this many distinct ones. */
#define NET_LATEST_KEYS 512

net_t *net_create(uv_loop_t *loop, const net_config_t *cfg, const net_callbacks_t *cb);
/* The port actually listened on (useful with port 0). */
int net_port(const net_t *n);
/* The port of the operations listener (/metrics), or -1 when there is none. */
int net_metrics_port(const net_t *n);
size_t net_client_count(const net_t *n);
/* Bytes to leave free in front of a snapshot frame for the WebSocket header. */
size_t net_headroom(void);

/* Queues a text message for the client in slot (copied); ignored when the
 * slot now holds another client (it left). */
void net_send(net_t *n, size_t slot, uint32_t client_id, const char *text);
/* Messages queued for the client in slot and not yet written (0 when the
 * slot holds another client): a sender of optional messages (inspections)
 * skips a client that is not keeping up. */
size_t net_backlog(const net_t *n, size_t slot, uint32_t client_id);
/* Tells every client of channel the newest text of key (< NET_LATEST_KEYS):
 * a client that has not yet been sent the key's previous text gets only
 * this one. Writes at once to clients that can take it, so call it from a
 * timer or a wake-up of the loop, never from inside a net callback. */
void net_send_latest(net_t *n, size_t channel, unsigned key, const char *text);
/* Forgets a channel's news (its room closed; the channel may be reused). */
void net_channel_reset(net_t *n, size_t channel);
/* Closes every client of channel with code and reason. */
void net_close_channel(net_t *n, size_t channel, int code, const char *reason);
/* The address key of the client in slot (its IPv4 address or IPv6 /64, as
 * the per-address limits see it): false when the slot holds another. */
bool net_client_addr(const net_t *n, size_t slot, uint32_t client_id, addr_key_t *out);
/* Control-token guesses are limited per remote address, across its
 * connections (address_limits.h): 0 when the client in slot may guess now,
 * else the milliseconds until it may (its guess is then refused unread). */
uint64_t net_auth_wait(net_t *n, size_t slot, uint32_t client_id);
/* The outcome of a guess that was compared. */
void net_auth_result(net_t *n, size_t slot, uint32_t client_id, bool right);
/* Closes one client with a code and reason (e.g. 1008 for abuse). */
void net_close(net_t *n, size_t slot, uint32_t client_id, int code, const char *reason);
/* Offers a new snapshot to every client. frame must have net_headroom() bytes
 * before it and stay untouched until the next publish: clients that are busy
 * when a newer frame arrives skip the older one. */
void net_publish_snapshot(net_t *n, size_t channel, uint8_t *frame, size_t len);
/* A new v2 snapshot: every v2 client is asked (compose_v2) for its frame,
 * at once when it can write (so, like net_send_latest, not from inside a
 * net callback), else when it can; one still busy skips to the newest. */
void net_publish_v2(net_t *n, size_t channel);
/* Asks compose_v2 for one v2 client's frame now (or when it can write):
 * a frame of its own (the timeline's) rather than the channel's newest.
 * Like net_publish_v2, not from inside a net callback. */
void net_wake_v2(net_t *n, size_t slot, uint32_t client_id);
/* Sessions speaking protocol 1 or 2: in all, and in one channel. */
size_t net_protocol_count(const net_t *n, int protocol);
size_t net_channel_protocol_count(const net_t *n, size_t channel, int protocol);

/* Closes every connection with 1001 (going away); calls done once they are
 * all gone (or after a short grace period). */
void net_shutdown(net_t *n, void (*done)(void *arg), void *arg);
/* Frees everything; the loop must be run once more afterwards so that
 * libwebsockets can close its handles (then uv_loop_close succeeds). */
void net_destroy(net_t *n);

#endif

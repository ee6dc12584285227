/* nats_link: the process's one NATS connection, on the application's libuv
 * loop (libnats' libuv adapter does the socket I/O on the loop).
 *
 * Threads: libnats calls subscription handlers on its message delivery
 * thread and connection-state handlers on a thread of its own, never on the
 * loop (checked with libnats 3.4: a handler's pthread_self differs from the
 * loop's). nats_link therefore hands every message and state change to the
 * loop through one FIFO queue and a uv_async: every callback given here runs
 * on the loop thread. Message delivery uses libnats' global delivery pool
 * with one thread, so the messages of all subscriptions reach the queue, and
 * the callbacks, in the order the connection received them (a relay gets a
 * snapshot's view messages before its P.frame).
 *
 * Connection policy: reconnect forever (every 250 ms); a first connect that
 * fails is retried from a loop timer at the same pace, so either side may
 * start first (libnats' own retry of a first connect cannot attach to the
 * loop: the adapter attaches only from the loop thread); a small reconnect
 * buffer (a stale backlog of frames is worse than a gap: publishing while
 * disconnected fails once it is full, and is counted). Subscriptions made
 * before the first connection take effect when it comes.
 *
 * Loop thread only, except where said. Error rule: 0 or negative. */
#ifndef SWARMCAST_NATS_LINK_H
#define SWARMCAST_NATS_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct nats_link nats_link_t;
typedef struct nats_link_sub nats_link_sub_t;

#define NATS_LINK_RECONNECT_WAIT_MS 250
#define NATS_LINK_RECONNECT_BUF_BYTES (256 * 1024)

typedef struct nats_link_config {
    const char *urls;           /* "nats://h:p[,nats://h2:p2…]" (required) */
    const char *name;           /* the connection's name in the server's monitoring; may be NULL */
    const char *user, *password; /* both or neither */
    const char *creds_file;     /* a .creds file (user JWT and seed); may be NULL */
    const char *nkey_seed_file; /* a file with the user's nkey seed (SU…) and public key (U…) lines; may be NULL */
} nats_link_config_t;

typedef struct nats_link_stats {
    bool connected;
    uint64_t published_messages, published_bytes;
    uint64_t publish_failures;  /* refused by the client (disconnected and buffer full, too big, …) */
    uint64_t received_messages; /* handed to a subscription callback */
    uint64_t dropped_messages;  /* over a subscription's pending limits */
    uint64_t refused;           /* publishes and subscriptions the server's permissions refused */
    uint64_t reconnects, disconnects;
} nats_link_stats_t;

/* connected: true on connect and reconnect, false on disconnect (each
 * change once). */
typedef void (*nats_link_state_cb)(void *user, bool connected);
/* One message. reply is NULL when the publisher gave no reply subject; the
 * pointers are valid during the call only. */
typedef void (*nats_link_msg_cb)(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);

/* Parses the options and starts connecting (it does not wait for a server:
 * the state callback says when it is up). NULL on a bad option (a message
 * on stderr says which) or when out of memory. on_state may be NULL. */
nats_link_t *nats_link_create(uv_loop_t *loop, const nats_link_config_t *cfg, nats_link_state_cb on_state,
                              void *user);
/* Closes the connection and frees everything; the loop must run once more
 * afterwards (closing handles). NULL-safe. */
void nats_link_destroy(nats_link_t *l);

bool nats_link_connected(const nats_link_t *l);
void nats_link_get_stats(const nats_link_t *l, nats_link_stats_t *out);

/* The link's Prometheus series (malloc'd text, or NULL): swarmcast_nats_connected,
 * _published_messages_total, _published_bytes_total, _publish_failures_total,
 * _received_messages_total, _dropped_messages_total, _permission_violations_total,
 * _reconnects_total. */
char *nats_link_metrics_text(const nats_link_t *l);

/* reply may be NULL. 0, or -1 when the client refused it (counted). */
int nats_link_publish(nats_link_t *l, const char *subject, const char *reply, const void *data, size_t len);

/* Subscribes; at most max_msgs messages / max_bytes bytes wait for the
 * callback (beyond: dropped and counted). NULL on failure. */
nats_link_sub_t *nats_link_subscribe(nats_link_t *l, const char *subject, int max_msgs, int max_bytes,
                                     nats_link_msg_cb cb, void *user);
/* No callback for it after this returns. NULL-safe. */
void nats_link_unsubscribe(nats_link_t *l, nats_link_sub_t *s);

#endif

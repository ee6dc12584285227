/* pool_nats: the NATS connection of a pool member (the coordinator of
 * `experiment run --nats` and `swarmcast worker`). Unlike the live server's
 * bridge (bridge/nats_link.c, libnats handed onto the libuv loop), a pool
 * member is a batch program whose only work is NATS requests and runs, so it
 * uses libnats' own threads and blocking JetStream calls.
 *
 * The first connection is tried again every second (a worker started before
 * NATS waits for it); once connected, libnats reconnects for ever, so a NATS
 * restart is a pause, not an end. */
#ifndef SWARMCAST_POOL_NATS_H
#define SWARMCAST_POOL_NATS_H

#include <signal.h>
#include <stddef.h>

#include <nats/nats.h>

typedef struct pool_nats {
    natsConnection *nc;
    jsCtx *js;
} pool_nats_t;

/* Connects to url (one or several, comma-separated; credentials as
 * nats://user:password@host:port). Gives up after give_up_s seconds
 * (0: never) or when *stop becomes non-zero. 0, or -1 with msg. */
int pool_nats_connect(pool_nats_t *p, const char *url, const char *name, double give_up_s,
                      volatile sig_atomic_t *stop, char *msg, size_t msg_len);
void pool_nats_close(pool_nats_t *p);

/* A failed call's reason: libnats' last error text, or the status's. */
const char *pool_nats_why(natsStatus s);

#endif

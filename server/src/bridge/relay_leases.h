/* relay_leases: the simulation's record of its live edge relays. A relay
 * renews its lease every second (lease_json.h): its name, its tag and the
 * views its viewers need. Each asked view is acquired in the simulation's
 * views registry (so the encoder makes it, once, however many relays and
 * local viewers share it) and the rect actually given is granted; a view
 * no longer asked is released. A tag held by another live relay (another
 * name) is refused. A relay whose lease is not renewed for
 * RELAY_LEASE_TTL_NS is dead: relay_leases_expire releases its views and
 * reports its tag, for the app to close its clients. Loop thread only. */
#ifndef SWARMCAST_RELAY_LEASES_H
#define SWARMCAST_RELAY_LEASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bridge/lease_json.h"
#include "stream/views.h"

#define RELAY_LEASE_TTL_NS 5000000000ull

enum { RELAY_LEASE_OK = 0, RELAY_LEASE_TAG_TAKEN = -2 };

typedef struct relay_leases relay_leases_t;

relay_leases_t *relay_leases_create(views_t *views);
/* Releases every view still leased. NULL-safe. */
void relay_leases_destroy(relay_leases_t *l);

/* A lease (new or renewed) at now: RELAY_LEASE_OK with granted[i] the rect
 * given for req->views[i] (and *is_new true for a relay not live before),
 * or RELAY_LEASE_TAG_TAKEN. Call relay_leases_expire first, so that a dead
 * relay's tag is free. */
int relay_leases_renew(relay_leases_t *l, const lease_request_t *req, uint64_t now_ns, lease_view_t *granted,
                       bool *is_new);
bool relay_leases_live(const relay_leases_t *l, unsigned tag);
/* Relays dead at now (their views released, their leases gone): their tags
 * into dead (at most max); their number. */
size_t relay_leases_expire(relay_leases_t *l, uint64_t now_ns, unsigned *dead, size_t max);
/* The name of a live relay, or NULL. */
const char *relay_leases_name(const relay_leases_t *l, unsigned tag);
size_t relay_leases_count(const relay_leases_t *l);
/* A view some relay leases: its registry id and what it is (its mode and
 * the granted rect, which name its subject). */
typedef struct relay_leased_view {
    uint32_t view_id;
    uint32_t holds; /* relays' asked views that map to it */
    lease_view_t view;
} relay_leased_view_t;

/* The distinct views leased by relays now (valid until the next renew or
 * expire); their number in *n. */
const relay_leased_view_t *relay_leases_views(const relay_leases_t *l, size_t *n);
bool relay_leases_view_leased(const relay_leases_t *l, uint32_t view_id);

#endif

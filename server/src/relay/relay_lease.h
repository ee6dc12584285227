/* relay_lease: a relay's side of the lease (the JSON itself is
 * bridge/lease_json's, shared with the simulation): whether a granted view
 * can be the answer to the view asked, what a relay learns from the
 * simulation's hello (the world's size, population limit and whether it
 * has a control token), and the hello it sends each of its viewers, made
 * from the simulation's. Pure (cJSON), no I/O. */
#ifndef SWARMCAST_RELAY_LEASE_H
#define SWARMCAST_RELAY_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bridge/lease_json.h"

/* Whether granted can answer asked: the same mode, and a rect that covers
 * asked's (the simulation grants the view itself, or past its cap a
 * containing one). An answer is matched to the newest request; this
 * catches one that was meant for an older request with other views. */
bool relay_grant_covers(lease_view_t asked, lease_view_t granted);

typedef struct relay_world {
    double width, height; /* > 0 */
    size_t max_agents;    /* 0 when the hello does not say */
    bool control_token;   /* the simulation has one: only the token makes an operator */
} relay_world_t;

/* The world of a hello (JSON object text): 0, or -1 when it names none. */
int relay_hello_world(const char *sim_hello, relay_world_t *out);

/* The hello for one viewer: the simulation's, with this viewer's client
 * id, role, the relay's control-token setting, protocol 2 and the relay's
 * own --public-url (the relay serves the page, so the simulation's is
 * dropped; NULL: none). malloc'd, or NULL (out of memory, or sim_hello is
 * not a JSON object). */
char *relay_hello_for(const char *sim_hello, uint32_t client_id, bool operator, bool control_token,
                      const char *public_url);

#endif

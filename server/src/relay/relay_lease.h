/* relay_lease: the JSON a relay and the simulation exchange on P.lease
 * (protocol/PROTOCOL.md, "NATS subjects (scaled set-up)"): the relay names
 * the views its viewers need, and the simulation answers with the view it
 * grants for each (the same, or past its cap a containing one) and the
 * hello it would send a v2 client; or refuses a tag another live relay
 * holds. Plus the hello a relay sends each of its viewers, made from the
 * simulation's. Pure (cJSON), no I/O. */
#ifndef SWARMCAST_RELAY_LEASE_H
#define SWARMCAST_RELAY_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "stream/encoder.h" /* view_spec_t */

/* The request (malloc'd text, NULL when out of memory). seq numbers the
 * relay's requests, so that it can tell which one an answer is for. */
char *relay_lease_request(const char *name, unsigned tag, uint32_t seq, const view_spec_t *views, size_t n,
                          size_t clients);

typedef struct relay_grant {
    wire2_mode_t mode;
    wire2_rect_t rect;
} relay_grant_t;

typedef struct relay_lease_answer {
    bool ok;
    bool tag_taken;     /* not ok: the tag is another relay's */
    bool has_seq;       /* the answer names the request it is for … */
    uint32_t seq;       /* … this one */
    relay_grant_t *grants; /* ok: one per asked view, in order (malloc'd) */
    size_t n_grants;
    char *hello;        /* ok: the simulation's hello (malloc'd JSON), or NULL */
    double world_width, world_height; /* from the hello (0 when absent) */
    size_t max_agents;  /* from the hello's limits (0 when absent) */
} relay_lease_answer_t;

/* 0 (out filled; free with relay_lease_answer_free), or -1 for text that is
 * not a lease answer. */
int relay_lease_parse(const char *text, size_t len, relay_lease_answer_t *out);
void relay_lease_answer_free(relay_lease_answer_t *a);

/* The hello for one viewer: the simulation's, with this viewer's client
 * id, role, the relay's control-token setting and protocol 2. malloc'd, or
 * NULL (out of memory, or sim_hello is not a JSON object). */
char *relay_hello_for(const char *sim_hello, uint32_t client_id, bool operator, bool control_token);

#endif

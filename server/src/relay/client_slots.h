/* client_slots: which net slot holds the viewer with a given client id, so
 * that a reply the simulation addresses to a client id reaches its
 * connection in O(1) whatever the number of viewers. An open-addressing
 * table (linear probing, deletion by backward shift) at most half full.
 * Loop thread only. */
#ifndef SWARMCAST_CLIENT_SLOTS_H
#define SWARMCAST_CLIENT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct client_slots client_slots_t;

/* Room for max_clients ids at once. NULL when out of memory. */
client_slots_t *client_slots_create(size_t max_clients);
void client_slots_destroy(client_slots_t *t);
/* id (never 0) is now in slot: 0, or -1 when full (more ids than max_clients)
 * or when id is already there (after net's ids wrapped, a session 4 million
 * connections old still holds it: the newcomer is refused, not merged). */
int client_slots_put(client_slots_t *t, uint32_t id, size_t slot);
/* 0 with *slot set, or -1 when id is not there. */
int client_slots_get(const client_slots_t *t, uint32_t id, size_t *slot);
void client_slots_remove(client_slots_t *t, uint32_t id);
size_t client_slots_count(const client_slots_t *t);

#endif

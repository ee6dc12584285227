/* remote_clients: the simulation's table of the viewers of its edge relays
 * (the scaled set-up). Each gets a remote slot index in [0, cap), which the
 * app maps to its slot max_clients + index, so that every per-slot array
 * (policy, presence, selections, pending commands) serves local and remote
 * clients alike. A remote client's global id is tag << 22 | local id
 * (REMOTE_TAG_SHIFT), tag 1 … 1023 naming its relay, so remote ids never
 * meet the simulation's own net ids (below 2^22). Lookups by id are a hash
 * (open addressing); loop thread only. */
#ifndef SWARMCAST_REMOTE_CLIENTS_H
#define SWARMCAST_REMOTE_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REMOTE_TAG_SHIFT 22u
#define REMOTE_LOCAL_MASK ((1u << REMOTE_TAG_SHIFT) - 1u)

static inline unsigned remote_tag_of(uint32_t client_id) { return client_id >> REMOTE_TAG_SHIFT; }

typedef struct remote_clients remote_clients_t;

/* NULL when out of memory. cap 0 is a valid, always-full table. */
remote_clients_t *remote_clients_create(size_t cap);
void remote_clients_destroy(remote_clients_t *r);

/* The index of client_id, or -1 when it has none. */
long remote_clients_find(const remote_clients_t *r, uint32_t client_id);
/* A free index for client_id (which must be absent and have a tag), or -1
 * when the table is full (or the id is not a remote one). */
long remote_clients_add(remote_clients_t *r, uint32_t client_id);
/* Frees index (no-op when free). */
void remote_clients_remove(remote_clients_t *r, size_t index);
/* The client in index, 0 when free. */
uint32_t remote_clients_id(const remote_clients_t *r, size_t index);
size_t remote_clients_count(const remote_clients_t *r);
size_t remote_clients_cap(const remote_clients_t *r);
/* Up to max ids of the clients of one relay (tag) into out; their number. */
size_t remote_clients_of_tag(const remote_clients_t *r, unsigned tag, uint32_t *out, size_t max);

#endif

#include "bridge/remote_clients.h"

#include <stdlib.h>

/* The hash holds index + 1 per bucket (0: empty); deletions use backward
 * shift, so that no tombstones pile up under churn. */
struct remote_clients {
    size_t cap, count;
    uint32_t *ids;      /* per index: the client, 0 when free */
    size_t *free_list;  /* a stack of free indices */
    size_t n_free;
    uint32_t *buckets;  /* index + 1, or 0 */
    size_t n_buckets;   /* a power of two, at least 2·cap */
};

static size_t bucket_of(const remote_clients_t *r, uint32_t id)
{
    return (size_t)((id * 2654435761u) & (uint32_t)(r->n_buckets - 1));
}

remote_clients_t *remote_clients_create(size_t cap)
{
    remote_clients_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cap = cap;
    r->n_buckets = 2;
    while (r->n_buckets < 2 * cap) r->n_buckets *= 2;
    r->ids = calloc(cap ? cap : 1, sizeof *r->ids);
    r->free_list = calloc(cap ? cap : 1, sizeof *r->free_list);
    r->buckets = calloc(r->n_buckets, sizeof *r->buckets);
    if (!r->ids || !r->free_list || !r->buckets) {
        remote_clients_destroy(r);
        return NULL;
    }
    /* Lowest index first out. */
    for (size_t i = 0; i < cap; i++) r->free_list[i] = cap - 1 - i;
    r->n_free = cap;
    return r;
}

void remote_clients_destroy(remote_clients_t *r)
{
    if (!r) return;
    free(r->ids);
    free(r->free_list);
    free(r->buckets);
    free(r);
}

long remote_clients_find(const remote_clients_t *r, uint32_t client_id)
{
    if (!client_id) return -1;
    for (size_t b = bucket_of(r, client_id);; b = (b + 1) & (r->n_buckets - 1)) {
        uint32_t slot = r->buckets[b];
        if (!slot) return -1;
        if (r->ids[slot - 1] == client_id) return (long)(slot - 1);
    }
}

long remote_clients_add(remote_clients_t *r, uint32_t client_id)
{
    if (!r->n_free || remote_tag_of(client_id) == 0 || remote_clients_find(r, client_id) >= 0) return -1;
    size_t index = r->free_list[--r->n_free];
    r->ids[index] = client_id;
    size_t b = bucket_of(r, client_id);
    while (r->buckets[b]) b = (b + 1) & (r->n_buckets - 1);
    r->buckets[b] = (uint32_t)(index + 1);
    r->count++;
    return (long)index;
}

void remote_clients_remove(remote_clients_t *r, size_t index)
{
    if (index >= r->cap || !r->ids[index]) return;
    size_t mask = r->n_buckets - 1, b = bucket_of(r, r->ids[index]);
    while (r->buckets[b] != index + 1) b = (b + 1) & mask;
    /* Backward shift: pull later members of the run into the hole when
     * their home bucket is not between the hole and them. */
    size_t hole = b;
    for (size_t next = (hole + 1) & mask; r->buckets[next]; next = (next + 1) & mask) {
        size_t home = bucket_of(r, r->ids[r->buckets[next] - 1]);
        bool movable = hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
        if (movable) {
            r->buckets[hole] = r->buckets[next];
            hole = next;
        }
    }
    r->buckets[hole] = 0;
    r->ids[index] = 0;
    r->free_list[r->n_free++] = index;
    r->count--;
}

uint32_t remote_clients_id(const remote_clients_t *r, size_t index) { return index < r->cap ? r->ids[index] : 0; }
size_t remote_clients_count(const remote_clients_t *r) { return r->count; }
size_t remote_clients_cap(const remote_clients_t *r) { return r->cap; }

size_t remote_clients_of_tag(const remote_clients_t *r, unsigned tag, uint32_t *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->cap && n < max; i++)
        if (r->ids[i] && remote_tag_of(r->ids[i]) == tag) out[n++] = r->ids[i];
    return n;
}

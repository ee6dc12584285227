#include "relay/client_slots.h"

#include <stdlib.h>

typedef struct entry {
    uint32_t id; /* 0: empty */
    uint32_t slot;
} entry_t;

struct client_slots {
    entry_t *e;
    size_t mask; /* capacity − 1, a power of two */
    size_t count, max;
};

client_slots_t *client_slots_create(size_t max_clients)
{
    client_slots_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    size_t cap = 8;
    while (cap < 2 * max_clients) cap *= 2;
    if (!(t->e = calloc(cap, sizeof *t->e))) {
        free(t);
        return NULL;
    }
    t->mask = cap - 1;
    t->max = max_clients;
    return t;
}

void client_slots_destroy(client_slots_t *t)
{
    if (!t) return;
    free(t->e);
    free(t);
}

/* Fibonacci hashing: consecutive ids (as net hands them out) spread. */
static size_t home(const client_slots_t *t, uint32_t id) { return (size_t)((id * 2654435769u) >> 7) & t->mask; }

static size_t find(const client_slots_t *t, uint32_t id)
{
    size_t i = home(t, id);
    while (t->e[i].id && t->e[i].id != id) i = (i + 1) & t->mask;
    return i;
}

int client_slots_put(client_slots_t *t, uint32_t id, size_t slot)
{
    if (id == 0) return -1;
    size_t i = find(t, id);
    if (t->e[i].id) return -1;
    if (t->count == t->max) return -1;
    t->count++;
    t->e[i] = (entry_t){id, (uint32_t)slot};
    return 0;
}

int client_slots_get(const client_slots_t *t, uint32_t id, size_t *slot)
{
    if (id == 0) return -1;
    size_t i = find(t, id);
    if (!t->e[i].id) return -1;
    *slot = t->e[i].slot;
    return 0;
}

void client_slots_remove(client_slots_t *t, uint32_t id)
{
    if (id == 0) return;
    size_t i = find(t, id);
    if (!t->e[i].id) return;
    t->e[i].id = 0;
    t->count--;
    /* Backward shift: every later entry of the run that could sit in the
     * hole moves into it, so that lookups never stop early at it. */
    for (size_t j = (i + 1) & t->mask; t->e[j].id; j = (j + 1) & t->mask) {
        size_t h = home(t, t->e[j].id);
        /* e[j] may move to i when its home is not within (i, j] cyclically. */
        size_t dist_home = (j - h) & t->mask, dist_hole = (j - i) & t->mask;
        if (dist_home >= dist_hole) {
            t->e[i] = t->e[j];
            t->e[j].id = 0;
            i = j;
        }
    }
}

size_t client_slots_count(const client_slots_t *t) { return t->count; }

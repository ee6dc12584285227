#include "rooms/room_guard.h"

#include <stdlib.h>
#include <string.h>

/* Entries probed for an address: it sits in one of these after its hash. */
#define PROBES 8

typedef struct bucket {
    double tokens;
    uint64_t at_ms; /* when tokens was last brought up to date */
} bucket_t;

typedef struct entry {
    bool used;
    addr_key_t key;
    uint64_t seen_ms;
    bucket_t wrong, create;
} entry_t;

struct room_guard {
    room_guard_config_t cfg;
    entry_t *entries;
};

room_guard_config_t room_guard_defaults(void)
{
    return (room_guard_config_t){
        .capacity = 4096,
        .wrong_burst = 30,
        .wrong_per_s = 0.1,
        .create_burst = 20,
        .create_per_s = 1.0 / 60,
    };
}

room_guard_t *room_guard_create(const room_guard_config_t *cfg)
{
    room_guard_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->cfg = *cfg;
    if (g->cfg.capacity < PROBES) g->cfg.capacity = PROBES;
    if (!(g->entries = calloc(g->cfg.capacity, sizeof *g->entries))) {
        free(g);
        return NULL;
    }
    return g;
}

void room_guard_destroy(room_guard_t *g)
{
    if (!g) return;
    free(g->entries);
    free(g);
}

static uint64_t hash_key(const room_guard_t *g, const addr_key_t *key)
{
    uint64_t h = 1469598103934665603ull ^ g->cfg.hash_seed;
    for (size_t i = 0; i < sizeof key->b; i++) h = (h ^ key->b[i]) * 1099511628211ull;
    return h;
}

/* key's entry, made (its buckets full) when it has none. */
static entry_t *find(room_guard_t *g, const addr_key_t *key, uint64_t now_ms)
{
    size_t start = (size_t)(hash_key(g, key) % g->cfg.capacity);
    entry_t *oldest = NULL;
    for (size_t k = 0; k < PROBES; k++) {
        entry_t *e = &g->entries[(start + k) % g->cfg.capacity];
        if (e->used && addr_key_equal(&e->key, key)) {
            e->seen_ms = now_ms;
            return e;
        }
        /* A free entry wins; among used ones, the one seen longest ago. */
        if (!oldest || (oldest->used && (!e->used || e->seen_ms < oldest->seen_ms))) oldest = e;
    }
    *oldest = (entry_t){.used = true, .key = *key, .seen_ms = now_ms,
                        .wrong = {g->cfg.wrong_burst, now_ms}, .create = {g->cfg.create_burst, now_ms}};
    return oldest;
}

static void refill(bucket_t *b, double burst, double per_s, uint64_t now_ms)
{
    if (now_ms > b->at_ms) {
        b->tokens += (double)(now_ms - b->at_ms) / 1000.0 * per_s;
        if (b->tokens > burst) b->tokens = burst;
    }
    b->at_ms = now_ms;
}

/* Milliseconds until b holds a whole token (0 when it does). */
static uint64_t wait_for_token(const bucket_t *b, double per_s)
{
    if (b->tokens >= 1) return 0;
    return (uint64_t)((1 - b->tokens) / per_s * 1000.0) + 1;
}

uint64_t room_guard_code_wait(room_guard_t *g, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = find(g, key, now_ms);
    refill(&e->wrong, g->cfg.wrong_burst, g->cfg.wrong_per_s, now_ms);
    return wait_for_token(&e->wrong, g->cfg.wrong_per_s);
}

void room_guard_code_wrong(room_guard_t *g, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = find(g, key, now_ms);
    refill(&e->wrong, g->cfg.wrong_burst, g->cfg.wrong_per_s, now_ms);
    e->wrong.tokens = e->wrong.tokens >= 1 ? e->wrong.tokens - 1 : 0;
}

bool room_guard_create_take(room_guard_t *g, const addr_key_t *key, uint64_t now_ms, uint64_t *wait_ms)
{
    entry_t *e = find(g, key, now_ms);
    refill(&e->create, g->cfg.create_burst, g->cfg.create_per_s, now_ms);
    *wait_ms = wait_for_token(&e->create, g->cfg.create_per_s);
    if (*wait_ms) return false;
    e->create.tokens -= 1;
    return true;
}

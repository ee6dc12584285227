#include "net/address_limits.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    addr_key_t key;
    bool used;
    uint64_t last_seen_ms;
    double tokens; /* connection bucket, as of tokens_ms */
    uint64_t tokens_ms;
    unsigned failures;
    uint64_t last_failure_ms;
    uint64_t next_guess_ms; /* no guess compared before this */
    size_t sessions;
    uint32_t next; /* the next entry of its hash chain, plus one; 0: none */
} entry_t;

/* Entries are found through a hash of their key (seeded, so that nobody
 * can pick addresses that share a chain), and used in order: entries
 * [0, count) are in use, and once all are, a new address takes one over
 * (victim), searched from a moving hand so that a table of forgettable
 * entries costs a step or two per new address, not a scan. */
struct address_limits {
    address_limits_config_t cfg;
    entry_t *entries;
    size_t count;
    uint32_t *heads; /* per hash value: its chain's first entry, plus one */
    size_t mask;     /* hash values: mask + 1, a power of two */
    size_t hand;     /* where the next search for a victim starts */
};

static const uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static void key_from_v4(const uint8_t addr[4], addr_key_t *out)
{
    memcpy(out->b, v4_mapped_prefix, 12);
    memcpy(out->b + 12, addr, 4);
}

static void key_from_v6(const uint8_t addr[16], addr_key_t *out)
{
    /* An IPv4 peer on a dual-stack socket is that IPv4 address. */
    if (memcmp(addr, v4_mapped_prefix, 12) == 0) {
        key_from_v4(addr + 12, out);
        return;
    }
    memset(out->b, 0, sizeof out->b);
    memcpy(out->b, addr, 8); /* the /64 */
}

void addr_key_from_ip(const uint8_t ip[16], addr_key_t *out) { key_from_v6(ip, out); }

bool addr_key_from_sockaddr(const struct sockaddr *sa, addr_key_t *out)
{
    if (sa->sa_family == AF_INET) {
        key_from_v4((const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr, out);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        key_from_v6(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr, out);
        return true;
    }
    return false;
}

bool addr_key_parse(const char *text, addr_key_t *out)
{
    uint8_t buf[16];
    if (inet_pton(AF_INET, text, buf) == 1) {
        key_from_v4(buf, out);
        return true;
    }
    if (inet_pton(AF_INET6, text, buf) == 1) {
        key_from_v6(buf, out);
        return true;
    }
    return false;
}

bool addr_key_equal(const addr_key_t *a, const addr_key_t *b) { return memcmp(a->b, b->b, sizeof a->b) == 0; }

address_limits_t *address_limits_create(const address_limits_config_t *cfg)
{
    address_limits_t *al = calloc(1, sizeof *al);
    if (!al) return NULL;
    al->cfg = *cfg;
    if (al->cfg.capacity < 1) al->cfg.capacity = 1;
    if (al->cfg.capacity > UINT32_MAX / 2) al->cfg.capacity = UINT32_MAX / 2;
    size_t heads = 1;
    while (heads < al->cfg.capacity) heads *= 2;
    al->mask = heads - 1;
    al->entries = calloc(al->cfg.capacity, sizeof *al->entries);
    al->heads = calloc(heads, sizeof *al->heads);
    if (!al->entries || !al->heads) {
        address_limits_destroy(al);
        return NULL;
    }
    return al;
}

void address_limits_destroy(address_limits_t *al)
{
    if (!al) return;
    free(al->entries);
    free(al->heads);
    free(al);
}

/* FNV-1a over the seed and the key. */
static size_t hash_of(const address_limits_t *al, const addr_key_t *key)
{
    uint64_t h = 14695981039346656037ull ^ al->cfg.hash_seed;
    for (size_t i = 0; i < sizeof key->b; i++) h = (h ^ key->b[i]) * 1099511628211ull;
    return (size_t)(h ^ h >> 32) & al->mask;
}

/* The bucket of e refilled to now. */
static void refill(const address_limits_t *al, entry_t *e, uint64_t now_ms)
{
    if (now_ms > e->tokens_ms) {
        e->tokens = fmin(al->cfg.connect_burst, e->tokens + (double)(now_ms - e->tokens_ms) / 1000.0 * al->cfg.connect_per_s);
        e->tokens_ms = now_ms;
    }
}

/* Forgets failures after a quiet spell. */
static void forget_old_failures(const address_limits_t *al, entry_t *e, uint64_t now_ms)
{
    if (e->failures && now_ms - e->last_failure_ms >= al->cfg.auth_forget_ms) {
        e->failures = 0;
        e->next_guess_ms = 0;
    }
}

/* Whether e holds nothing worth keeping at now. */
static bool forgettable(const address_limits_t *al, entry_t *e, uint64_t now_ms)
{
    if (e->sessions) return false;
    forget_old_failures(al, e, now_ms);
    refill(al, e, now_ms);
    return e->failures == 0 && e->tokens >= al->cfg.connect_burst;
}

static entry_t *find(const address_limits_t *al, const addr_key_t *key)
{
    for (uint32_t i = al->heads[hash_of(al, key)]; i; i = al->entries[i - 1].next)
        if (addr_key_equal(&al->entries[i - 1].key, key)) return &al->entries[i - 1];
    return NULL;
}

/* Takes e (in use) out of its hash chain. */
static void unlink_entry(address_limits_t *al, entry_t *e)
{
    uint32_t self = (uint32_t)(e - al->entries) + 1;
    for (uint32_t *link = &al->heads[hash_of(al, &e->key)]; *link; link = &al->entries[*link - 1].next) {
        if (*link == self) {
            *link = e->next;
            return;
        }
    }
}

/* The entry a new address may take (see the header for the order), or NULL. */
static entry_t *victim(address_limits_t *al, uint64_t now_ms)
{
    if (al->count < al->cfg.capacity) return &al->entries[al->count];
    entry_t *quiet = NULL, *failed = NULL;
    for (size_t k = 0; k < al->cfg.capacity; k++) {
        entry_t *e = &al->entries[(al->hand + k) % al->cfg.capacity];
        if (forgettable(al, e, now_ms)) {
            al->hand = (al->hand + k + 1) % al->cfg.capacity;
            return e;
        }
        if (e->sessions) continue;
        if (e->failures == 0) {
            if (!quiet || e->last_seen_ms < quiet->last_seen_ms) quiet = e;
        } else if (!failed || e->last_failure_ms < failed->last_failure_ms) {
            failed = e;
        }
    }
    return quiet ? quiet : failed;
}

/* key's entry, made (fresh: a full bucket, no failures) if need be; NULL
 * when the table has no room. */
static entry_t *lookup(address_limits_t *al, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = find(al, key);
    if (!e) {
        if (!(e = victim(al, now_ms))) return NULL;
        if (e->used)
            unlink_entry(al, e);
        else
            al->count++;
        size_t h = hash_of(al, key);
        *e = (entry_t){.key = *key, .used = true, .tokens = al->cfg.connect_burst, .tokens_ms = now_ms, .next = al->heads[h]};
        al->heads[h] = (uint32_t)(e - al->entries) + 1;
    }
    e->last_seen_ms = now_ms;
    return e;
}

bool address_limits_connect(address_limits_t *al, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = lookup(al, key, now_ms);
    if (!e) return true;
    refill(al, e, now_ms);
    if (e->tokens < 1.0) return false;
    e->tokens -= 1.0;
    return true;
}

void address_limits_session_opened(address_limits_t *al, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = lookup(al, key, now_ms);
    if (e) e->sessions++;
}

void address_limits_session_closed(address_limits_t *al, const addr_key_t *key)
{
    entry_t *e = find(al, key);
    if (e && e->sessions) e->sessions--;
}

size_t address_limits_sessions(const address_limits_t *al, const addr_key_t *key)
{
    const entry_t *e = find(al, key);
    return e ? e->sessions : 0;
}

uint64_t address_limits_auth_wait(address_limits_t *al, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = lookup(al, key, now_ms);
    if (!e) return al->cfg.auth_delay_ms;
    forget_old_failures(al, e, now_ms);
    return now_ms < e->next_guess_ms ? e->next_guess_ms - now_ms : 0;
}

void address_limits_auth_failed(address_limits_t *al, const addr_key_t *key, uint64_t now_ms)
{
    entry_t *e = lookup(al, key, now_ms);
    if (!e) return;
    forget_old_failures(al, e, now_ms);
    e->failures++;
    e->last_failure_ms = now_ms;
    if (e->failures < al->cfg.auth_free_failures) return;
    /* The first wait after the free ones, doubled per further failure. */
    unsigned doublings = e->failures - al->cfg.auth_free_failures;
    uint64_t delay = al->cfg.auth_delay_max_ms;
    if (doublings < 32 && (al->cfg.auth_delay_ms << doublings) < delay) delay = al->cfg.auth_delay_ms << doublings;
    e->next_guess_ms = now_ms + delay;
}

void address_limits_auth_succeeded(address_limits_t *al, const addr_key_t *key)
{
    entry_t *e = find(al, key);
    if (e) e->failures = 0, e->next_guess_ms = 0;
}

unsigned address_limits_auth_failures(const address_limits_t *al, const addr_key_t *key)
{
    const entry_t *e = find(al, key);
    return e ? e->failures : 0;
}

size_t address_limits_count(const address_limits_t *al) { return al->count; }

/* Whether c should give up its seat before b: a bigger holder first, then
 * idle before busy, then the newer. */
static bool seat_before(const fair_seat_candidate_t *c, const fair_seat_candidate_t *b)
{
    if (c->holder_sessions != b->holder_sessions) return c->holder_sessions > b->holder_sessions;
    if (c->idle != b->idle) return c->idle;
    return c->age < b->age;
}

void fair_seat_consider(fair_seat_pick_t *p, size_t index, const fair_seat_candidate_t *c)
{
    if (p->found && !seat_before(c, &p->best)) return;
    p->found = true;
    p->index = index;
    p->best = *c;
}

bool fair_seat_choose(const fair_seat_pick_t *p, size_t newcomer_sessions, size_t *index)
{
    if (!p->found || newcomer_sessions + 1 >= p->best.holder_sessions) return false;
    *index = p->index;
    return true;
}

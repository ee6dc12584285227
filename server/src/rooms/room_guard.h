/* room_guard: what one address may do with rooms: type wrong codes, and
 * make rooms. Each is a token bucket per address (an IPv4 address, an
 * IPv6 /64: address_limits.h's key): a burst, then a steady rate.
 *
 * Sized for a classroom behind one NAT: a room of 250 where a few mistype
 * their code spends a few of the 30 wrong codes the burst allows and gets
 * in at once; ten groups making their rooms in the same minute spend ten
 * of the 20 creations. A guesser gets 30 wrong codes, then one every 10 s:
 * PROTOCOL.md ("Rooms") has what that means for a live code.
 *
 * The table is fixed in size; a new address takes the entry, among the few
 * it would probe, that was seen longest ago (an address seen since has
 * spent tokens more recently). Plain logic, no I/O, time passed in. */
#ifndef SWARMCAST_ROOM_GUARD_H
#define SWARMCAST_ROOM_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "net/address_limits.h"

typedef struct room_guard_config {
    size_t capacity;           /* addresses remembered */
    double wrong_burst, wrong_per_s;     /* wrong codes */
    double create_burst, create_per_s;   /* rooms made */
    uint64_t hash_seed;
} room_guard_config_t;

/* The defaults above. */
room_guard_config_t room_guard_defaults(void);

typedef struct room_guard room_guard_t;

room_guard_t *room_guard_create(const room_guard_config_t *cfg);
void room_guard_destroy(room_guard_t *g);

/* 0 when key may try a code now, else the milliseconds until it may (it has
 * typed too many wrong ones): a lookup from it waits unread. */
uint64_t room_guard_code_wait(room_guard_t *g, const addr_key_t *key, uint64_t now_ms);
/* A code key tried was wrong: it spends a token. */
void room_guard_code_wrong(room_guard_t *g, const addr_key_t *key, uint64_t now_ms);
/* Whether key may make a room now (the token is spent if so); else *wait_ms
 * says when it may. */
bool room_guard_create_take(room_guard_t *g, const addr_key_t *key, uint64_t now_ms, uint64_t *wait_ms);

#endif

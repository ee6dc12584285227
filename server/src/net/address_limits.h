/* address_limits: what one remote address may do across all its
 * connections, so that reconnecting mints nothing.
 *
 *  - New sessions: a token bucket per address (a burst, then a steady rate).
 *  - Control-token guesses: failed ones are counted per address; past the
 *    first few, each failure makes the address wait before its next guess
 *    (1 s, doubling, up to a ceiling), and guesses before then are refused
 *    without looking at the token. A right token clears the count; a quiet
 *    spell (no failure for auth_forget_ms) forgets it.
 *  - Sessions held now, per address (for --max-per-address), and when the
 *    server is full, which session gives its seat to a newcomer (below).
 *
 * An address is the remote's IPv4 address, or its IPv6 /64: one host owns
 * a whole /64, so cycling through it must gain nothing. Behind a reverse
 * proxy it is the address the proxy reports, when the proxy is trusted
 * (admission.c, forwarded.h); else every visitor has the proxy's.
 *
 * The table is fixed in size. When a new address finds it full, an entry
 * that remembers nothing (bucket full again, no failures, no sessions) is
 * reused; else the least recently seen one without failures or sessions
 * (forgetting it gives back at most a burst of connections); only when
 * every entry has failures or sessions is the one with the oldest failure
 * reused. So an attacker cycling fresh addresses cannot wipe a guesser's
 * record cheaply: it would first have to fill the whole table with
 * addresses of its own that failed, each of them paying for its guesses.
 * Entries with sessions are never reused; the caller sizes the table above
 * its session limit, so that every session's address has an entry.
 *
 * Plain logic, no I/O, time passed in (milliseconds, any monotonic clock). */
#ifndef SWARMCAST_ADDRESS_LIMITS_H
#define SWARMCAST_ADDRESS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* One address as the limits see it: 16 bytes, IPv4 as ::ffff:a.b.c.d,
 * IPv6 with its low 64 bits zeroed. */
typedef struct addr_key {
    uint8_t b[16];
} addr_key_t;

/* The key of a socket address (IPv4, IPv6 or IPv4-mapped IPv6); false for
 * any other family. */
bool addr_key_from_sockaddr(const struct sockaddr *sa, addr_key_t *out);
/* The key of a whole IPv6 address (IPv4 as ::ffff:a.b.c.d). */
void addr_key_from_ip(const uint8_t ip[16], addr_key_t *out);
/* The key of a numeric address ("127.0.0.2", "2001:db8::1"); false if it is
 * not one. */
bool addr_key_parse(const char *text, addr_key_t *out);
bool addr_key_equal(const addr_key_t *a, const addr_key_t *b);

typedef struct address_limits_config {
    size_t capacity;             /* addresses remembered at once */
    double connect_per_s;        /* new sessions per second per address … */
    double connect_burst;        /* … after a burst of this many */
    unsigned auth_free_failures; /* failed guesses before each further one waits */
    uint64_t auth_delay_ms;      /* the first wait, doubled after each further failure … */
    uint64_t auth_delay_max_ms;  /* … up to this */
    uint64_t auth_forget_ms;     /* no failure for this long: the count starts again */
    uint64_t hash_seed;          /* a random number, so that nobody can choose addresses that collide */
} address_limits_config_t;

typedef struct address_limits address_limits_t;

address_limits_t *address_limits_create(const address_limits_config_t *cfg);
void address_limits_destroy(address_limits_t *al);

/* A new session from key: true when its bucket has a token (taken), false
 * when it must wait. An address the table cannot hold (every entry has
 * sessions) is let in: viewers come first, and --max-clients bounds them. */
bool address_limits_connect(address_limits_t *al, const addr_key_t *key, uint64_t now_ms);

/* Sessions key holds now: admitted (+1) and gone (−1). */
void address_limits_session_opened(address_limits_t *al, const addr_key_t *key, uint64_t now_ms);
void address_limits_session_closed(address_limits_t *al, const addr_key_t *key);
size_t address_limits_sessions(const address_limits_t *al, const addr_key_t *key);

/* 0 when key may guess the token now, else the milliseconds until it may.
 * An address the table cannot hold (every entry has sessions) waits
 * auth_delay_ms: unknown is not the same as innocent. */
uint64_t address_limits_auth_wait(address_limits_t *al, const addr_key_t *key, uint64_t now_ms);
/* The outcome of a guess that was compared. */
void address_limits_auth_failed(address_limits_t *al, const addr_key_t *key, uint64_t now_ms);
void address_limits_auth_succeeded(address_limits_t *al, const addr_key_t *key);
/* Failed guesses key has on record (for tests and logs). */
unsigned address_limits_auth_failures(const address_limits_t *al, const addr_key_t *key);

/* Addresses in the table now. */
size_t address_limits_count(const address_limits_t *al);

/* Fair seats: when every seat is taken, a newcomer from an address that
 * holds few sessions takes one from the address that holds the most,
 * rather than being refused (issue 24, goal 6).
 *
 * The biggest holders are the addresses holding the most sessions, b. A
 * newcomer whose address holds a sessions gets a seat only when a + 1 < b:
 * afterwards it holds a + 1 and the loser b − 1, so the newcomer's address
 * never overtakes the one it took from, and two addresses cannot take
 * seats back and forth. The seat is one of a biggest holder's sessions
 * (not one already closing): an idle one (no message for a while) before
 * a busy one, and among those the newest. Busy ones are taken too, last:
 * otherwise a holder could keep every seat by sending a message now and
 * then from each.
 *
 * The caller offers every candidate session (fair_seat_consider, O(1)
 * each, no allocation), then asks for the outcome (fair_seat_choose). */
typedef struct fair_seat_candidate {
    size_t holder_sessions; /* sessions its address holds now */
    bool idle;              /* no message received for the idle time */
    uint64_t age;           /* sessions admitted after it (0: the newest) */
} fair_seat_candidate_t;

typedef struct fair_seat_pick {
    bool found;
    size_t index; /* the caller's index of the best candidate so far */
    fair_seat_candidate_t best;
} fair_seat_pick_t;

/* Offers the candidate at the caller's index (start from a zeroed pick). */
void fair_seat_consider(fair_seat_pick_t *p, size_t index, const fair_seat_candidate_t *c);
/* Whether a newcomer whose address holds newcomer_sessions takes the seat
 * of the candidate at *index. */
bool fair_seat_choose(const fair_seat_pick_t *p, size_t newcomer_sessions, size_t *index);

#endif

/* auth_guess: one control-token guess, as the simulation and a relay take
 * it from their own viewers. Guesses are limited per remote address across
 * connections (net_auth_wait, address_limits.h): one that comes too soon
 * is refused without looking at the token; the others are compared in
 * equal time (policy_token_matches) and their outcome recorded for the
 * address. */
#ifndef SWARMCAST_AUTH_GUESS_H
#define SWARMCAST_AUTH_GUESS_H

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

typedef enum {
    GUESS_RIGHT,
    GUESS_WRONG,
    GUESS_MUST_WAIT, /* not compared: why holds the rate_limited message */
} guess_t;

/* The guess given by the client in slot against the expected token. */
guess_t auth_guess(net_t *n, size_t slot, uint32_t client_id, const char *expected, const char *given, char *why,
                   size_t why_size);

#endif

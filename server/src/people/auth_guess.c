#include "people/auth_guess.h"

#include <stdbool.h>
#include <stdio.h>

#include "people/client_policy.h"

guess_t auth_guess(net_t *n, size_t slot, uint32_t client_id, const char *expected, const char *given, char *why,
                   size_t why_size)
{
    uint64_t wait_ms = net_auth_wait(n, slot, client_id);
    if (wait_ms) {
        /* Whole seconds, rounded up, for the person at the keyboard. */
        snprintf(why, why_size, "too many wrong tokens from your address: try again in %llu s",
                 (unsigned long long)((wait_ms + 999) / 1000));
        return GUESS_MUST_WAIT;
    }
    bool right = policy_token_matches(expected, given);
    net_auth_result(n, slot, client_id, right);
    return right ? GUESS_RIGHT : GUESS_WRONG;
}

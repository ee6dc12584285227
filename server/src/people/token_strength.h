/* token_strength: whether a control token looks guessable, so that the
 * server can say so at start. Simple, documented rules (docs/DEPLOYING.md "Sharing a
 * world with strangers"), none of which makes a token strong by itself:
 * shorter than 16 characters; fewer than 8 distinct characters; one class
 * only (digits, lower- or upper-case letters) under 24 characters; a
 * common word ("password", "secret", "admin", "qwerty", "123456", …) or
 * the project's own name in it; a run of sequential characters ("abcd",
 * "4321") of length 4 or more. A strong one: `openssl rand -base64 18`. */
#ifndef SWARMCAST_TOKEN_STRENGTH_H
#define SWARMCAST_TOKEN_STRENGTH_H

#include <stddef.h>

#define TOKEN_STRONG_MIN_CHARS 16

/* NULL when none of the rules applies, else why the token is weak (a
 * phrase, written into why[size]). */
const char *token_weakness(const char *token, char *why, size_t size);

#endif

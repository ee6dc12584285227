#include "people/token_strength.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Words a guesser tries first; lower case, matched ignoring case. */
static const char *const common_words[] = {
    "password", "passwort", "secret", "admin", "operator", "letmein", "qwerty", "azerty", "123456",
    "token", "changeme", "swarm", "welcome", "default", "master", "iloveyou", "monkey", "dragon",
};

static bool contains_ignoring_case(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0) return true;
    return false;
}

/* The longest run of characters that each step by +1 or each by −1. */
static size_t longest_sequence(const char *t)
{
    size_t best = t[0] ? 1 : 0, run = 1;
    int step = 0;
    for (size_t i = 1; t[i]; i++) {
        int d = (unsigned char)t[i] - (unsigned char)t[i - 1];
        if ((d == 1 || d == -1) && (run == 1 || d == step)) {
            run++;
        } else {
            run = d == 1 || d == -1 ? 2 : 1;
        }
        step = d;
        if (run > best) best = run;
    }
    return best;
}

const char *token_weakness(const char *token, char *why, size_t size)
{
    size_t len = strlen(token);
    if (len < TOKEN_STRONG_MIN_CHARS) {
        snprintf(why, size, "%zu characters, fewer than %d", len, TOKEN_STRONG_MIN_CHARS);
        return why;
    }
    bool seen[256] = {false};
    size_t distinct = 0, digits = 0, lower = 0, upper = 0;
    for (const unsigned char *p = (const unsigned char *)token; *p; p++) {
        if (!seen[*p]) seen[*p] = true, distinct++;
        digits += isdigit(*p) != 0;
        lower += islower(*p) != 0;
        upper += isupper(*p) != 0;
    }
    if (distinct < 8) {
        snprintf(why, size, "only %zu distinct characters", distinct);
        return why;
    }
    const char *only = digits == len ? "digits" : lower == len ? "lower-case letters" : upper == len ? "upper-case letters" : NULL;
    if (only && len < 24) {
        snprintf(why, size, "only %s, and fewer than 24 of them", only);
        return why;
    }
    for (size_t i = 0; i < sizeof common_words / sizeof common_words[0]; i++) {
        if (contains_ignoring_case(token, common_words[i])) {
            snprintf(why, size, "it contains \"%s\"", common_words[i]);
            return why;
        }
    }
    if (longest_sequence(token) >= 4) {
        snprintf(why, size, "a run of sequential characters");
        return why;
    }
    return NULL;
}

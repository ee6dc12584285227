/* fuzz_check: the fuzz targets' invariant check. A broken invariant prints
 * what and where and aborts, which libFuzzer reports as a crash and saves
 * the input. */
#ifndef SWARMCAST_FUZZ_CHECK_H
#define SWARMCAST_FUZZ_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "invariant broken at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A NUL-terminated message within cap bytes, not empty, printable ASCII. */
static inline bool printable_message(const char *s, size_t cap)
{
    size_t n = 0;
    for (; n < cap && s[n]; n++)
        if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e) return false;
    return n > 0 && n < cap;
}

#endif

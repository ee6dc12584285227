/* roff: text as roff source that prints it as it is: backslashes and
 * hyphens escaped, non-ASCII characters as \[uXXXX], and a line never
 * starting with a control character. */
#ifndef SWARMCAST_ROFF_H
#define SWARMCAST_ROFF_H

#include <stdio.h>

/* Writes n bytes of s (UTF-8); newlines are kept as they are. */
void roff_text(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string, its newlines joined by spaces. */
void roff_words(FILE *f, const char *s);

#endif

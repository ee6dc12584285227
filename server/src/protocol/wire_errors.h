/* wire_errors: the codes an "error" reply may carry (PROTOCOL.md, the table
 * under "error"), in one list. The server counts replies by these codes
 * (ops_metrics), and the fuzz targets check every refusal of a decoder has
 * one of them, so a code a decoder starts to use and nobody added here shows
 * up as a failing check rather than as an uncounted, undocumented reply. */
#ifndef SWARMCAST_WIRE_ERRORS_H
#define SWARMCAST_WIRE_ERRORS_H

#include <stddef.h>

#define WIRE_ERROR_CODES 15

/* The k-th code (k < WIRE_ERROR_CODES), e.g. "out_of_range"; NULL past the end. */
const char *wire_error_code(size_t k);
/* The index of code among the codes, or -1 when it is none of them (or NULL). */
int wire_error_index(const char *code);

#endif

#include "protocol/wire_errors.h"

#include <string.h>

/* The order is /metrics' order of swarmcast_command_errors_total: append. */
static const char *const codes[] = {
    "bad_json",  "binary_not_accepted", "unknown_command", "missing_field", "bad_type",
    "out_of_range", "unknown_param",    "not_found",       "limit_reached", "rate_limited",
    "forbidden", "bad_token",           "internal",        "not_paused",    "bad_request",
};
_Static_assert(sizeof codes / sizeof codes[0] == WIRE_ERROR_CODES, "WIRE_ERROR_CODES counts the codes");

const char *wire_error_code(size_t k) { return k < WIRE_ERROR_CODES ? codes[k] : NULL; }

int wire_error_index(const char *code)
{
    for (size_t k = 0; code && k < WIRE_ERROR_CODES; k++)
        if (strcmp(codes[k], code) == 0) return (int)k;
    return -1;
}

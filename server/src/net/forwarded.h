/* forwarded: who a client is, by the word of the reverse proxies in front
 * of the server. For a connection whose peer is a trusted proxy
 * (trusted_proxies.h), the request's X-Forwarded-For, or when it has none
 * its RFC 7239 Forwarded (the for= of each element), lists the addresses
 * the request came through, the client first and each proxy appending the
 * one it saw. Read from the right: an entry that is itself a trusted proxy
 * is skipped, and the first that is not is the client. Anything left of
 * it was written by that client and is never read, so a forged header
 * gains nothing: the nearest trusted proxy appended the address it saw.
 *
 * Plain logic, no I/O: the caller hands in the header values. */
#ifndef SWARMCAST_FORWARDED_H
#define SWARMCAST_FORWARDED_H

#include <stddef.h>

#include "net/trusted_proxies.h"

typedef enum {
    FORWARDED_ABSENT,    /* neither header: the peer (the proxy) is the client */
    FORWARDED_CLIENT,    /* *client is the nearest address that is not a trusted proxy */
    FORWARDED_ALL_TRUSTED, /* every entry is a trusted proxy: *client is the farthest */
    FORWARDED_UNKNOWN,   /* the nearest untrusted entry is "unknown" or obfuscated ("_hidden") */
    FORWARDED_MALFORMED, /* the header does not parse where it was read */
    FORWARDED_OUTCOMES
} forwarded_outcome_t;

/* The client's address from the header values xff (X-Forwarded-For) and
 * forwarded (Forwarded), each NULL or of its length in bytes (several
 * headers of one name joined by commas). X-Forwarded-For wins when both
 * are present: every common proxy writes it, and one that writes it
 * passes a Forwarded from the client through untouched. *client is set
 * for FORWARDED_CLIENT and FORWARDED_ALL_TRUSTED only; for the others the
 * caller keeps the peer's address. */
forwarded_outcome_t forwarded_client(const trusted_proxies_t *trusted, const char *xff, size_t xff_len,
                                     const char *forwarded, size_t forwarded_len, ip_addr_t *client);

/* The outcome's name, for the metrics ("client", "absent", …). */
const char *forwarded_outcome_name(forwarded_outcome_t outcome);

#endif

/* trusted_proxies: the reverse proxies whose word about a client's address
 * is believed (--trusted-proxy CIDR[,CIDR…]). A list of IPv4 and IPv6
 * networks; a bare address is a network of one (/32, /128). Nothing is
 * trusted unless listed.
 *
 * Plain logic, no I/O. */
#ifndef SWARMCAST_TRUSTED_PROXIES_H
#define SWARMCAST_TRUSTED_PROXIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* An IP address, whole: IPv6, or IPv4 as ::ffff:a.b.c.d. */
typedef struct ip_addr {
    uint8_t b[16];
} ip_addr_t;

/* The address of a socket (IPv4, IPv6 or IPv4-mapped IPv6); false for any
 * other family. */
bool ip_addr_from_sockaddr(const struct sockaddr *sa, ip_addr_t *out);
/* A numeric address of exactly len bytes ("192.0.2.7", "2001:db8::1"; no
 * brackets, no port); false if it is not one. */
bool ip_addr_parse(const char *text, size_t len, ip_addr_t *out);

/* Networks listed at most (a proxy or two, a cluster's range or two). */
#define TRUSTED_PROXIES_MAX 32

typedef struct trusted_proxies {
    size_t n;
    struct {
        ip_addr_t net;  /* host bits zeroed */
        unsigned bits;  /* prefix length over the 128 bits (IPv4: 96 + its /n) */
    } nets[TRUSTED_PROXIES_MAX];
} trusted_proxies_t;

/* Parses "CIDR[,CIDR…]" (spaces around items allowed; an empty text or
 * NULL is the empty list). On a bad item: false, and err says which and
 * why. Host bits set under the prefix ("10.0.0.1/8") are an error: the
 * operator meant something else. */
bool trusted_proxies_parse(const char *text, trusted_proxies_t *out, char *err, size_t err_len);
bool trusted_proxies_contain(const trusted_proxies_t *t, const ip_addr_t *ip);

#endif

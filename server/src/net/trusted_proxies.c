/* trusted_proxies: parsing and matching of --trusted-proxy's networks. */
#include "net/trusted_proxies.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static void from_v4(const uint8_t v4[4], ip_addr_t *out)
{
    memcpy(out->b, v4_mapped_prefix, 12);
    memcpy(out->b + 12, v4, 4);
}

static bool is_v4(const ip_addr_t *ip) { return memcmp(ip->b, v4_mapped_prefix, 12) == 0; }

bool ip_addr_from_sockaddr(const struct sockaddr *sa, ip_addr_t *out)
{
    if (sa->sa_family == AF_INET) {
        from_v4((const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr, out);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(out->b, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr, 16);
        return true;
    }
    return false;
}

bool ip_addr_parse(const char *text, size_t len, ip_addr_t *out)
{
    char buf[INET6_ADDRSTRLEN];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    uint8_t raw[16];
    if (inet_pton(AF_INET, buf, raw) == 1) {
        from_v4(raw, out);
        return true;
    }
    if (inet_pton(AF_INET6, buf, raw) == 1) {
        memcpy(out->b, raw, 16);
        return true;
    }
    return false;
}

/* Whether a and b agree on their first bits bits. */
static bool same_prefix(const ip_addr_t *a, const ip_addr_t *b, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(a->b, b->b, whole) != 0) return false;
    if (!rest) return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (a->b[whole] & mask) == (b->b[whole] & mask);
}

/* One item, "ADDR" or "ADDR/BITS", of len bytes. */
static bool parse_item(const char *item, size_t len, ip_addr_t *net, unsigned *bits, const char **why)
{
    const char *slash = memchr(item, '/', len);
    size_t addr_len = slash ? (size_t)(slash - item) : len;
    if (!ip_addr_parse(item, addr_len, net)) {
        *why = "not an IPv4 or IPv6 address";
        return false;
    }
    unsigned max = is_v4(net) ? 32 : 128;
    unsigned prefix = max;
    if (slash) {
        const char *p = slash + 1, *end = item + len;
        if (p == end || end - p > 3) {
            *why = "the prefix length must be a number";
            return false;
        }
        prefix = 0;
        for (; p < end; p++) {
            if (*p < '0' || *p > '9') {
                *why = "the prefix length must be a number";
                return false;
            }
            prefix = prefix * 10 + (unsigned)(*p - '0');
        }
        if (prefix > max) {
            *why = max == 32 ? "an IPv4 prefix is at most /32" : "an IPv6 prefix is at most /128";
            return false;
        }
    }
    *bits = (max == 32 ? 96 : 0) + prefix;
    ip_addr_t masked = {{0}};
    memcpy(masked.b, net->b, *bits / 8);
    if (*bits % 8) masked.b[*bits / 8] = (uint8_t)(net->b[*bits / 8] & (0xff << (8 - *bits % 8)));
    if (memcmp(masked.b, net->b, 16) != 0) {
        *why = "it has bits set below its prefix (write the network's first address)";
        return false;
    }
    return true;
}

bool trusted_proxies_parse(const char *text, trusted_proxies_t *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (!text) return true;
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *end = p;
        while (*end && *end != ',') end++;
        const char *last = end;
        while (last > p && last[-1] == ' ') last--;
        size_t len = (size_t)(last - p);
        const char *why = NULL;
        if (out->n == TRUSTED_PROXIES_MAX) why = "too many networks (at most 32)";
        else if (parse_item(p, len, &out->nets[out->n].net, &out->nets[out->n].bits, &why)) out->n++;
        if (why) {
            snprintf(err, err_len, "\"%.*s\": %s", (int)(len > 64 ? 64 : len), p, why);
            return false;
        }
        p = end;
    }
    return true;
}

bool trusted_proxies_contain(const trusted_proxies_t *t, const ip_addr_t *ip)
{
    for (size_t i = 0; i < t->n; i++)
        if (same_prefix(&t->nets[i].net, ip, t->nets[i].bits)) return true;
    return false;
}

/* forwarded: X-Forwarded-For and Forwarded, read from the right. */
#include "net/forwarded.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* What one entry of the list says. */
typedef enum { NODE_ADDR, NODE_UNKNOWN, NODE_BAD } node_kind_t;

static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* A port: 1 to 5 digits up to 65535, or RFC 7239's obfuscated one ("_x"). */
static bool port_ok(const char *p, size_t len)
{
    if (len == 0) return false;
    if (p[0] == '_') return true;
    if (len > 5) return false;
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)p[i])) return false;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    return v <= 65535;
}

/* A node as proxies write it, of len bytes: "192.0.2.7", "192.0.2.7:4711",
 * "2001:db8::1" (bare, X-Forwarded-For only: the colons say it is no
 * IPv4 with a port), "[2001:db8::1]", "[2001:db8::1]:4711"; "unknown" and
 * RFC 7239's obfuscated identifiers ("_hidden", "_x:_port") are known to
 * be no address. */
static node_kind_t parse_node(const char *p, size_t len, ip_addr_t *out)
{
    while (len && is_space(*p)) p++, len--;
    while (len && is_space(p[len - 1])) len--;
    if (len == 0) return NODE_BAD;
    if ((len == 7 && strncasecmp(p, "unknown", 7) == 0) || p[0] == '_') return NODE_UNKNOWN;
    size_t addr_len = len;
    if (p[0] == '[') {
        const char *close = memchr(p, ']', len);
        if (!close) return NODE_BAD;
        addr_len = (size_t)(close - p - 1);
        p++;
        size_t after = len - addr_len - 2;
        if (after) {
            if (close[1] != ':') return NODE_BAD;
            const char *port = close + 2;
            if (!ip_addr_parse(p, addr_len, out)) return NODE_BAD;
            /* An address that is not IPv6 has no business in brackets. */
            if (memchr(p, ':', addr_len) == NULL) return NODE_BAD;
            return port_ok(port, after - 1) ? NODE_ADDR : NODE_BAD;
        }
        return ip_addr_parse(p, addr_len, out) && memchr(p, ':', addr_len) ? NODE_ADDR : NODE_BAD;
    }
    const char *colon = memchr(p, ':', len);
    if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - p)) == NULL) {
        /* One colon: IPv4 and a port. */
        addr_len = (size_t)(colon - p);
        if (!port_ok(colon + 1, len - addr_len - 1) || memchr(p, '.', addr_len) == NULL) return NODE_BAD;
    }
    return ip_addr_parse(p, addr_len, out) ? NODE_ADDR : NODE_BAD;
}

/* Entries kept while a header is read left to right: the newest this many
 * (a chain of proxies longer than this is no chain of ours). */
#define NODES_KEPT 32

typedef struct nodes {
    node_kind_t kind[NODES_KEPT];
    ip_addr_t addr[NODES_KEPT];
    size_t count; /* entries seen; the last min(count, NODES_KEPT) are kept */
} nodes_t;

static void keep(nodes_t *n, const char *p, size_t len)
{
    size_t i = n->count++ % NODES_KEPT;
    n->kind[i] = parse_node(p, len, &n->addr[i]);
}

/* X-Forwarded-For: nodes separated by commas. */
static void read_xff(const char *h, size_t len, nodes_t *n)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || h[i] == ',') {
            keep(n, h + start, i - start);
            start = i + 1;
        }
    }
}

static bool is_tchar(char c)
{
    return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Forwarded (RFC 7239 4): elements separated by commas, each pairs
 * "name=value" separated by semicolons, a value a token or a quoted
 * string. Each element contributes its for= node (an element without one
 * is a bad node: it names no one). False when the syntax breaks (then the
 * whole header is malformed: past a broken quote no comma can be trusted
 * to separate elements). Node text is at most 64 bytes after unquoting. */
static bool read_forwarded(const char *h, size_t len, nodes_t *n)
{
    size_t i = 0;
    for (;;) {
        char node[64];
        size_t node_len = 0;
        bool has_for = false, node_too_long = false;
        for (;;) { /* the pairs of one element */
            while (i < len && is_space(h[i])) i++;
            size_t name = i;
            while (i < len && is_tchar(h[i])) i++;
            size_t name_len = i - name;
            if (name_len == 0 || i == len || h[i] != '=') return false;
            i++;
            bool is_for = name_len == 3 && strncasecmp(h + name, "for", 3) == 0;
            if (is_for && has_for) return false; /* a parameter appears once per element */
            char value[64];
            size_t value_len = 0;
            bool too_long = false;
            if (i < len && h[i] == '"') {
                for (i++;; i++) {
                    if (i == len) return false;
                    char c = h[i];
                    if (c == '"') break;
                    if (c == '\\') {
                        if (++i == len) return false;
                        c = h[i];
                    }
                    if (value_len < sizeof value) value[value_len++] = c;
                    else too_long = true;
                }
                i++;
            } else {
                size_t v = i;
                while (i < len && is_tchar(h[i])) i++;
                if (i == v) return false;
                value_len = i - v;
                if (value_len > sizeof value) too_long = true;
                else memcpy(value, h + v, value_len);
            }
            if (is_for) {
                has_for = true;
                node_too_long = too_long;
                memcpy(node, value, too_long ? 0 : value_len);
                node_len = too_long ? 0 : value_len;
            }
            while (i < len && is_space(h[i])) i++;
            if (i < len && h[i] == ';') {
                i++;
                continue;
            }
            break;
        }
        if (has_for && !node_too_long) keep(n, node, node_len);
        else keep(n, "", 0);
        if (i == len) return true;
        if (h[i] != ',') return false;
        i++;
    }
}

forwarded_outcome_t forwarded_client(const trusted_proxies_t *trusted, const char *xff, size_t xff_len,
                                     const char *forwarded, size_t forwarded_len, ip_addr_t *client)
{
    nodes_t n;
    n.count = 0;
    if (xff) read_xff(xff, xff_len, &n);
    else if (forwarded) {
        if (!read_forwarded(forwarded, forwarded_len, &n)) return FORWARDED_MALFORMED;
    } else return FORWARDED_ABSENT;
    size_t kept = n.count < NODES_KEPT ? n.count : NODES_KEPT;
    for (size_t k = 0; k < kept; k++) {
        size_t i = (n.count - 1 - k) % NODES_KEPT;
        if (n.kind[i] == NODE_BAD) return FORWARDED_MALFORMED;
        if (n.kind[i] == NODE_UNKNOWN) return FORWARDED_UNKNOWN;
        if (!trusted_proxies_contain(trusted, &n.addr[i])) {
            *client = n.addr[i];
            return FORWARDED_CLIENT;
        }
    }
    /* Only trusted proxies: the farthest of them is the one the request
     * came from. */
    *client = n.addr[(n.count - kept) % NODES_KEPT];
    return FORWARDED_ALL_TRUSTED;
}

const char *forwarded_outcome_name(forwarded_outcome_t outcome)
{
    static const char *const names[FORWARDED_OUTCOMES] = {"absent", "client", "all_trusted", "unknown", "malformed"};
    return outcome < FORWARDED_OUTCOMES ? names[outcome] : "?";
}

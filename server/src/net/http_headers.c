#include "net/http_headers.h"

#include <stdio.h>
#include <string.h>

/* The policy libwebsockets 4.1's best-practices option sent, split where
 * frame-ancestors goes (spacing and all, so that nothing else changes). */
#define CSP_BEFORE                                                                                    \
    "default-src 'none'; img-src 'self' data: ; script-src 'self'; font-src 'self'; style-src 'self'; " \
    "connect-src 'self' ws: wss:; frame-ancestors "
#define CSP_AFTER "; base-uri 'none';form-action 'self';"

static bool is_host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

static bool is_hex_or_colon(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
}

/* One origin, s[0..len): scheme://host[:port], nothing after. */
static bool origin_valid(const char *s, size_t len)
{
    size_t i;
    if (len > 8 && strncmp(s, "https://", 8) == 0)
        i = 8;
    else if (len > 7 && strncmp(s, "http://", 7) == 0)
        i = 7;
    else
        return false;
    size_t host_start = i;
    if (s[i] == '[') { /* an IPv6 literal */
        i++;
        while (i < len && is_hex_or_colon(s[i])) i++;
        if (i >= len || s[i] != ']' || i == host_start + 1) return false;
        i++;
    } else {
        while (i < len && is_host_char(s[i])) i++;
        if (i == host_start || s[host_start] == '.' || s[host_start] == '-') return false;
    }
    if (i == len) return true;
    if (s[i] != ':') return false;
    i++;
    size_t digits = 0;
    unsigned long port = 0;
    for (; i < len; i++, digits++) {
        if (s[i] < '0' || s[i] > '9' || digits >= 5) return false;
        port = port * 10 + (unsigned long)(s[i] - '0');
    }
    return digits > 0 && port >= 1 && port <= 65535;
}

bool http_frame_origins_valid(const char *list)
{
    if (!list || !*list || strlen(list) > HTTP_ALLOW_FRAME_MAX) return false;
    size_t count = 0;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!origin_valid(p, len) || ++count > HTTP_ALLOW_FRAME_ORIGINS) return false;
        if (!comma) return true;
        p = comma + 1;
    }
}

bool http_public_url_valid(const char *url)
{
    if (!url) return false;
    size_t len = strlen(url);
    if (len > HTTP_PUBLIC_URL_MAX) return false;
    size_t host;
    if (strncmp(url, "https://", 8) == 0)
        host = 8;
    else if (strncmp(url, "http://", 7) == 0)
        host = 7;
    else
        return false;
    if (host >= len || strchr("/?#:@", url[host])) return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)url[i];
        /* Printable ASCII (a URL's non-ASCII is percent-encoded), without
         * what a URL never holds unescaped. */
        if (c <= 0x20 || c >= 0x7f || strchr("\"<>\\^`{|}", c)) return false;
    }
    return true;
}

int http_csp_format(char *out, size_t cap, const char *allow_frame)
{
    size_t pos = 0;
    int n = snprintf(out, cap, "%s", CSP_BEFORE);
    if (n < 0 || (size_t)n >= cap) return -1;
    pos = (size_t)n;
    if (!allow_frame) {
        n = snprintf(out + pos, cap - pos, "'none'");
        if (n < 0 || (size_t)n >= cap - pos) return -1;
        pos += (size_t)n;
    } else {
        /* The list's commas become the spaces between CSP sources. */
        for (const char *p = allow_frame; *p; p++) {
            if (pos + 1 >= cap) return -1;
            out[pos++] = *p == ',' ? ' ' : *p;
        }
        out[pos] = '\0';
    }
    n = snprintf(out + pos, cap - pos, "%s", CSP_AFTER);
    if (n < 0 || (size_t)n >= cap - pos) return -1;
    return (int)(pos + (size_t)n);
}

const struct lws_protocol_vhost_options *http_headers_build(http_headers_t *h, const char *allow_frame)
{
    if (allow_frame && !http_frame_origins_valid(allow_frame)) return NULL;
    if (http_csp_format(h->csp, sizeof h->csp, allow_frame) < 0) return NULL;
    /* Names end with ':' (libwebsockets writes them as they are); the
     * order is the one libwebsockets used. */
    size_t n = 0;
    h->opt[n++] = (struct lws_protocol_vhost_options){.name = "content-security-policy:", .value = h->csp};
    h->opt[n++] = (struct lws_protocol_vhost_options){.name = "x-content-type-options:", .value = "nosniff"};
    h->opt[n++] = (struct lws_protocol_vhost_options){.name = "x-xss-protection:", .value = "1; mode=block"};
    /* X-Frame-Options names no site: with sites allowed, CSP alone says which. */
    if (!allow_frame) h->opt[n++] = (struct lws_protocol_vhost_options){.name = "x-frame-options:", .value = "deny"};
    h->opt[n++] = (struct lws_protocol_vhost_options){.name = "referrer-policy:", .value = "no-referrer"};
    for (size_t i = 0; i + 1 < n; i++) h->opt[i].next = &h->opt[i + 1];
    h->opt[n - 1].next = NULL;
    return &h->opt[0];
}

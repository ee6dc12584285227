/* http_headers: the security headers every HTTP response carries (pages,
 * files, /healthz, /metrics, errors), for the simulation and the relay
 * alike, and the checks on the two settings that shape what a page may do
 * elsewhere: --allow-frame (the sites that may show it in an <iframe>) and
 * --public-url (the address the presenter's QR code names).
 *
 * They are the headers libwebsockets' "best practices" option sent (a
 * strict Content-Security-Policy, nosniff, no referrer, X-Frame-Options),
 * kept byte for byte, except that frame-ancestors names the allowed sites
 * instead of 'none' and X-Frame-Options (which cannot name several sites)
 * is then left out: two CSP headers are both enforced, so the option's own
 * could not be loosened by adding another. */
#ifndef SWARMCAST_HTTP_HEADERS_H
#define SWARMCAST_HTTP_HEADERS_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest --allow-frame list and --public-url, in bytes. */
#define HTTP_ALLOW_FRAME_MAX 1024
#define HTTP_PUBLIC_URL_MAX 512
/* Most origins in --allow-frame. */
#define HTTP_ALLOW_FRAME_ORIGINS 16

/* "http(s)://host[:port]" (lower-case scheme, no path, no user, no
 * trailing slash), comma-separated, at most HTTP_ALLOW_FRAME_ORIGINS of
 * them, every one a valid origin. */
bool http_frame_origins_valid(const char *list);
/* An http:// or https:// URL with a host, of printable ASCII only (no
 * space, quote, angle bracket or backslash), at most HTTP_PUBLIC_URL_MAX
 * bytes. */
bool http_public_url_valid(const char *url);

#define HTTP_HEADERS_COUNT 5
#define HTTP_CSP_MAX (256 + HTTP_ALLOW_FRAME_MAX)

/* The list handed to libwebsockets (info.headers); it must stay where it
 * is while the context lives. */
typedef struct http_headers {
    struct lws_protocol_vhost_options opt[HTTP_HEADERS_COUNT];
    char csp[HTTP_CSP_MAX];
} http_headers_t;

/* The Content-Security-Policy, with frame-ancestors from allow_frame (a
 * valid list, or NULL for 'none'). Returns its length, or -1 if it does
 * not fit in cap. */
int http_csp_format(char *out, size_t cap, const char *allow_frame);
/* Fills h and returns its first header (for info.headers), or NULL when
 * allow_frame is not a valid list. */
const struct lws_protocol_vhost_options *http_headers_build(http_headers_t *h, const char *allow_frame);

#endif

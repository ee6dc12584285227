/* room_page: GET /r/CODE is the page itself (index.html), so that a room's
 * address can be read aloud, typed and put in a QR code; the page reads the
 * code from its own address and asks for that room (PROTOCOL.md "Rooms").
 * Anything deeper under /r/ is not a page: 404. The code is not checked
 * here: the page learns "no such room" from the WebSocket (4404), the one
 * place where wrong codes are counted. */
#include <string.h>

#include "net/net_internal.h"

int room_page_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    if (reason != LWS_CALLBACK_HTTP) return lws_callback_http_dummy(wsi, reason, user, in, len);
    /* in: the path after the mount point, "/CODE" (lws 4.1 passes the
     * whole path, "/r/CODE", through some mounts: take either). */
    const char *rest = in;
    if (rest && !strncmp(rest, "/r/", 3)) rest += 2;
    size_t n = rest ? strnlen(rest, 64) : 0;
    bool one_segment = n > 1 && n < 64 && rest[0] == '/' && !memchr(rest + 1, '/', n - 1) && !memchr(rest, '.', n);
    if (!one_segment) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "a room's page is /r/CODE");
        return -1;
    }
    net_t *net = net_of(wsi);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/index.html", net->web_root);
    /* The page's own headers (the security ones) come from the vhost. */
    int rc = lws_serve_http_file(wsi, path, "text/html", NULL, 0);
    return rc < 0 || (rc > 0 && lws_http_transaction_completed(wsi)) ? -1 : 0;
}

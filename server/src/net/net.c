/* net: the libwebsockets context on the caller's libuv loop, from set-up
 * to shutdown: what serves which path (static files, the swarmcast.v1 and
 * .v2 WebSocket and a bare /healthz on the public vhost; /metrics and the
 * detailed /healthz on the operations vhost, --metrics-listen), the
 * WebSocket callback that hands each event to the file that deals with it
 * (admission.c, receive.c, fanout.c), the closing of a session, and the
 * server's shutdown. The contract with the application is net.h; the map
 * of the files is net_internal.h. Loop thread only. */
#include "net/net.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/http_headers.h"
#include "net/net_internal.h"
#include "protocol/utf8.h"

/* SIGTERM must end the process within a second: clients get this long to
 * answer the close. */
#define SHUTDOWN_GRACE_MS 500
#define SHUTDOWN_POLL_MS 10
/* The most one send() may carry (the protocols' tx_packet_size): a whole
 * frame at once. Without it lws 4.1 sends at most rx_buffer_size bytes at a
 * time, so every frame over 4 KiB (keys, v1 frames) cost a second write and
 * a second trip through the poll. */
#define TX_PACKET_BYTES SESSION_SNDBUF_BYTES
/* Seconds libwebsockets gives a connection to finish its HTTP request or
 * upgrade: half-open connections do not linger. */
#define HANDSHAKE_TIMEOUT_S 10

/* Starts the closing handshake with code and reason. libwebsockets sends
 * the close frame itself (once it has flushed what it holds) and waits for
 * the peer's answer, so the peer reads everything sent before it: closing
 * the socket at once would reset it and lose the close frame whenever the
 * peer had sent more than was read. Its close flow must start outside a
 * WRITEABLE callback (from there lws 4.1 drops the reason), hence the
 * timer: LWS_CALLBACK_TIMER returns -1 on the loop's next turn. */
void net_begin_close(net_t *n, session_t *s, int code, const char *reason)
{
    if (s->closing) return;
    s->closing = true;
    s->close_code = code;
    s->close_started_ms = now_ms(n);
    /* A close frame's reason is UTF-8 of at most 123 bytes (RFC 6455 5.5,
     * 7.1.6): cut between characters, or the peer fails the connection. */
    char why[124];
    text_copy(why, sizeof why, reason, strlen(reason));
    lws_close_reason(s->wsi, (enum lws_close_status)code, (unsigned char *)why, strlen(why));
    /* The peer's answer must be read (what else it sends is dropped). */
    if (s->reading_paused) lws_rx_flow_control(s->wsi, 1);
    lws_set_timer_usecs(s->wsi, 1);
    /* Wakes the service, which re-arms its timer for the new deadline
     * (otherwise it fires when lws's previous deadline comes). */
    lws_cancel_service(n->ctx);
}

/* Drops the connection without a close frame: for a peer that reads
 * nothing, there is no way to deliver one. */
void net_cut_off(session_t *s)
{
    lws_set_timeout(s->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Every event of a WebSocket connection, handed to the file that deals with
 * it; an HTTP request goes to the static files' mount. */
static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    session_t *s = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return net_on_filter(net_of(wsi), s, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return net_on_established(net_of(wsi), s, wsi);
    case LWS_CALLBACK_CLOSED:
        net_on_closed(net_of(wsi), s);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return s && s->established ? net_on_receive(net_of(wsi), s, wsi, in, len) : -1;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (s && s->established) s->last_rx_ms = now_ms(net_of(wsi));
        return 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* The peer's own code, for the close statistics. */
        if (s && s->established) s->peer_closing = true;
        if (s && s->established && !s->close_code && len >= 2)
            s->close_code = ((const uint8_t *)in)[0] << 8 | ((const uint8_t *)in)[1];
        return 0;
    case LWS_CALLBACK_TIMER:
        /* net_begin_close's: now libwebsockets' close flow may start, once it
         * holds no part of an earlier frame: with output still buffered,
         * lws 4.1 flushes it and then drops the socket without a close
         * frame. Nothing new is written meanwhile, so the wait is short (a
         * peer that reads nothing is cut off by the sweep). */
        if (!s || !s->established || !s->closing) return 0;
        if (lws_partial_buffered(wsi)) {
            lws_set_timer_usecs(wsi, 10000);
            return 0;
        }
        return -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return s && s->established ? net_on_writeable(net_of(wsi), s, wsi) : 0;
    default:
        /* Static files are served by the mount through the default handler. */
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

/* ---- set-up and the public interface -------------------------------------- */

/* The operations listener: a second vhost of the same context on
 * cfg.metrics_bind:metrics_port, serving /metrics and the detailed
 * /healthz (and 404 for anything else; the first protocol answers what no
 * mount does). 0, or -1 when it cannot listen. */
static int ops_vhost_create(net_t *n, const struct lws_context_creation_info *public_info)
{
    n->ops_protocols[0] = (struct lws_protocols){
        .name = "swarmcast-ops",
        .callback = ops_not_found_callback,
    };
    n->ops_protocols[1] = (struct lws_protocols){
        .name = "swarmcast-health-detail",
        .callback = health_detail_callback,
        .per_session_data_size = sizeof(http_reply_t),
    };
    n->ops_protocols[2] = (struct lws_protocols){
        .name = "swarmcast-metrics",
        .callback = metrics_callback,
        .per_session_data_size = sizeof(http_reply_t),
    };
    n->mount_ops_metrics = (struct lws_http_mount){
        .mountpoint = "/metrics",
        .mountpoint_len = 8,
        .origin = "swarmcast-metrics",
        .origin_protocol = LWSMPRO_CALLBACK,
    };
    n->mount_ops_health = (struct lws_http_mount){
        .mount_next = &n->mount_ops_metrics,
        .mountpoint = "/healthz",
        .mountpoint_len = 8,
        .origin = "swarmcast-health-detail",
        .origin_protocol = LWSMPRO_CALLBACK,
    };
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = public_info->options & ~LWS_SERVER_OPTION_DISABLE_IPV6;
    struct in_addr v4;
    if (inet_pton(AF_INET, n->cfg.metrics_bind, &v4) == 1) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.port = n->cfg.metrics_port;
    info.iface = n->cfg.metrics_bind;
    info.protocols = n->ops_protocols;
    info.mounts = &n->mount_ops_health;
    info.vhost_name = "operations";
    info.headers = public_info->headers; /* the same security headers as the public face */
    info.timeout_secs = HANDSHAKE_TIMEOUT_S;
    struct lws_vhost *vh = lws_create_vhost(n->ctx, &info);
    if (!vh) {
        lwsl_err("cannot listen for /metrics on %s:%d\n", n->cfg.metrics_bind, n->cfg.metrics_port);
        return -1;
    }
    n->metrics_port = lws_get_vhost_listen_port(vh);
    return 0;
}

net_t *net_create(uv_loop_t *loop, const net_config_t *cfg, const net_callbacks_t *cb)
{
    net_t *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->loop = loop;
    n->cfg = *cfg;
    n->cb = *cb;
    if (!realpath(cfg->web_root, n->web_root)) {
        lwsl_err("web root %s not found\n", cfg->web_root);
        free(n);
        return NULL;
    }
    n->cfg.web_root = n->web_root;
    if (!n->cfg.channels) n->cfg.channels = 1;
    n->slots = calloc(cfg->max_clients, sizeof *n->slots);
    n->channels = calloc(n->cfg.channels, sizeof *n->channels);
    n->limits = net_limits_create(cfg);
    if (!n->slots || !n->channels || !n->limits) {
        address_limits_destroy(n->limits);
        free(n->channels);
        free(n->slots);
        free(n);
        return NULL;
    }

    /* v1 comes first: it is also the one a client that names no
     * subprotocol gets (v1 frames, exactly as before v2). */
    n->protocols[0] = (struct lws_protocols){
        .name = "swarmcast.v1",
        .callback = ws_callback,
        .per_session_data_size = sizeof(session_t),
        .rx_buffer_size = 4096,
        .tx_packet_size = TX_PACKET_BYTES,
    };
    n->protocols[1] = (struct lws_protocols){
        .name = "swarmcast.v2",
        .callback = ws_callback,
        .per_session_data_size = sizeof(session_t),
        .rx_buffer_size = 4096,
        .tx_packet_size = TX_PACKET_BYTES,
    };
    n->protocols[2] = (struct lws_protocols){
        .name = "swarmcast-health",
        .callback = health_callback,
        .per_session_data_size = sizeof(http_reply_t),
    };
    n->protocols[3] = (struct lws_protocols){
        .name = "swarmcast-room-page",
        .callback = room_page_callback,
    };
    n->mount_room_page = (struct lws_http_mount){
        .mountpoint = "/r",
        .mountpoint_len = 2,
        .origin = "swarmcast-room-page",
        .origin_protocol = LWSMPRO_CALLBACK,
    };
    n->mount_health = (struct lws_http_mount){
        .mount_next = &n->mount_room_page,
        .mountpoint = "/healthz",
        .mountpoint_len = 8,
        .origin = "swarmcast-health",
        .origin_protocol = LWSMPRO_CALLBACK,
    };
    /* ES modules published as .mjs (the QR code library): libwebsockets 4.1
     * knows no type for them and answers 415; a module needs a JavaScript
     * type (nosniff). */
    static const struct lws_protocol_vhost_options module_type = {NULL, NULL, ".mjs", "text/javascript"};
    n->mount_files = (struct lws_http_mount){
        .mount_next = &n->mount_health,
        .mountpoint = "/",
        .mountpoint_len = 1,
        .origin = n->web_root,
        .def = "index.html",
        .origin_protocol = LWSMPRO_FILE,
        .extra_mimetypes = &module_type,
    };

    void *loops[] = {loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    /* UTF-8 is checked by net_on_receive (receive.c), not by libwebsockets (see utf8.h).
     * The security headers are our own list (http_headers.h), not
     * LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE's:
     * its CSP forbids every frame and a second CSP could not loosen it. */
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.headers = http_headers_build(&n->headers, cfg->allow_frame);
    if (!info.headers) {
        lwsl_err("bad --allow-frame list\n");
        address_limits_destroy(n->limits);
        free(n->channels);
        free(n->slots);
        free(n);
        return NULL;
    }
    info.foreign_loops = loops; /* ignored without LWS_SERVER_OPTION_LIBUV */
    /* lws 4.1 with IPv6 on binds an IPv4 address as "all interfaces" (lws
     * issue 2290); an IPv4 bind address must use an IPv4-only socket. */
    struct in_addr v4;
    if (inet_pton(AF_INET, cfg->bind, &v4) == 1) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.port = cfg->port;
    info.iface = cfg->bind;
    info.protocols = n->protocols;
    /* permessage-deflate, when asked for (--deflate) and the client offers
     * it: each connection compresses its own frames (CPU per viewer). */
    static const struct lws_extension deflate_extensions[] = {
        {"permessage-deflate", lws_extension_callback_pm_deflate,
         "permessage-deflate; client_no_context_takeover; client_max_window_bits"},
        {NULL, NULL, NULL},
    };
    if (cfg->deflate) info.extensions = deflate_extensions;
    info.mounts = &n->mount_files;
    info.vhost_name = "default";
    info.timeout_secs = HANDSHAKE_TIMEOUT_S;
    info.user = n;
    n->ctx = lws_create_context(&info);
    /* The context can be made while its default vhost is not (the port is
     * taken: "Failed to create default vhost"); there is no port to serve. */
    struct lws_vhost *vh = n->ctx ? lws_get_vhost_by_name(n->ctx, "default") : NULL;
    if (!vh) {
        if (n->ctx) {
            lwsl_err("cannot listen on %s:%d\n", cfg->bind, cfg->port);
            lws_context_destroy(n->ctx);
        }
        address_limits_destroy(n->limits);
        free(n->channels);
        free(n->slots);
        free(n);
        return NULL;
    }
    n->port = lws_get_vhost_listen_port(vh);
    n->metrics_port = -1;
    if (cfg->metrics_port >= 0 && ops_vhost_create(n, &info)) {
        lws_context_destroy(n->ctx);
        address_limits_destroy(n->limits);
        free(n->channels);
        free(n->slots);
        free(n);
        return NULL;
    }
    net_keepalive_start(n);
    return n;
}

int net_port(const net_t *n) { return n->port; }
int net_metrics_port(const net_t *n) { return n->metrics_port; }
size_t net_client_count(const net_t *n) { return n->n_clients; }
size_t net_headroom(void) { return LWS_PRE; }

void net_close(net_t *n, size_t slot, uint32_t client_id, int code, const char *reason)
{
    session_t *s = net_find(n, slot, client_id);
    if (s) net_begin_close(n, s, code, reason);
}

size_t net_protocol_count(const net_t *n, int protocol) { return protocol == 1 || protocol == 2 ? n->n_protocol[protocol] : 0; }

size_t net_channel_protocol_count(const net_t *n, size_t channel, int protocol)
{
    return channel < n->cfg.channels && (protocol == 1 || protocol == 2) ? n->channels[channel].n_protocol[protocol] : 0;
}

void net_close_channel(net_t *n, size_t channel, int code, const char *reason)
{
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i] && n->slots[i]->channel == channel) net_begin_close(n, n->slots[i], code, reason);
}

static void shutdown_timer_closed(uv_handle_t *h)
{
    net_t *n = h->data;
    /* lws closes its own handles from here; the caller's loop then ends. */
    lws_context_destroy(n->ctx);
    if (n->shutdown_done) n->shutdown_done(n->shutdown_arg);
}

static void shutdown_poll(uv_timer_t *t)
{
    net_t *n = t->data;
    if (n->n_clients && uv_now(t->loop) - n->shutdown_started < SHUTDOWN_GRACE_MS) return;
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, shutdown_timer_closed);
}

void net_shutdown(net_t *n, void (*done)(void *arg), void *arg)
{
    if (n->shutting_down) return;
    n->shutting_down = true;
    n->shutdown_done = done;
    n->shutdown_arg = arg;
    net_keepalive_stop(n);
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i]) net_begin_close(n, n->slots[i], LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
    uv_timer_init(n->loop, &n->shutdown_timer);
    n->shutdown_timer.data = n;
    n->shutdown_started = uv_now(n->loop);
    uv_timer_start(&n->shutdown_timer, shutdown_poll, 0, SHUTDOWN_POLL_MS);
}

void net_destroy(net_t *n)
{
    if (!n) return;
    /* With a foreign loop, lws 4.1 finishes freeing the context on a second
     * destroy, after the loop has run out (see NOTES-libwebsockets.md). */
    lws_context_destroy(n->ctx);
    for (size_t c = 0; n->channels && c < n->cfg.channels; c++)
        for (size_t k = 0; k < NET_LATEST_KEYS; k++) free(n->channels[c].latest[k].buf);
    free(n->channels);
    address_limits_destroy(n->limits);
    free(n->slots);
    free(n);
}

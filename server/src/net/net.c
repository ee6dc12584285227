#include "net/net.h"

#include <arpa/inet.h>
#include <libwebsockets.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A client's pending text messages. Past PAUSE_READING its commands are no
 * longer read (TCP back-pressure) until the outbox drains to RESUME_READING;
 * a client that lets it fill completely is not reading at all and is closed. */
#define OUTBOX_CAP 64
#define OUTBOX_PAUSE_READING 32
#define OUTBOX_RESUME_READING 8
#define SHUTDOWN_GRACE_MS 1000
/* RFC 6455 registry code 1013, which lws 4.1 has no name for. */
#define CLOSE_TRY_AGAIN_LATER 1013
/* lws writes close frames with write protocol 4 (LWS_WRITE_CLOSE in its
 * private headers; the public enum leaves the value in place for it). */
#define WRITE_CLOSE_FRAME ((enum lws_write_protocol)4)
#define SHUTDOWN_POLL_MS 10

typedef struct outgoing {
    uint8_t *buf; /* LWS_PRE bytes of headroom, then the text */
    size_t len;
} outgoing_t;

typedef struct session {
    struct lws *wsi;
    uint32_t client_id;
    long slot;             /* -1: refused, never counted */
    uint64_t snap_seq;     /* the last snapshot this client was sent */
    bool in_message, rx_binary, reading_paused;
    bool closing;
    int close_code;
    const char *close_reason;
    char *rx;              /* reassembly of one message */
    size_t rx_len;
    outgoing_t out[OUTBOX_CAP];
    size_t out_head, out_count;
} session_t;

typedef struct health_request {
    char *body;
    size_t len;
} health_request_t;

struct net {
    uv_loop_t *loop;
    struct lws_context *ctx;
    net_config_t cfg;
    net_callbacks_t cb;
    char web_root[PATH_MAX];
    int port;

    session_t **slots;
    size_t n_clients;
    uint32_t last_client_id;

    uint8_t *snap; /* the newest snapshot, shared by every client */
    size_t snap_len;
    uint64_t snap_seq;

    struct lws_protocols protocols[3];
    struct lws_http_mount mount_files, mount_health;

    bool shutting_down;
    uv_timer_t shutdown_timer;
    uint64_t shutdown_started;
    void (*shutdown_done)(void *);
    void *shutdown_arg;
};

static net_t *net_of(struct lws *wsi) { return lws_context_user(lws_get_context(wsi)); }

static void begin_close(session_t *s, int code, const char *reason)
{
    if (s->closing) return;
    s->closing = true;
    s->close_code = code;
    s->close_reason = reason;
    lws_callback_on_writable(s->wsi);
}

static void outbox_clear(session_t *s)
{
    for (; s->out_count; s->out_count--, s->out_head = (s->out_head + 1) % OUTBOX_CAP)
        free(s->out[s->out_head].buf);
}

static void enqueue(session_t *s, const char *text)
{
    if (s->closing) return;
    if (s->out_count == OUTBOX_CAP) {
        begin_close(s, LWS_CLOSE_STATUS_POLICY_VIOLATION, "client does not read its messages");
        return;
    }
    size_t len = strlen(text);
    uint8_t *buf = malloc(LWS_PRE + len);
    if (!buf) {
        begin_close(s, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "out of memory");
        return;
    }
    memcpy(buf + LWS_PRE, text, len);
    s->out[(s->out_head + s->out_count) % OUTBOX_CAP] = (outgoing_t){buf, len};
    s->out_count++;
    if (s->out_count >= OUTBOX_PAUSE_READING && !s->reading_paused) {
        lws_rx_flow_control(s->wsi, 0);
        s->reading_paused = true;
    }
    lws_callback_on_writable(s->wsi);
}

static int on_established(net_t *n, session_t *s, struct lws *wsi)
{
    memset(s, 0, sizeof *s);
    s->wsi = wsi;
    s->slot = -1;
    if (n->shutting_down) {
        begin_close(s, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
        return 0;
    }
    size_t slot = 0;
    while (slot < n->cfg.max_clients && n->slots[slot]) slot++;
    if (slot == n->cfg.max_clients) {
        begin_close(s, CLOSE_TRY_AGAIN_LATER, "server full, try again later");
        return 0;
    }
    if (!(s->rx = malloc(n->cfg.max_message_bytes))) return -1;
    s->slot = (long)slot;
    s->client_id = ++n->last_client_id;
    n->slots[slot] = s;
    n->n_clients++;
    char *hello = n->cb.on_open(n->cb.user, s->client_id, slot);
    if (!hello) {
        begin_close(s, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "cannot serve this client");
        return 0;
    }
    enqueue(s, hello);
    free(hello);
    return 0;
}

static void on_closed(net_t *n, session_t *s)
{
    outbox_clear(s);
    free(s->rx);
    s->rx = NULL;
    if (s->slot < 0) return;
    n->slots[s->slot] = NULL;
    n->n_clients--;
    n->cb.on_close(n->cb.user, s->client_id, (size_t)s->slot);
    s->slot = -1;
}

static int on_receive(net_t *n, session_t *s, struct lws *wsi, const void *in, size_t len)
{
    if (s->closing || s->slot < 0) return 0;
    if (!s->in_message) {
        s->in_message = true;
        s->rx_binary = lws_frame_is_binary(wsi);
        s->rx_len = 0;
    }
    /* Refuse as soon as the announced size passes the limit, before buffering. */
    size_t announced = s->rx_len + len + lws_remaining_packet_payload(wsi);
    if (announced > n->cfg.max_message_bytes) {
        static const char reason[] = "message too big";
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)reason, sizeof reason - 1);
        return -1;
    }
    memcpy(s->rx + s->rx_len, in, len);
    s->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
    s->in_message = false;
    n->cb.on_message(n->cb.user, s->client_id, (size_t)s->slot, s->rx, s->rx_len, s->rx_binary);
    return 0;
}

static int on_writeable(net_t *n, session_t *s, struct lws *wsi)
{
    if (s->closing) {
        /* The close frame is written here rather than left to
         * lws_close_reason(): lws 4.1 drops that reason when the close starts
         * from a WRITEABLE callback, and the peer would only see 1006. */
        const char *reason = s->close_reason ? s->close_reason : "";
        uint8_t frame[LWS_PRE + 2 + 123];
        size_t len = strlen(reason) > 123 ? 123 : strlen(reason);
        frame[LWS_PRE] = (uint8_t)(s->close_code >> 8);
        frame[LWS_PRE + 1] = (uint8_t)s->close_code;
        memcpy(frame + LWS_PRE + 2, reason, len);
        lws_write(wsi, frame + LWS_PRE, 2 + len, WRITE_CLOSE_FRAME);
        return -1;
    }
    /* Text first: hello must precede the first snapshot, and replies are small. */
    if (s->out_count) {
        outgoing_t o = s->out[s->out_head];
        s->out_head = (s->out_head + 1) % OUTBOX_CAP;
        s->out_count--;
        int written = lws_write(wsi, o.buf + LWS_PRE, o.len, LWS_WRITE_TEXT);
        free(o.buf);
        if (written < (int)o.len) return -1;
        if (s->reading_paused && s->out_count <= OUTBOX_RESUME_READING) {
            lws_rx_flow_control(wsi, 1);
            s->reading_paused = false;
        }
        if (s->out_count || (n->snap_len && s->snap_seq != n->snap_seq)) lws_callback_on_writable(wsi);
        return 0;
    }
    /* Only the newest snapshot is ever sent: one that went out while this
     * client was still busy with an older write is simply skipped. */
    if (n->snap_len && s->snap_seq != n->snap_seq) {
        int written = lws_write(wsi, n->snap, n->snap_len, LWS_WRITE_BINARY);
        if (written < (int)n->snap_len) return -1;
        s->snap_seq = n->snap_seq;
    }
    return 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    session_t *s = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(net_of(wsi), s, wsi);
    case LWS_CALLBACK_CLOSED:
        on_closed(net_of(wsi), s);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return on_receive(net_of(wsi), s, wsi, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return on_writeable(net_of(wsi), s, wsi);
    default:
        /* Static files are served by the mount through the default handler. */
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static int health_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    health_request_t *req = user;
    net_t *n = net_of(wsi);
    uint8_t buf[LWS_PRE + 1024];
    uint8_t *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        req->body = n->cb.on_health(n->cb.user);
        if (!req->body) return -1;
        req->len = strlen(req->body);
        if (req->len > (size_t)(end - start)) return -1;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "application/json", req->len, &p, end) ||
            lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char *)"no-store", 8, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (!req->body) return -1;
        memcpy(start, req->body, req->len);
        if (lws_write(wsi, start, req->len, LWS_WRITE_HTTP_FINAL) != (int)req->len) return -1;
        free(req->body);
        req->body = NULL;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        free(req->body);
        req->body = NULL;
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
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
    if (!(n->slots = calloc(cfg->max_clients, sizeof *n->slots))) {
        free(n);
        return NULL;
    }

    /* The WebSocket protocol comes first: it is also the one a client that
     * names no subprotocol gets. */
    n->protocols[0] = (struct lws_protocols){
        .name = "swarmcast.v1",
        .callback = ws_callback,
        .per_session_data_size = sizeof(session_t),
        .rx_buffer_size = 4096,
    };
    n->protocols[1] = (struct lws_protocols){
        .name = "swarmcast-health",
        .callback = health_callback,
        .per_session_data_size = sizeof(health_request_t),
    };
    n->mount_health = (struct lws_http_mount){
        .mountpoint = "/healthz",
        .mountpoint_len = 8,
        .origin = "swarmcast-health",
        .origin_protocol = LWSMPRO_CALLBACK,
    };
    n->mount_files = (struct lws_http_mount){
        .mount_next = &n->mount_health,
        .mountpoint = "/",
        .mountpoint_len = 1,
        .origin = n->web_root,
        .def = "index.html",
        .origin_protocol = LWSMPRO_FILE,
    };

    void *loops[] = {loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    info.foreign_loops = loops; /* ignored without LWS_SERVER_OPTION_LIBUV */
    /* lws 4.1 with IPv6 on binds an IPv4 address as "all interfaces" (lws
     * issue 2290); an IPv4 bind address must use an IPv4-only socket. */
    struct in_addr v4;
    if (inet_pton(AF_INET, cfg->bind, &v4) == 1) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.port = cfg->port;
    info.iface = cfg->bind;
    info.protocols = n->protocols;
    info.mounts = &n->mount_files;
    info.vhost_name = "default";
    info.user = n;
    n->ctx = lws_create_context(&info);
    if (!n->ctx) {
        free(n->slots);
        free(n);
        return NULL;
    }
    n->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(n->ctx, "default"));
    return n;
}

int net_port(const net_t *n) { return n->port; }
size_t net_client_count(const net_t *n) { return n->n_clients; }
size_t net_headroom(void) { return LWS_PRE; }

void net_send(net_t *n, uint32_t client_id, const char *text)
{
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i] && n->slots[i]->client_id == client_id) {
            enqueue(n->slots[i], text);
            return;
        }
}

void net_broadcast(net_t *n, const char *text)
{
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i]) enqueue(n->slots[i], text);
}

void net_publish_snapshot(net_t *n, uint8_t *frame, size_t len)
{
    n->snap = frame;
    n->snap_len = len;
    n->snap_seq++;
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i] && !n->slots[i]->closing) lws_callback_on_writable(n->slots[i]->wsi);
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
    for (size_t i = 0; i < n->cfg.max_clients; i++)
        if (n->slots[i]) begin_close(n->slots[i], LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
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
    free(n->slots);
    free(n);
}

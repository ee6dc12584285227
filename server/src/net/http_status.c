/* http_status: the HTTP answers that are not files. On the public port,
 * GET /healthz says up or not and nothing more ("ok" 200, "unavailable"
 * 503 when the simulation is stuck). On the operations listener
 * (--metrics-listen), GET /healthz gives the detailed JSON status and
 * GET /metrics Prometheus text (the network's series from here, the
 * simulation's and the commands' from the application); any other path
 * there is 404. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_internal.h"
#include "protocol/json_out.h"

static void counter(jbuf_t *t, const char *name, const char *help, uint64_t v)
{
    jb_printf(t, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name, (unsigned long long)v);
}

/* The network's own series. */
static char *net_metrics(const net_t *n)
{
    const net_stats_t *st = &n->stats;
    jbuf_t t;
    jb_init_growing(&t);
    jb_printf(&t, "# HELP swarmcast_connections WebSocket sessions open now\n# TYPE swarmcast_connections gauge\n"
            "swarmcast_connections %zu\n", n->n_clients);
    counter(&t, "swarmcast_connections_accepted_total", "WebSocket sessions accepted", st->accepted);
    counter(&t, "swarmcast_connections_evicted_total",
            "WebSocket sessions closed (1013) when the server was full, to give their seat to a newcomer from an "
            "address holding fewer: one of the address holding the most, its newest idle one if it has any",
            st->evicted);
    static const char *const why[REFUSED_KINDS] = {"full", "per_address", "origin", "shutting_down", "connect_rate"};
    jb_printf(&t, "# HELP swarmcast_connections_refused_total WebSocket sessions turned away, by reason\n"
            "# TYPE swarmcast_connections_refused_total counter\n");
    for (int k = 0; k < REFUSED_KINDS; k++)
        jb_printf(&t, "swarmcast_connections_refused_total{reason=\"%s\"} %llu\n", why[k], (unsigned long long)st->refused[k]);
    static const int codes[] = NET_CLOSE_CODES;
    jb_printf(&t, "# HELP swarmcast_closes_total WebSocket sessions ended, by close code (the server's, else the "
            "peer's; 1006: no close frame)\n# TYPE swarmcast_closes_total counter\n");
    for (int k = 0; k < NET_CLOSE_KINDS; k++) {
        if (k < NET_CLOSE_KINDS - 1)
            jb_printf(&t, "swarmcast_closes_total{code=\"%d\"} %llu\n", codes[k], (unsigned long long)st->closes[k]);
        else
            jb_printf(&t, "swarmcast_closes_total{code=\"other\"} %llu\n", (unsigned long long)st->closes[k]);
    }
    counter(&t, "swarmcast_connections_refused_room_total",
            "WebSocket sessions the application closed at open (no such room, too many wrong codes, room full)",
            st->refused_room);
    counter(&t, "swarmcast_closed_stalled_total", "clients cut off because they read nothing for the stall timeout",
            st->stalled);
    counter(&t, "swarmcast_closed_idle_total", "clients closed because they answered nothing for the idle timeout",
            st->idle);
    counter(&t, "swarmcast_text_frames_sent_total", "JSON messages sent", st->text_frames);
    counter(&t, "swarmcast_text_bytes_sent_total", "bytes of JSON messages sent", st->text_bytes);
    counter(&t, "swarmcast_text_refused_total",
            "text messages not sent because they were not valid UTF-8 (a server bug; 0 expected)", st->text_refused);
    counter(&t, "swarmcast_snapshot_frames_sent_total", "snapshot frames sent", st->snapshot_frames);
    counter(&t, "swarmcast_snapshot_bytes_sent_total", "bytes of snapshot frames sent", st->snapshot_bytes);
    counter(&t, "swarmcast_snapshots_skipped_total",
            "snapshots a slow client never got because a newer one replaced them", st->snapshots_skipped);
    counter(&t, "swarmcast_v2_frames_sent_total", "protocol v2 snapshot frames sent", st->v2_frames);
    counter(&t, "swarmcast_v2_bytes_sent_total", "bytes of protocol v2 snapshot frames sent (before any deflate)",
            st->v2_bytes);
    counter(&t, "swarmcast_v2_snapshots_skipped_total",
            "v2 snapshots a slow client skipped (it then gets a chain of deltas or a key)", st->v2_skipped);
    jb_printf(&t, "# HELP swarmcast_sessions WebSocket sessions by sub-protocol\n# TYPE swarmcast_sessions gauge\n"
                  "swarmcast_sessions{protocol=\"1\"} %zu\nswarmcast_sessions{protocol=\"2\"} %zu\n",
              n->n_protocol[1], n->n_protocol[2]);
    counter(&t, "swarmcast_news_coalesced_total",
            "param/metrics messages replaced by newer ones before a client was sent them", st->latest_replaced);
    counter(&t, "swarmcast_pings_sent_total", "keepalive pings sent", st->pings);
    counter(&t, "swarmcast_auth_failed_total", "control-token guesses that were wrong", st->auth_failed);
    counter(&t, "swarmcast_auth_rate_limited_total",
            "control-token guesses refused unread: their address failed too often and must wait", st->auth_throttled);
    jb_printf(&t, "# HELP swarmcast_forwarded_total connections from a trusted proxy (--trusted-proxy), by what its "
                  "X-Forwarded-For / Forwarded said (client: the address used; absent, unknown, malformed: the "
                  "proxy's own address used)\n# TYPE swarmcast_forwarded_total counter\n");
    for (int k = 0; k < FORWARDED_OUTCOMES; k++)
        jb_printf(&t, "swarmcast_forwarded_total{outcome=\"%s\"} %llu\n", forwarded_outcome_name((forwarded_outcome_t)k),
                  (unsigned long long)st->forwarded[k]);
    jb_printf(&t, "# HELP swarmcast_addresses_tracked remote addresses the per-address limits remember now\n"
                  "# TYPE swarmcast_addresses_tracked gauge\nswarmcast_addresses_tracked %zu\n",
              address_limits_count(n->limits));
    if (t.failed) jb_free(&t);
    return t.buf;
}

static void reply_free(http_reply_t *r)
{
    free(r->body);
    *r = (http_reply_t){0};
}

/* Sends the headers; the body follows in HTTP_WRITEABLE. */
static int begin_reply(struct lws *wsi, http_reply_t *r, unsigned status, const char *type)
{
    uint8_t buf[LWS_PRE + 512];
    uint8_t *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    if (lws_add_http_common_headers(wsi, status, type, r->len, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char *)"no-store", 8, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

/* Writes the body a chunk per callback. */
static int continue_reply(struct lws *wsi, http_reply_t *r)
{
    enum { CHUNK = 4096 };
    uint8_t buf[LWS_PRE + CHUNK];
    if (!r->body) return -1;
    size_t len = r->len - r->sent < CHUNK ? r->len - r->sent : CHUNK;
    bool last = r->sent + len == r->len;
    memcpy(buf + LWS_PRE, r->body + r->sent, len);
    if (lws_write(wsi, buf + LWS_PRE, len, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)len) return -1;
    r->sent += len;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    reply_free(r);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* The body of a reply, its status and content type; NULL when out of memory. */
typedef char *(*body_fn)(net_t *n, unsigned *status, const char **type);

/* The public /healthz: the status code, and a word for people. */
static char *health_public_body(net_t *n, unsigned *status, const char **type)
{
    int code = 200;
    free(n->cb.on_health(n->cb.user, &code));
    *status = (unsigned)code;
    *type = "text/plain; charset=utf-8";
    return strdup(code == 200 ? "ok\n" : "unavailable\n");
}

static char *health_body(net_t *n, unsigned *status, const char **type)
{
    int code = 200;
    char *body = n->cb.on_health(n->cb.user, &code);
    *status = (unsigned)code;
    *type = "application/json";
    return body;
}

static char *metrics_body(net_t *n, unsigned *status, const char **type)
{
    char *mine = net_metrics(n), *theirs = n->cb.on_metrics(n->cb.user);
    jbuf_t t;
    jb_init_growing(&t);
    if (mine && theirs) {
        jb_raw(&t, theirs);
        jb_raw(&t, mine);
    }
    free(mine);
    free(theirs);
    if (!t.buf || t.failed) {
        jb_free(&t);
        return NULL;
    }
    *status = HTTP_STATUS_OK;
    *type = "text/plain; version=0.0.4; charset=utf-8";
    return t.buf;
}

static int serve(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len, body_fn build)
{
    http_reply_t *r = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        unsigned status;
        const char *type;
        reply_free(r);
        if (!(r->body = build(net_of(wsi), &status, &type))) return -1;
        r->len = strlen(r->body);
        return begin_reply(wsi, r, status, type);
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return continue_reply(wsi, r);
    case LWS_CALLBACK_CLOSED_HTTP:
        reply_free(r);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

int health_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    return serve(wsi, reason, user, in, len, health_public_body);
}

int health_detail_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    return serve(wsi, reason, user, in, len, health_body);
}

int ops_not_found_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    if (reason != LWS_CALLBACK_HTTP) return lws_callback_http_dummy(wsi, reason, user, in, len);
    lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "only /metrics and /healthz here");
    return -1;
}

int metrics_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    return serve(wsi, reason, user, in, len, metrics_body);
}

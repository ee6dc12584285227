#include "bridge/nats_link.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nats/nats.h>

/* The adapter is a header of function definitions (include it in one file
 * only); its code is not ours to make warning-free under our flags. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <nats/adapters/libuv.h>
#pragma GCC diagnostic pop

/* How long nats_link_destroy waits for libnats' threads to finish. */
#define NATS_LINK_CLOSE_WAIT_MS 2000
/* A connect attempt (on the loop thread, see connect_now) gives up after this. */
#define NATS_LINK_CONNECT_TIMEOUT_MS 500

typedef enum { ITEM_MSG, ITEM_SUB_DONE, ITEM_CONNECTED, ITEM_DISCONNECTED, ITEM_RECONNECTED } item_kind_t;

/* One event handed from a libnats thread to the loop, in arrival order. */
typedef struct item {
    struct item *next;
    item_kind_t kind;
    nats_link_sub_t *sub; /* MSG, SUB_DONE */
    natsMsg *msg;         /* MSG */
    size_t bytes;         /* MSG: payload length, for the pending limit */
} item_t;

struct nats_link_sub {
    nats_link_t *link;
    natsSubscription *ns; /* NULL until the first connection */
    char *subject;
    nats_link_msg_cb cb;
    void *user;
    bool unsubscribed; /* loop thread: no more callbacks */
    int max_msgs, max_bytes;
    /* Under link->lock: what waits in the queue, and whether it is closed. */
    int queued_msgs;
    int64_t queued_bytes;
    bool dead;
    nats_link_sub_t *prev, *next; /* every wrapper not yet freed (loop thread) */
};

struct nats_link {
    uv_loop_t *loop;
    natsConnection *nc;
    nats_link_state_cb on_state;
    void *user;
    char *nkey_seed, *nkey_public;
    natsOptions *opts;
    char *urls;
    uv_timer_t retry; /* first connection attempts, until one succeeds */
    bool retry_logged;

    uv_async_t wake;
    uv_mutex_t lock;
    item_t *head, *tail; /* under lock */
    bool closing;         /* under lock: drop whatever libnats still delivers */

    nats_link_sub_t *subs;
    int handles_open;
    bool leak_at_close; /* libnats did not stop in time: freeing could race its threads */
    bool connected, ever_connected;
    nats_link_stats_t stats;      /* loop thread, except dropped */
    atomic_uint_fast64_t dropped; /* counted on the delivery thread */
    atomic_uint_fast64_t refused; /* counted on libnats' callback thread */
};

/* ---- Hand-over to the loop ---------------------------------------------- */

/* Any thread. Takes the item (or frees it when the link is closing). */
static void enqueue(nats_link_t *l, item_t *it)
{
    uv_mutex_lock(&l->lock);
    bool closing = l->closing;
    if (!closing) {
        if (l->tail) l->tail->next = it;
        else l->head = it;
        l->tail = it;
    }
    uv_mutex_unlock(&l->lock);
    if (closing) {
        if (it->msg) natsMsg_Destroy(it->msg);
        free(it);
        return;
    }
    uv_async_send(&l->wake);
}

static void post_state(nats_link_t *l, item_kind_t kind)
{
    item_t *it = calloc(1, sizeof *it);
    if (!it) return; /* the state is read again at the next change */
    it->kind = kind;
    enqueue(l, it);
}

/* libnats' delivery thread. */
static void on_nats_msg(natsConnection *nc, natsSubscription *ns, natsMsg *msg, void *closure)
{
    (void)nc;
    (void)ns;
    nats_link_sub_t *s = closure;
    nats_link_t *l = s->link;
    size_t bytes = (size_t)natsMsg_GetDataLength(msg);
    item_t *it = calloc(1, sizeof *it);
    bool keep = it != NULL, dead;
    uv_mutex_lock(&l->lock);
    dead = s->dead || l->closing;
    if (keep && (dead || l->closing || s->queued_msgs >= s->max_msgs ||
                 s->queued_bytes + (int64_t)bytes > (int64_t)s->max_bytes))
        keep = false;
    if (keep) {
        s->queued_msgs++;
        s->queued_bytes += (int64_t)bytes;
        it->kind = ITEM_MSG;
        it->sub = s;
        it->msg = msg;
        it->bytes = bytes;
        if (l->tail) l->tail->next = it;
        else l->head = it;
        l->tail = it;
    }
    uv_mutex_unlock(&l->lock);
    if (!keep) {
        if (!dead) atomic_fetch_add(&l->dropped, 1);
        free(it);
        natsMsg_Destroy(msg);
        return;
    }
    uv_async_send(&l->wake);
}

/* libnats' delivery thread, after a subscription's last message. */
static void on_nats_sub_done(void *closure)
{
    nats_link_sub_t *s = closure;
    item_t *it = calloc(1, sizeof *it);
    if (!it) return; /* the wrapper is then freed by nats_link_destroy */
    it->kind = ITEM_SUB_DONE;
    it->sub = s;
    enqueue(s->link, it);
}

/* libnats' connection threads. */
static void on_nats_disconnected(natsConnection *nc, void *closure)
{
    (void)nc;
    post_state(closure, ITEM_DISCONNECTED);
}
static void on_nats_reconnected(natsConnection *nc, void *closure)
{
    (void)nc;
    post_state(closure, ITEM_RECONNECTED);
}

static void sub_unlink_free(nats_link_t *l, nats_link_sub_t *s)
{
    if (s->prev) s->prev->next = s->next;
    else l->subs = s->next;
    if (s->next) s->next->prev = s->prev;
    free(s->subject);
    free(s);
}

static void set_connected(nats_link_t *l, bool up, bool re)
{
    if (up == l->connected) return;
    l->connected = up;
    if (up && re) l->stats.reconnects++;
    if (!up) l->stats.disconnects++;
    fprintf(stderr, "swarmcast: nats %s\n", up ? (re ? "reconnected" : "connected") : "disconnected");
    if (up) l->ever_connected = true;
    if (l->on_state) l->on_state(l->user, up);
}

/* The loop: everything queued since the last wake-up, in order. */
static void on_wake(uv_async_t *h)
{
    nats_link_t *l = h->data;
    uv_mutex_lock(&l->lock);
    item_t *it = l->head;
    l->head = l->tail = NULL;
    uv_mutex_unlock(&l->lock);
    while (it) {
        item_t *next = it->next;
        switch (it->kind) {
        case ITEM_MSG: {
            nats_link_sub_t *s = it->sub;
            uv_mutex_lock(&l->lock);
            s->queued_msgs--;
            s->queued_bytes -= (int64_t)it->bytes;
            uv_mutex_unlock(&l->lock);
            if (!s->unsubscribed) {
                l->stats.received_messages++;
                s->cb(s->user, natsMsg_GetSubject(it->msg), natsMsg_GetReply(it->msg),
                      (const uint8_t *)natsMsg_GetData(it->msg), it->bytes);
            }
            natsMsg_Destroy(it->msg);
            break;
        }
        case ITEM_SUB_DONE: sub_unlink_free(l, it->sub); break;
        case ITEM_CONNECTED: set_connected(l, true, l->ever_connected); break;
        case ITEM_RECONNECTED: set_connected(l, true, true); break;
        case ITEM_DISCONNECTED: set_connected(l, false, false); break;
        }
        free(it);
        it = next;
    }
}

/* ---- Credentials -------------------------------------------------------- */

/* The first whitespace-delimited word of the file starting with `start`
 * and made of base32 capitals and digits (a seed "SU…", a public key "U…"). */
static char *find_key(const char *text, const char *start)
{
    size_t n = strlen(start);
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
        size_t len = (size_t)(p - w);
        if (len > n + 40 && !strncmp(w, start, n)) {
            bool ok = true;
            for (size_t i = 0; i < len; i++)
                if (!((w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= '2' && w[i] <= '7'))) ok = false;
            if (ok) return strndup(w, len);
        }
    }
    return NULL;
}

static int load_nkey(nats_link_t *l, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "swarmcast: --nats-nkey-seed: cannot open %s\n", path);
        return -1;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    l->nkey_seed = find_key(buf, "SU");
    /* A public user key: 'U' then base32, 56 characters; the seed line starts
     * with "SU", so a word starting with 'U' is the public key. */
    l->nkey_public = find_key(buf, "U");
    memset(buf, 0, sizeof buf);
    if (!l->nkey_seed || !l->nkey_public) {
        fprintf(stderr, "swarmcast: --nats-nkey-seed: %s must hold the user's seed (SU…) and public key (U…), "
                        "as `nk -gen user -pubout` prints them\n", path);
        return -1;
    }
    return 0;
}

/* libnats' connection thread: signs the server's nonce with the seed. */
static natsStatus sign_nonce(char **err, unsigned char **sig, int *sig_len, const char *nonce, void *closure)
{
    (void)err;
    nats_link_t *l = closure;
    return nats_Sign(l->nkey_seed, nonce, sig, sig_len);
}

/* ---- Life --------------------------------------------------------------- */

static int set_servers(natsOptions *o, const char *urls)
{
    char *copy = strdup(urls);
    if (!copy) return -1;
    const char *list[32];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < 32; t = strtok_r(NULL, ",", &save))
        if (*t) list[n++] = t;
    natsStatus s = n ? natsOptions_SetServers(o, list, n) : NATS_INVALID_ARG;
    free(copy);
    return s == NATS_OK ? 0 : -1;
}

/* libnats' callback thread: an asynchronous error. A permissions violation
 * (docker/nats.conf holds each user to its own subjects) is counted and
 * said on stderr, the first three and then every 1000th, so that a relay
 * whose --relay-tag is not its user's says why nothing gets through, and a
 * flood of refusals cannot fill the log. */
static void on_nats_error(natsConnection *nc, natsSubscription *sub, natsStatus err, void *closure)
{
    (void)sub;
    nats_link_t *l = closure;
    if (err != NATS_NOT_PERMITTED) return; /* a slow consumer is counted as dropped */
    uint64_t n = (uint64_t)atomic_fetch_add(&l->refused, 1) + 1;
    if (n > 3 && n % 1000) return;
    const char *text = NULL;
    natsConnection_GetLastError(nc, &text);
    fprintf(stderr, "swarmcast: nats: refused by the server's permissions (%llu so far): %s\n", (unsigned long long)n,
            text && *text ? text : "permissions violation");
}

static int configure(nats_link_t *l, natsOptions *o, const nats_link_config_t *cfg)
{
    if (set_servers(o, cfg->urls) < 0) {
        fprintf(stderr, "swarmcast: --nats: bad server list '%s'\n", cfg->urls);
        return -1;
    }
    natsStatus s = NATS_OK;
    if (cfg->name) s |= natsOptions_SetName(o, cfg->name);
    s |= natsOptions_SetTimeout(o, NATS_LINK_CONNECT_TIMEOUT_MS);
    s |= natsOptions_SetAllowReconnect(o, true);
    s |= natsOptions_SetMaxReconnect(o, -1);
    s |= natsOptions_SetReconnectWait(o, NATS_LINK_RECONNECT_WAIT_MS);
    s |= natsOptions_SetReconnectBufSize(o, NATS_LINK_RECONNECT_BUF_BYTES);
    s |= natsOptions_SetDisconnectedCB(o, on_nats_disconnected, l);
    s |= natsOptions_SetReconnectedCB(o, on_nats_reconnected, l);
    s |= natsOptions_SetErrorHandler(o, on_nats_error, l);
    s |= natsOptions_UseGlobalMessageDelivery(o, true);
    /* A message published with a reply subject (a relay's lease) while
     * nobody listens would otherwise bring an empty "no responders" status
     * message to that reply subject: the relays' inbox carries only the
     * simulation's answers. */
    s |= natsOptions_DisableNoResponders(o, true);
    s |= natsOptions_SetEventLoop(o, l->loop, natsLibuv_Attach, natsLibuv_Read, natsLibuv_Write, natsLibuv_Detach);
    if (s != NATS_OK) return -1;
    if ((cfg->user != NULL) != (cfg->password != NULL)) {
        fprintf(stderr, "swarmcast: --nats-user and --nats-password go together\n");
        return -1;
    }
    if (cfg->user && natsOptions_SetUserInfo(o, cfg->user, cfg->password) != NATS_OK) return -1;
    if (cfg->creds_file && cfg->nkey_seed_file) {
        fprintf(stderr, "swarmcast: --nats-creds and --nats-nkey-seed are exclusive\n");
        return -1;
    }
    if (cfg->creds_file && natsOptions_SetUserCredentialsFromFiles(o, cfg->creds_file, NULL) != NATS_OK) {
        fprintf(stderr, "swarmcast: --nats-creds: cannot use %s\n", cfg->creds_file);
        return -1;
    }
    if (cfg->nkey_seed_file) {
        if (load_nkey(l, cfg->nkey_seed_file) < 0) return -1;
        if (natsOptions_SetNKey(o, l->nkey_public, sign_nonce, l) != NATS_OK) return -1;
    }
    return 0;
}

/* A list of items taken off the queue, with their messages. */
static void free_items(item_t *it)
{
    for (item_t *next; it; it = next) {
        next = it->next;
        if (it->msg) natsMsg_Destroy(it->msg);
        free(it);
    }
}

static void free_link(nats_link_t *l)
{
    while (l->subs) sub_unlink_free(l, l->subs);
    free_items(l->head); /* none once nats_link_destroy ran */
    if (l->nkey_seed) memset(l->nkey_seed, 0, strlen(l->nkey_seed));
    free(l->nkey_seed);
    free(l->nkey_public);
    natsOptions_Destroy(l->opts);
    free(l->urls);
    uv_mutex_destroy(&l->lock);
    free(l);
}

/* The wake and retry handles closed: nothing of the link is left on the loop. */
static void on_handle_closed(uv_handle_t *h)
{
    nats_link_t *l = h->data;
    if (--l->handles_open == 0 && !l->leak_at_close) free_link(l);
}

static int start_sub(nats_link_t *l, nats_link_sub_t *s)
{
    if (natsConnection_Subscribe(&s->ns, l->nc, s->subject, on_nats_msg, s) != NATS_OK) return -1;
    natsSubscription_SetPendingLimits(s->ns, s->max_msgs, s->max_bytes);
    natsSubscription_SetOnCompleteCB(s->ns, on_nats_sub_done, s);
    return 0;
}

/* The first connection, made on the loop thread: libnats' libuv adapter can
 * attach a connection to the loop only from the loop's own thread (a first
 * connect that libnats retries on its reconnect thread fails there:
 * natsOptions_SetRetryOnFailedConnect does not work with the adapter).
 * Once connected, libnats reconnects by itself (MaxReconnect -1). An attempt
 * holds the loop until the server answers or refuses, at most
 * NATS_LINK_CONNECT_TIMEOUT_MS (only for a host that drops packets). */
static void connect_now(nats_link_t *l)
{
    natsStatus s = natsConnection_Connect(&l->nc, l->opts);
    if (s != NATS_OK) {
        l->nc = NULL;
        if (!l->retry_logged)
            fprintf(stderr, "swarmcast: nats: %s not reachable yet (%s), retrying every %d ms\n", l->urls,
                    natsStatus_GetText(s), NATS_LINK_RECONNECT_WAIT_MS);
        l->retry_logged = true;
        return;
    }
    uv_timer_stop(&l->retry);
    for (nats_link_sub_t *sub = l->subs; sub; sub = sub->next)
        if (!sub->unsubscribed && start_sub(l, sub) < 0)
            fprintf(stderr, "swarmcast: nats: cannot subscribe to %s\n", sub->subject);
    set_connected(l, true, false);
}

static void on_retry(uv_timer_t *t) { connect_now(t->data); }

nats_link_t *nats_link_create(uv_loop_t *loop, const nats_link_config_t *cfg, nats_link_state_cb on_state,
                              void *user)
{
    if (!cfg || !cfg->urls) return NULL;
    nats_link_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->loop = loop;
    l->on_state = on_state;
    l->user = user;
    if (uv_mutex_init(&l->lock) != 0) {
        free(l);
        return NULL;
    }
    /* One delivery thread for every subscription: one order for all. */
    if (nats_Open(-1) != NATS_OK || nats_SetMessageDeliveryPoolSize(1) != NATS_OK || !(l->urls = strdup(cfg->urls)) ||
        natsOptions_Create(&l->opts) != NATS_OK || configure(l, l->opts, cfg) < 0) {
        free_link(l);
        return NULL;
    }
    natsLibuv_Init();
    natsLibuv_SetThreadLocalLoop(loop);
    uv_async_init(loop, &l->wake, on_wake);
    uv_timer_init(loop, &l->retry);
    l->wake.data = l->retry.data = l;
    l->handles_open = 2;
    uv_timer_start(&l->retry, on_retry, NATS_LINK_RECONNECT_WAIT_MS, NATS_LINK_RECONNECT_WAIT_MS);
    connect_now(l);
    return l;
}

void nats_link_destroy(nats_link_t *l)
{
    if (!l) return;
    for (nats_link_sub_t *s = l->subs; s; s = s->next) {
        s->unsubscribed = true;
        natsSubscription_Destroy(s->ns);
        s->ns = NULL;
    }
    /* From here on enqueue frees what libnats hands it. What is already
     * queued for the loop is freed now, while the library is open:
     * natsMsg_Destroy after nats_CloseAndWait touches the library's freed
     * state (a crash seen under ASan when messages were still queued). */
    uv_mutex_lock(&l->lock);
    l->closing = true;
    item_t *queued = l->head;
    l->head = l->tail = NULL;
    uv_mutex_unlock(&l->lock);
    free_items(queued);
    if (l->nc) {
        natsConnection_Close(l->nc);
        natsConnection_Destroy(l->nc);
        l->nc = NULL;
    }
    /* libnats' threads may still be in our handlers; after this none is.
     * If they did not stop in time, one may still call into the link:
     * then it is not freed (the process is ending anyway). */
    if (nats_CloseAndWait(NATS_LINK_CLOSE_WAIT_MS) != NATS_OK) {
        fprintf(stderr, "swarmcast: nats: the client library did not stop in time; its memory stays\n");
        l->leak_at_close = true;
    }
    uv_timer_stop(&l->retry);
    uv_close((uv_handle_t *)&l->retry, on_handle_closed);
    uv_close((uv_handle_t *)&l->wake, on_handle_closed);
}

bool nats_link_connected(const nats_link_t *l) { return l && l->connected; }

void nats_link_get_stats(const nats_link_t *l, nats_link_stats_t *out)
{
    *out = l->stats;
    out->connected = l->connected;
    out->dropped_messages = atomic_load(&l->dropped);
    out->refused = atomic_load(&l->refused);
}

char *nats_link_metrics_text(const nats_link_t *l)
{
    nats_link_stats_t st;
    nats_link_get_stats(l, &st);
    static const struct {
        const char *name, *type, *help;
    } series[] = {
        {"swarmcast_nats_connected", "gauge", "1 while connected to a NATS server"},
        {"swarmcast_nats_published_messages_total", "counter", "messages published to NATS"},
        {"swarmcast_nats_published_bytes_total", "counter", "payload bytes published to NATS"},
        {"swarmcast_nats_publish_failures_total", "counter", "publishes refused (disconnected with a full buffer, ...)"},
        {"swarmcast_nats_received_messages_total", "counter", "messages received from NATS"},
        {"swarmcast_nats_dropped_messages_total", "counter", "messages dropped over a subscription's pending limit"},
        {"swarmcast_nats_permission_violations_total", "counter",
         "publishes and subscriptions the NATS server's permissions refused"},
        {"swarmcast_nats_reconnects_total", "counter", "reconnections to NATS"},
    };
    const unsigned long long values[] = {st.connected, st.published_messages, st.published_bytes, st.publish_failures,
                                         st.received_messages, st.dropped_messages, st.refused, st.reconnects};
    size_t cap = 4096, len = 0; /* the eight series take about 1.2 KB */
    char *text = malloc(cap);
    if (!text) return NULL;
    for (size_t i = 0; i < sizeof series / sizeof series[0]; i++)
        len += (size_t)snprintf(text + len, cap - len, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", series[i].name,
                                series[i].help, series[i].name, series[i].type, series[i].name, values[i]);
    return text;
}

int nats_link_publish(nats_link_t *l, const char *subject, const char *reply, const void *data, size_t len)
{
    if (!l->nc || len > INT32_MAX) {
        l->stats.publish_failures++;
        return -1;
    }
    natsStatus s = reply ? natsConnection_PublishRequest(l->nc, subject, reply, data, (int)len)
                         : natsConnection_Publish(l->nc, subject, data, (int)len);
    if (s != NATS_OK) {
        /* Said once (then only counted): while disconnected with a full
         * buffer every frame fails the same way. */
        if (l->stats.publish_failures++ == 0)
            fprintf(stderr, "swarmcast: nats: cannot publish %zu bytes on %s: %s (counted from now on in "
                            "swarmcast_nats_publish_failures_total)\n", len, subject, natsStatus_GetText(s));
        return -1;
    }
    l->stats.published_messages++;
    l->stats.published_bytes += len;
    return 0;
}

nats_link_sub_t *nats_link_subscribe(nats_link_t *l, const char *subject, int max_msgs, int max_bytes,
                                     nats_link_msg_cb cb, void *user)
{
    nats_link_sub_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->link = l;
    s->cb = cb;
    s->user = user;
    s->max_msgs = max_msgs > 0 ? max_msgs : 1;
    s->max_bytes = max_bytes > 0 ? max_bytes : 1;
    /* Linked first: the delivery thread may report it done at any time after. */
    s->next = l->subs;
    if (l->subs) l->subs->prev = s;
    l->subs = s;
    if (!(s->subject = strdup(subject)) || (l->nc && start_sub(l, s) < 0)) {
        sub_unlink_free(l, s);
        return NULL;
    }
    return s; /* before the first connection: subscribed when it comes */
}

void nats_link_unsubscribe(nats_link_t *l, nats_link_sub_t *s)
{
    (void)l;
    if (!s || s->unsubscribed) return;
    s->unsubscribed = true;
    uv_mutex_lock(&s->link->lock);
    s->dead = true;
    uv_mutex_unlock(&s->link->lock);
    /* The wrapper is freed when libnats reports the subscription done (its
     * last message handed over), or by nats_link_destroy. */
    if (!s->ns) { /* never subscribed: no delivery thread knows it */
        sub_unlink_free(l, s);
        return;
    }
    natsSubscription_Unsubscribe(s->ns);
    natsSubscription_Destroy(s->ns);
    s->ns = NULL;
}

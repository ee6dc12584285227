#include "relay/relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge/bridge_msg.h"
#include "bridge/nats_link.h"
#include "bridge/remote_clients.h"
#include "bridge/subjects.h"
#include "auth_guess.h"
#include "client_policy.h"
#include "net/net.h"
#include "net_config_for.h"
#include "ops_metrics.h"
#include "protocol/classify.h"
#include "protocol/json_out.h"
#include "protocol/messages.h"
#include "protocol/utf8.h"
#include "relay/client_slots.h"
#include "bridge/lease_json.h"
#include "relay/relay_lease.h"
#include "relay/relay_internal.h"
#include "relay/relay_stream.h"
#include "stream/compose.h"
#include "stream/viewers.h"
#include "stream/views.h"

/* Leases are renewed this often (the simulation forgets a relay after 5 s
 * without one), and sent at most this soon after the views changed. */
#define LEASE_EVERY_NS 1000000000ull
#define TIMER_MS 100
/* While restarting, the banner is sent again this often, so that pages whose
 * watchdog waits for any message keep the connection. */
#define STATUS_REPEAT_NS 2000000000ull
/* Distinct views a relay leases at most (the simulation refuses a lease
 * of more); past it viewers share a containing view (views.h). */
#define RELAY_MAX_VIEWS LEASE_MAX_VIEWS

/* ---- to the simulation ---------------------------------------------- */

void relay_send_envelope(relay_t *r, bridge_kind_t kind, uint32_t global_id, bool operator, const char *text,
                         size_t len)
{
    bridge_envelope_t e = {.kind = kind, .operator = operator, .client_id = global_id,
                           .text = {(const uint8_t *)text, len, text != NULL}};
    if (!r->link || !global_id) return; /* shutting down; a viewer whose id was given up (change_tag) */
    size_t n;
    uint8_t *msg = bridge_envelope_encode(&e, &n);
    if (!msg) return;
    nats_link_publish(r->link, r->subj_cmd, r->subj_reply, msg, n);
    free(msg);
}

void relay_send_open(relay_t *r, size_t slot)
{
    relay_send_envelope(r, BRIDGE_OPEN, r->clients[slot].global_id, relay_is_operator(r, slot), NULL, 0);
}

/* How this process names itself in its leases: name#instance. */
static void lease_name(const relay_t *r, char out[LEASE_NAME_MAX + 1])
{
    snprintf(out, LEASE_NAME_MAX + 1, "%s#%08x", r->name, (unsigned)r->instance);
}

/* The views the viewers need, to the simulation (every second, and soon
 * after they change). */
static void send_lease(relay_t *r)
{
    size_t n = 0;
    const view_spec_t *specs = r->views ? views_specs(r->views, &n) : NULL;
    if (!specs) n = 0;
    lease_request_t req = {.tag = r->tag, .clients = (uint32_t)net_client_count(r->net)};
    lease_name(r, req.relay);
    asked_t *q = &r->asked;
    q->n = 0;
    for (size_t i = 0; i < n && i < LEASE_MAX_VIEWS; i++) {
        req.views[i] = (lease_view_t){specs[i].mode, specs[i].rect};
        q->view_ids[i] = specs[i].id;
        q->views[i] = req.views[i];
        q->n = req.n_views = i + 1;
    }
    char *text = lease_request_format(&req);
    if (!text) return;
    if (nats_link_publish(r->link, r->subj_lease, r->subj_reply, text, strlen(text)) == 0) r->n.leases_sent++;
    free(text);
    r->lease_due = false;
    r->lease_sent_ns = now_ns();
}

/* ---- the simulation's answers ---------------------------------------------- */

static void close_everyone(relay_t *r, int code, const char *reason)
{
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id) net_close(r->net, s, r->clients[s].net_id, code, reason);
}

static unsigned random_tag(void)
{
    uint64_t t = now_ns();
    return (unsigned)((t ^ (t >> 17) ^ (uint64_t)getpid() * 2654435761u) % SUBJECT_TAG_MAX) + 1;
}

static void on_reply(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);

/* The subjects of the current tag (P.cmd.<tag>, P.lease.<tag>), and listens
 * on its reply subject. 0 or -1. */
static int listen_for_replies(relay_t *r)
{
    nats_link_unsubscribe(r->link, r->sub_reply);
    r->sub_reply = NULL;
    const char *p = r->cfg.nats_prefix;
    if (subject_reply(r->subj_reply, sizeof r->subj_reply, p, r->tag) ||
        subject_cmd(r->subj_cmd, sizeof r->subj_cmd, p, r->tag) ||
        subject_lease(r->subj_lease, sizeof r->subj_lease, p, r->tag))
        return -1;
    r->sub_reply = nats_link_subscribe(r->link, r->subj_reply, REPLY_PENDING_MSGS, REPLY_PENDING_BYTES, on_reply, r);
    return r->sub_reply ? 0 : -1;
}

/* Another live relay holds our tag: take another; viewers greeted with ids
 * of the old one must reconnect. */
static void change_tag(relay_t *r)
{
    unsigned old = r->tag;
    do r->tag = random_tag();
    while (r->tag == old);
    r->n.tag_changes++;
    if (!r->cfg.relay_name) snprintf(r->name, sizeof r->name, "relay-%u", r->tag);
    fprintf(stderr, "swarmcast: relay tag %u is taken by another relay; now tag %u\n", old, r->tag);
    /* Their ids are the other relay's now: no CLOSE may go out under them. */
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id) {
            client_slots_remove(r->by_id, r->clients[s].global_id);
            r->clients[s].global_id = 0;
        }
    close_everyone(r, 1012, "relay restarting, reconnect");
    listen_for_replies(r);
    r->lease_due = true;
}

/* Our fixed tag (--relay-tag) is held by another instance, most likely
 * this relay's predecessor restarted within the lease's 5 s: a fixed tag is
 * the one this relay's NATS user may use (docker/nats.conf), so it keeps
 * it and asks again each second until the old lease runs out, then
 * announces its viewers afresh (the simulation closes the old ones). */
static void wait_for_tag(relay_t *r)
{
    if (!r->tag_waiting)
        fprintf(stderr, "swarmcast: relay tag %u (--relay-tag) is held by another relay; waiting for it\n", r->tag);
    r->tag_waiting = true;
    r->replay_due = true;
}

/* The views are cut from the simulation's world: made at its first answer,
 * and again (every viewer keeping its connection, getting keys) if a
 * restarted simulation has another size. */
static int set_world(relay_t *r, float w, float h)
{
    if (r->viewers && w == r->world_w && h == r->world_h) return 0;
    viewers_t *old_viewers = r->viewers;
    views_t *old_views = r->views;
    views_t *views = views_create(r->cfg.max_views < RELAY_MAX_VIEWS ? r->cfg.max_views : RELAY_MAX_VIEWS);
    viewers_t *viewers = views ? viewers_create(r->cfg.max_clients, views, w, h, (double)r->cfg.detail_budget) : NULL;
    if (!viewers) {
        views_destroy(views);
        return -1;
    }
    r->views = views;
    r->viewers = viewers;
    r->world_w = w;
    r->world_h = h;
    viewers_destroy(old_viewers);
    views_destroy(old_views);
    free(r->grants);
    r->grants = NULL;
    r->n_grants = 0;
    relay_sync_subscriptions(r);
    relay_stream_reset(r->stream);
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id) viewers_open(r->viewers, s, now_ns());
    r->lease_due = true;
    return 0;
}

/* The viewers, announced again to a simulation that may have lost them. */
static void replay_viewers(relay_t *r)
{
    r->n.replays++;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id) continue;
        relay_send_open(r, s);
        if (c->hello_text) relay_send_envelope(r, BRIDGE_TEXT, c->global_id, relay_is_operator(r, s), c->hello_text,
                                         strlen(c->hello_text));
    }
}

static void on_lease_answer(relay_t *r, const char *text, size_t len)
{
    lease_reply_t a;
    if (lease_reply_parse(text, len, &a)) {
        r->n.bad_messages++;
        return;
    }
    char me[LEASE_NAME_MAX + 1];
    lease_name(r, me);
    if (a.to[0] && strcmp(a.to, me) != 0) { /* another relay's, that asked for our tag */
        free(a.hello);
        return;
    }
    r->n.leases_answered++;
    if (!a.ok) {
        if (strcmp(a.error, "tag_taken") == 0 && r->cfg.relay_tag)
            wait_for_tag(r);
        else if (strcmp(a.error, "tag_taken") == 0)
            change_tag(r);
        else
            fprintf(stderr, "swarmcast: relay: the simulation refused the lease: %s\n", a.error);
        free(a.hello);
        return;
    }
    r->lease_answered_ns = now_ns();
    r->tag_waiting = false;
    relay_world_t w;
    if (relay_hello_world(a.hello, &w) == 0 && set_world(r, (float)w.width, (float)w.height) == 0) {
        r->limits = (cmd_limits_t){(float)w.width, (float)w.height, w.max_agents ? w.max_agents : r->cfg.max_agents};
        if (w.control_token && !r->cfg.control_token && !r->sim_token)
            fprintf(stderr, "swarmcast: relay: the simulation has a control token and this relay none: its viewers "
                            "stay visitors (start the relay with the same --control-token)\n");
        r->sim_token = w.control_token;
        free(r->sim_hello);
        r->sim_hello = a.hello;
        a.hello = NULL;
    }
    free(a.hello);
    if (r->views) relay_apply_grants(r, &a);
    if (r->replay_due) {
        r->replay_due = false;
        replay_viewers(r);
    } else if (a.announce) {
        /* The simulation holds viewers this relay no longer has: the ones
         * it has, announced again, stay; the rest it closes. */
        r->n.replays++;
        for (size_t s = 0; s < r->cfg.max_clients; s++)
            if (r->clients[s].net_id) relay_send_open(r, s);
    }
}

static void on_reply(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    relay_t *r = user;
    (void)subject, (void)reply;
    if (len == 0) return; /* a NATS status (no responders: no simulation is listening yet) */
    if (data[0] == '{') {
        on_lease_answer(r, (const char *)data, len);
        return;
    }
    bridge_envelope_t e;
    size_t slot;
    if (bridge_envelope_decode(data, len, &e)) {
        r->n.bad_messages++;
        return;
    }
    if (client_slots_get(r->by_id, e.client_id, &slot)) return; /* gone meanwhile */
    uint32_t net_id = r->clients[slot].net_id;
    if (e.kind == BRIDGE_REPLY) {
        char *text = malloc(e.text.len + 1);
        if (!text) return;
        memcpy(text, e.text.data, e.text.len);
        text[e.text.len] = '\0';
        net_send(r->net, slot, net_id, text);
        free(text);
    } else if (e.kind == BRIDGE_KICK) {
        char reason[124]; /* a close frame's reason: 123 bytes of UTF-8 at most */
        text_copy(reason, sizeof reason, (const char *)e.text.data, e.text.len);
        /* A code a close frame may carry (RFC 6455 7.4), else policy violation. */
        int code = e.code >= 1000 && e.code <= 4999 && e.code != 1005 && e.code != 1006 && e.code != 1015 ? e.code : 1008;
        net_close(r->net, slot, net_id, code, reason);
    }
}

static void on_nats_state(void *user, bool connected)
{
    relay_t *r = user;
    if (connected) r->lease_due = true;
}

/* ---- the clock ------------------------------------------------------------ */

static void on_timer(uv_timer_t *t)
{
    relay_t *r = t->data;
    uint64_t now = now_ns();
    bool connected = nats_link_connected(r->link);
    if (connected && (r->lease_due || now - r->lease_sent_ns >= LEASE_EVERY_NS)) send_lease(r);
    bool silent = !connected || now - r->last_frame_ns > FRAME_SILENCE_NS;
    if (silent && r->sim_hello) {
        if (!r->restarting) {
            fprintf(stderr, "swarmcast: relay: %s; viewers see \"world restarting\"\n",
                    connected ? "no snapshot for 2 s" : "NATS disconnected");
            r->replay_due = true;
            relay_show_status(r, true);
        } else if (now - r->status_sent_ns >= STATUS_REPEAT_NS) {
            relay_show_status(r, true);
        }
    }
    if (r->viewers) viewers_poll(r->viewers, now);
    if (r->views && views_changed(r->views)) r->lease_due = true;
}

/* ---- life cycle ------------------------------------------------------------ */

static int subscribe_fixed(relay_t *r)
{
    const char *p = r->cfg.nats_prefix;
    if (subject_frame(r->subj_frame, SUBJECT_MAX, p) || subject_news(r->subj_news, SUBJECT_MAX, p)) return -1;
    r->sub_frame =
        nats_link_subscribe(r->link, r->subj_frame, STREAM_PENDING_MSGS, STREAM_PENDING_BYTES, relay_on_frame, r);
    r->sub_news =
        nats_link_subscribe(r->link, r->subj_news, REPLY_PENDING_MSGS, REPLY_PENDING_BYTES, relay_on_news, r);
    if (!r->sub_frame || !r->sub_news) return -1;
    return listen_for_replies(r);
}

relay_t *relay_create(uv_loop_t *loop, const config_t *cfg)
{
    relay_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->loop = loop;
    r->cfg = *cfg;
    cfg = &r->cfg;
    r->started_ns = r->last_frame_ns = now_ns();
    r->tag = cfg->relay_tag ? cfg->relay_tag : random_tag();
    uint64_t t = now_ns();
    r->instance = (uint32_t)(t ^ (t >> 32) ^ (uint64_t)getpid() * 40503u);
    if (cfg->relay_name)
        snprintf(r->name, sizeof r->name, "%s", cfg->relay_name);
    else
        snprintf(r->name, sizeof r->name, "relay-%u", r->tag);
    r->limits = (cmd_limits_t){cfg->world_width, cfg->world_height, cfg->max_agents};
    r->clients = calloc(cfg->max_clients, sizeof *r->clients);
    r->policy = calloc(cfg->max_clients, sizeof *r->policy);
    r->by_id = client_slots_create(cfg->max_clients);
    r->compose = compose_create(cfg->max_clients, net_headroom());
    r->stream = relay_stream_create();
    if (!r->clients || !r->policy || !r->by_id || !r->compose || !r->stream) {
        fprintf(stderr, "swarmcast: out of memory for the relay\n");
        goto fail;
    }
    nats_link_config_t lc = {.urls = cfg->nats_url,
                             .name = r->name,
                             .user = cfg->nats_user,
                             .password = cfg->nats_password,
                             .creds_file = cfg->nats_creds,
                             .nkey_seed_file = cfg->nats_nkey_seed};
    if (!(r->link = nats_link_create(loop, &lc, on_nats_state, r))) goto fail;
    if (subscribe_fixed(r)) {
        fprintf(stderr, "swarmcast: relay: cannot subscribe to the simulation's subjects (prefix %s)\n",
                cfg->nats_prefix);
        goto fail;
    }
    net_config_t nc = net_config_for(cfg);
    net_callbacks_t cb = {r, relay_on_open, relay_on_message, relay_on_close, relay_on_health, relay_on_metrics, relay_compose_v2};
    if (!(r->net = net_create(loop, &nc, &cb))) {
        fprintf(stderr, "swarmcast: cannot listen on %s:%d with web root %s\n", cfg->bind, cfg->port, cfg->web_root);
        goto fail;
    }
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    uv_timer_start(&r->timer, on_timer, TIMER_MS, TIMER_MS);
    fprintf(stderr, "swarmcast: relay %s (tag %u) on NATS %s, prefix %s\n", r->name, r->tag, cfg->nats_url,
            cfg->nats_prefix);
    return r;
fail:
    relay_destroy(r);
    return NULL;
}

int relay_port(const relay_t *r) { return net_port(r->net); }

/* The viewers are gone (or the grace period is over): NATS goes last,
 * because closing it may block the loop for a moment (libnats joins its
 * threads), which would eat the viewers' grace period. */
static void on_net_closed(void *arg)
{
    relay_t *r = arg;
    nats_link_destroy(r->link);
    r->link = NULL;
}

void relay_shutdown(relay_t *r)
{
    if (r->shut_down) return;
    r->shut_down = true;
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, NULL);
    /* The simulation hears of every viewer's leaving now rather than when
     * the lease runs out (5 s). */
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id)
            relay_send_envelope(r, BRIDGE_CLOSE, r->clients[s].global_id, relay_is_operator(r, s), NULL, 0);
    net_shutdown(r->net, on_net_closed, r);
}

void relay_destroy(relay_t *r)
{
    if (!r) return;
    if (r->link) nats_link_destroy(r->link);
    net_destroy(r->net);
    bundle_free(r->current);
    compose_destroy(r->compose);
    viewers_destroy(r->viewers);
    views_destroy(r->views);
    relay_stream_destroy(r->stream);
    client_slots_destroy(r->by_id);
    for (size_t s = 0; r->clients && s < r->cfg.max_clients; s++) free(r->clients[s].hello_text);
    free(r->clients);
    free(r->policy);
    free(r->grants);
    free(r->listening);
    free(r->sim_hello);
    free(r);
}

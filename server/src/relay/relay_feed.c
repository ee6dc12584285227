/* relay_feed: what the simulation publishes about each room the relay
 * serves, passed on to that room's viewers (its channel in net): the
 * snapshot message of each tick (with the view messages of the views
 * granted to its viewers, made into the bundle that compose takes), the
 * news (parameters, metrics, presence) and the world-restarting banner;
 * and which view subjects it listens to, kept to exactly the grants of
 * the views its viewers watch. Loop thread only. */
#include <stdlib.h>
#include <string.h>

#include "relay/relay_internal.h"
#include "relay/relay_lease.h"

/* The news key of the banner: above the simulation's keys (0 metrics, 1 + a
 * parameter, 500–502 presence), below NET_LATEST_KEYS. */
#define LATEST_STATUS 510

static const grant_t *grant_of(const relay_room_t *r, uint32_t view_id)
{
    for (size_t i = 0; i < r->n_grants; i++)
        if (r->grants[i].view_id == view_id) return &r->grants[i];
    return NULL;
}

static void on_view_msg(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    relay_room_t *room = user;
    (void)reply;
    bridge_view_t v;
    char expected[SUBJECT_MAX];
    /* Kept under the rect it names: one that does not match its subject
     * would add a view nobody subscribed to (and grow without bound). */
    if (bridge_view_decode(data, len, &v) ||
        subject_view(expected, sizeof expected, room->stream_prefix, v.mode, v.rect) < 0 || strcmp(expected, subject) != 0) {
        room->relay->n.bad_messages++;
        return;
    }
    relay_stream_put_view(room->stream, &v);
}

void relay_show_status(relay_room_t *room, bool restarting)
{
    room->restarting = restarting;
    room->status_sent_ns = now_ns();
    net_send_latest(room->relay->net, room->index, LATEST_STATUS,
                    restarting ? "{\"type\":\"status\",\"state\":\"restarting\",\"message\":\"world restarting\"}"
                               : "{\"type\":\"status\",\"state\":\"running\"}");
}

void relay_on_frame(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    relay_room_t *room = user;
    relay_t *relay = room->relay;
    (void)subject, (void)reply;
    bridge_snapshot_t snap;
    if (!room->viewers || bridge_snapshot_decode(data, len, &snap)) {
        if (room->viewers) relay->n.bad_messages++;
        return;
    }
    if (room->current && snap.seq < room->current->seq) {
        /* The numbering started again: a simulation that restarted faster
         * than the banner's 2 s, and lost our viewers with it. (Deltas
         * cannot follow across it: the continuity rule sees the seq.) */
        relay->replay_due = true;
    }
    size_t n = 0;
    const view_spec_t *specs = views_specs(room->views, &n);
    relay_local_view_t *locals = calloc(n ? n : 1, sizeof *locals);
    if (!locals) return;
    size_t k = 0;
    for (size_t i = 0; specs && i < n; i++) {
        const grant_t *g = grant_of(room, specs[i].id);
        if (g) locals[k++] = (relay_local_view_t){specs[i].id, g->to.mode, g->to.rect};
    }
    bundle_t *b = relay_stream_bundle(room->stream, &snap, locals, k);
    free(locals);
    if (!b) return;
    if (snap.header.len >= 12) {
        const uint8_t *h = snap.header.data + 8; /* the frame header's tick (PROTOCOL.md, "Frame") */
        room->tick = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    }
    compose_apply(room->compose, b);
    bundle_free(room->current);
    room->current = b;
    relay->n.frames++;
    room->last_frame_ns = now_ns();
    if (room->restarting) relay_show_status(room, false);
    viewers_set_grid(room->viewers, &room->current->grid);
    viewers_poll(room->viewers, now_ns());
    if (views_changed(room->views)) room->lease_due = true;
    relay_scrub_follow_views(relay, room);
    net_publish_v2(relay->net, room->index);
}

void relay_on_news(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    relay_room_t *room = user;
    (void)subject, (void)reply;
    bridge_news_t m;
    if (bridge_news_decode(data, len, &m) || m.key >= NET_LATEST_KEYS || m.key == LATEST_STATUS) {
        room->relay->n.bad_messages++;
        return;
    }
    /* Before the room's hello, its channel holds only viewers waiting for
     * it, who must get the hello first; the hello has the news's state. */
    if (!room->sim_hello) return;
    char *text = malloc(m.text.len + 1);
    if (!text) return;
    memcpy(text, m.text.data, m.text.len);
    text[m.text.len] = '\0';
    net_send_latest(room->relay->net, room->index, m.key, text);
    free(text);
}

static listening_t *listening_find(relay_room_t *r, lease_view_t g)
{
    for (size_t i = 0; i < r->n_listening; i++)
        if (r->listening[i].mode == g.mode && wire2_rect_equal(r->listening[i].rect, g.rect)) return &r->listening[i];
    return NULL;
}

/* Listens to exactly the subjects of the granted views of the views the
 * viewers watch now. */
void relay_sync_subscriptions(relay_room_t *r)
{
    nats_link_t *link = r->relay->link;
    for (size_t i = 0; i < r->n_listening; i++) r->listening[i].needed = false;
    for (size_t i = 0; i < r->n_grants; i++) {
        listening_t *l = listening_find(r, r->grants[i].to);
        if (l) {
            l->needed = true;
            continue;
        }
        char subject[SUBJECT_MAX];
        if (subject_view(subject, sizeof subject, r->stream_prefix, r->grants[i].to.mode, r->grants[i].to.rect))
            continue;
        if (r->n_listening == r->cap_listening) {
            size_t cap = r->cap_listening ? 2 * r->cap_listening : 16;
            listening_t *grown = realloc(r->listening, cap * sizeof *grown);
            if (!grown) continue;
            r->listening = grown;
            r->cap_listening = cap;
        }
        nats_link_sub_t *sub =
            nats_link_subscribe(link, subject, STREAM_PENDING_MSGS, STREAM_PENDING_BYTES, on_view_msg, r);
        if (!sub) continue;
        r->listening[r->n_listening++] = (listening_t){r->grants[i].to.mode, r->grants[i].to.rect, sub, true};
    }
    for (size_t i = 0; i < r->n_listening;) {
        listening_t *l = &r->listening[i];
        if (l->needed) {
            i++;
            continue;
        }
        nats_link_unsubscribe(link, l->sub);
        relay_stream_forget(r->stream, l->mode, l->rect);
        *l = r->listening[--r->n_listening];
    }
}

/* The grants of an answer, for the views of the last request (a grant that
 * cannot be for its view, an answer to an older request, is left out);
 * views asked about since keep their previous grant until the next answer. */
void relay_apply_grants(relay_room_t *r, const lease_reply_t *a)
{
    const asked_t *q = &r->asked;
    if (q->n != a->n_views) return;
    size_t n = 0;
    const view_spec_t *specs = views_specs(r->views, &n);
    if (!specs) n = 0;
    grant_t *next = calloc(n ? n : 1, sizeof *next);
    if (!next) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const grant_t *before = grant_of(r, specs[i].id);
        bool found = false;
        for (size_t j = 0; j < q->n && !found; j++)
            if (q->view_ids[j] == specs[i].id && relay_grant_covers(q->views[j], a->views[j])) {
                next[k++] = (grant_t){specs[i].id, a->views[j]};
                found = true;
            }
        if (!found && before) next[k++] = *before;
    }
    free(r->grants);
    r->grants = next;
    r->n_grants = k;
    relay_sync_subscriptions(r);
}

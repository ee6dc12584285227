/* relay_upstream: the relay's own conversation with the simulation, on its
 * tag's subjects (PROTOCOL.md, "NATS subjects"): its viewers' envelopes up
 * (P.cmd.<tag>, each naming its viewer's room), a lease per room every
 * second (P.lease.<tag>: the views its viewers in that room need), and
 * what comes back on P.reply.<tag>: a lease answer (the room's world and
 * hello, the grants, a census, the tag taken by another relay, or no such
 * room), a reply to one viewer, a kick, or a role. Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/room_messages.h"
#include "protocol/utf8.h"
#include "relay/relay_internal.h"
#include "relay/relay_lease.h"

/* Distinct views a relay leases at most (the simulation refuses a lease
 * of more); past it viewers share a containing view (views.h). */
#define RELAY_MAX_VIEWS LEASE_MAX_VIEWS

/* ---- to the simulation ---------------------------------------------- */

void relay_send_envelope(relay_t *r, bridge_kind_t kind, size_t slot, const char *text, size_t len)
{
    const relay_client_t *c = &r->clients[slot];
    bridge_envelope_t e = {.kind = kind, .operator = c->control, .client_id = c->global_id,
                           .text = {(const uint8_t *)text, len, text != NULL}};
    memcpy(e.room, r->rooms[c->room]->code, sizeof e.room);
    if (!r->link || !c->global_id) return; /* shutting down; a viewer whose id was given up (change_tag) */
    size_t n;
    uint8_t *msg = bridge_envelope_encode(&e, &n);
    if (!msg) return;
    nats_link_publish(r->link, r->subj_cmd, r->subj_reply, msg, n);
    free(msg);
}

void relay_send_open(relay_t *r, size_t slot) { relay_send_envelope(r, BRIDGE_OPEN, slot, NULL, 0); }

/* How this process names itself in its leases: name#instance. */
static void lease_name(const relay_t *r, char out[LEASE_NAME_MAX + 1])
{
    snprintf(out, LEASE_NAME_MAX + 1, "%s#%08x", r->name, (unsigned)r->instance);
}

/* The views a room's viewers need, to the simulation (every second, and
 * soon after they change). The default room's lease is the relay's
 * heartbeat, and reports all its viewers (the simulation's census). */
void relay_send_lease(relay_t *r, relay_room_t *room)
{
    size_t n = 0;
    const view_spec_t *specs = room->views ? views_specs(room->views, &n) : NULL;
    if (!specs) n = 0;
    lease_request_t req = {.tag = r->tag,
                           .clients = (uint32_t)(room->index == 0 ? net_client_count(r->net) : room->people)};
    memcpy(req.room, room->code, sizeof req.room);
    lease_name(r, req.relay);
    asked_t *q = &room->asked;
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
    room->lease_due = false;
    room->lease_sent_ns = now_ns();
}

static void all_leases_due(relay_t *r)
{
    for (size_t i = 0; i < r->n_rooms_max; i++)
        if (r->rooms[i]) r->rooms[i]->lease_due = true;
}

/* ---- the simulation's answers ---------------------------------------------- */

static void close_everyone(relay_t *r, int code, const char *reason)
{
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id) net_close(r->net, s, r->clients[s].net_id, code, reason);
}

unsigned relay_random_tag(void)
{
    uint64_t t = now_ns();
    return (unsigned)((t ^ (t >> 17) ^ (uint64_t)getpid() * 2654435761u) % SUBJECT_TAG_MAX) + 1;
}

static void on_reply(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len);

/* The subjects of the current tag (P.cmd.<tag>, P.lease.<tag>), and listens
 * on its reply subject. 0 or -1. */
int relay_listen_for_replies(relay_t *r)
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
    do r->tag = relay_random_tag();
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
    relay_listen_for_replies(r);
    all_leases_due(r);
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

/* A room's views are cut from its world: made at the simulation's first
 * answer about it, and again (every viewer keeping its connection, getting
 * keys) if a restarted simulation has another size. */
static int set_world(relay_t *r, relay_room_t *room, float w, float h)
{
    if (room->viewers && w == room->world_w && h == room->world_h) return 0;
    viewers_t *old_viewers = room->viewers;
    views_t *old_views = room->views;
    views_t *views = views_create(r->cfg.max_views < RELAY_MAX_VIEWS ? r->cfg.max_views : RELAY_MAX_VIEWS);
    viewers_t *viewers = views ? viewers_create(r->cfg.max_clients, views, w, h, (double)r->cfg.detail_budget) : NULL;
    if (!viewers) {
        views_destroy(views);
        return -1;
    }
    room->views = views;
    room->viewers = viewers;
    room->world_w = w;
    room->world_h = h;
    viewers_destroy(old_viewers);
    views_destroy(old_views);
    free(room->grants);
    room->grants = NULL;
    room->n_grants = 0;
    relay_sync_subscriptions(room);
    relay_stream_reset(room->stream);
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        const relay_client_t *c = &r->clients[s];
        if (c->net_id && c->room == room->index && !c->waiting) viewers_open(room->viewers, s, now_ns());
    }
    room->lease_due = true;
    return 0;
}

/* The viewers, announced again to a simulation that may have lost them. */
static void replay_viewers(relay_t *r)
{
    r->n.replays++;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || c->waiting) continue;
        relay_send_open(r, s);
        if (c->hello_text) relay_send_envelope(r, BRIDGE_TEXT, s, c->hello_text, strlen(c->hello_text));
    }
    relay_scrub_all_live(r); /* the simulation may hold no seat of theirs now */
}

/* A room's lease came to the simulation before this relay's heartbeat (it
 * has just restarted, or the tag is another relay's): the heartbeat goes at
 * the next tick, and the room's lease after it (rooms go in index order,
 * the default room first; NATS keeps one publisher's order), so that the
 * room's waiting viewers are greeted in a tick rather than at the next
 * second's lease. While the tag is another's, the leases keep their pace. */
static void heartbeat_first(relay_t *r, relay_room_t *room)
{
    if (r->tag_waiting) return;
    r->rooms[0]->lease_due = true;
    room->lease_due = true;
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
    relay_room_t *room = relay_room_find(r, a.room);
    bool home = room && room->index == 0;
    if (!a.ok) {
        if (strcmp(a.error, "tag_taken") == 0 && !a.room[0] && r->cfg.relay_tag)
            wait_for_tag(r);
        else if (strcmp(a.error, "tag_taken") == 0 && !a.room[0])
            change_tag(r);
        else if (room && (strcmp(a.error, "no_room") == 0 || strcmp(a.error, "unavailable") == 0))
            relay_room_refused(r, room, a.error);
        else if (room && strcmp(a.error, "not_joined") == 0)
            heartbeat_first(r, room);
        else if (strcmp(a.error, "tag_taken") != 0)
            fprintf(stderr, "swarmcast: relay: the simulation refused the lease%s%s: %s\n", a.room[0] ? " of room " : "",
                    a.room, a.error);
        free(a.hello);
        return;
    }
    if (!room) { /* a room whose last viewer left meanwhile */
        free(a.hello);
        return;
    }
    room->lease_answered_ns = now_ns();
    if (home) r->tag_waiting = false;
    relay_world_t w;
    if (relay_hello_world(a.hello, &w) == 0 && set_world(r, room, (float)w.width, (float)w.height) == 0) {
        room->limits = (cmd_limits_t){(float)w.width, (float)w.height, w.max_agents ? w.max_agents : r->cfg.max_agents};
        if (home && w.control_token && !r->cfg.control_token && !room->sim_token)
            fprintf(stderr, "swarmcast: relay: the simulation has a control token and this relay none: its viewers "
                            "stay visitors (start the relay with the same --control-token)\n");
        room->sim_token = w.control_token;
        free(room->sim_hello);
        room->sim_hello = a.hello;
        a.hello = NULL;
    }
    free(a.hello);
    if (room->views) relay_apply_grants(room, &a);
    relay_room_answered(r, room);
    if (!home) return;
    if (r->replay_due) {
        r->replay_due = false;
        replay_viewers(r);
    } else if (a.announce) {
        /* The simulation holds viewers this relay no longer has: the ones
         * it has, announced again, stay; the rest it closes. */
        r->n.replays++;
        for (size_t s = 0; s < r->cfg.max_clients; s++)
            if (r->clients[s].net_id && !r->clients[s].waiting) relay_send_open(r, s);
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
        if (code == CLOSE_ROOM_CLOSED) relay_room_gone(relay_room_of(r, slot));
        net_close(r->net, slot, net_id, code, reason);
    } else if (e.kind == BRIDGE_PAST) {
        relay_scrub_past(r, slot, e.text.data, e.text.len);
    } else if (e.kind == BRIDGE_LIVE) {
        relay_scrub_live(r, slot);
    } else if (e.kind == BRIDGE_ROLE) {
        /* The simulation made it an operator (its room's token): its
         * commands pass the relay's role check from now on. */
        r->policy[slot].operator = true;
    }
}

void relay_on_nats_state(void *user, bool connected)
{
    relay_t *r = user;
    if (connected) all_leases_due(r);
}

/* relay_bridge: the simulation's side of the NATS bridge to edge relays
 * (--nats; loop thread). A relay's viewers get remote slots and go through
 * the same sessions as local ones (P.cmd.<tag>), in the room their
 * envelopes name; relays lease the views their viewers watch, room by room
 * (P.lease.<tag>: a lease names its room, and the default room's is the
 * relay's heartbeat), and a census closes the viewers a relay no longer
 * has; each room's bundle is published once for every relay that leases
 * it (S.view.…, then S.frame, S being the room's stream prefix). The
 * messages' formats are bridge/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "bridge/bridge_msg.h"
#include "protocol/messages.h"
#include "protocol/snapshot.h"
#include "protocol/room_messages.h"

/* With --nats, the view a viewer who names none gets (the whole world,
 * detail or LOD by the default budget) is published whether or not a relay
 * leases it: a relay's first viewer starts without waiting for a lease,
 * and what the simulation publishes does not change with the first viewer
 * anywhere. It is kept by one viewer slot past net's (viewers.h). */
#define RELAYS_DEFAULT_VIEWER(a) ((a)->cfg.max_clients)
/* Leases in a row that report fewer viewers than the simulation holds for
 * that relay before it asks the relay to announce them again. */
#define CENSUS_AFTER_LEASES 3

/* An envelope to the relay of client_id, on P.reply.<tag>. */
void send_envelope_bytes(app_t *a, uint32_t client_id, bridge_kind_t kind, uint16_t code, const uint8_t *data,
                         size_t len)
{
    char subject[SUBJECT_MAX];
    if (!a->nats || subject_reply(subject, sizeof subject, a->cfg.nats_prefix, remote_tag_of(client_id)) < 0) return;
    bridge_envelope_t e = {.kind = kind, .client_id = client_id, .code = code};
    if (data) e.text = (bridge_bytes_t){data, len, true};
    size_t n;
    uint8_t *msg = bridge_envelope_encode(&e, &n);
    if (msg) nats_link_publish(a->nats, subject, NULL, msg, n);
    free(msg);
}

void send_envelope(app_t *a, uint32_t client_id, bridge_kind_t kind, uint16_t code, const char *text)
{
    send_envelope_bytes(a, client_id, kind, code, (const uint8_t *)text, text ? strlen(text) : 0);
}

int bridge_room_subjects(room_t *r)
{
    const char *prefix = r->cfg->nats_prefix;
    if (subject_room_prefix(r->stream_prefix, sizeof r->stream_prefix, prefix, r->code) ||
        subject_frame(r->subject_frame, sizeof r->subject_frame, r->stream_prefix) ||
        subject_news(r->subject_news, sizeof r->subject_news, r->stream_prefix)) {
        fprintf(stderr, "swarmcast: room %s: its NATS subjects do not fit under prefix %s\n", r->code, prefix);
        return -1;
    }
    return 0;
}

bool bridge_publishing(const room_t *r)
{
    const app_t *a = r->app;
    if (!a->nats || !r->stream_prefix[0]) return false;
    /* The default room publishes its default view whether or not a relay
     * leases it (bridge_start); another room only while a relay does. */
    return r == a->home || (r->leases && relay_leases_count(r->leases) > 0);
}

/* A relay's viewer gets a remote slot in room; -1 (kick) when they are all
 * taken. operator: the relay gave it the server's role (the control
 * token, or a server without one); in the default room of a server
 * without a token everyone is an operator, as on the server itself. */
static long remote_open(app_t *a, room_t *room, uint32_t client_id, bool operator)
{
    long index = remote_clients_add(a->remote, client_id);
    if (index < 0) return -1;
    a->remote_seen[index] = true;
    bridge_timeline_forget(a, (size_t)index);
    size_t slot = a->cfg.max_clients + (size_t)index;
    bool no_token = a->cfg.control_token == NULL;
    join_slot(room, client_id, slot, operator || (room == a->home && no_token));
    a->policy[slot].server_operator = operator || no_token;
    return index;
}

/* An OPEN or TEXT for a client the simulation does not hold: it joins the
 * room its envelope names, or is sent away. A kept room is opened again,
 * as for a lease: a simulation just restarted hears a relay announce its
 * viewers again (replay) before, or without, the lease of their room, and
 * must not tell them a room it keeps is no room. -1 when it was not opened. */
static long open_for(app_t *a, const bridge_envelope_t *e)
{
    bool kept = false;
    char why[160];
    room_t *room = e->room[0] ? rooms_find_or_reopen(a, e->room, &kept, why, sizeof why) : a->home;
    long index = room && !room->closing ? remote_open(a, room, e->client_id, e->operator) : -1;
    if (index >= 0) return index;
    a->bridge_refused++;
    if (!room && kept)
        send_envelope(a, e->client_id, BRIDGE_KICK, CLOSE_TRY_AGAIN_LATER, "the room cannot open now; try again later");
    else if (!room)
        send_envelope(a, e->client_id, BRIDGE_KICK, CLOSE_NO_SUCH_ROOM, "no such room");
    else
        send_envelope(a, e->client_id, BRIDGE_KICK, 1013, "the simulation serves no more relay viewers");
    return -1;
}

/* The same path as a local close (presence, departures), then the slot is free. */
void remote_close(app_t *a, size_t slot, uint32_t client_id)
{
    on_close(a, client_id, slot);
    remote_clients_remove(a->remote, slot - a->cfg.max_clients);
}

/* P.cmd.<tag>: one envelope from a relay about one of its viewers, who must
 * be of that tag: a relay speaks only for its own viewers (NATS permissions
 * keep each relay's user to its own subjects, docker/nats.conf). Self-sufficient:
 * a TEXT from a client the simulation does not know (it restarted, say)
 * opens it with the envelope's role. */
static void on_nats_cmd(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)reply;
    app_t *a = user;
    bridge_envelope_t e;
    unsigned tag = subject_tag_of(subject);
    if (bridge_envelope_decode(data, len, &e) < 0 || remote_tag_of(e.client_id) != tag ||
        !relay_leases_live(a->home->leases, tag)) {
        a->bridge_refused++;
        return;
    }
    long index = remote_clients_find(a->remote, e.client_id);
    size_t slot = index >= 0 ? a->cfg.max_clients + (size_t)index : 0; /* used only when index >= 0 */
    switch (e.kind) {
    case BRIDGE_OPEN:
        if (index < 0) {
            open_for(a, &e);
        } else {
            a->remote_seen[index] = true;
            /* auth with the control token at the relay: the server's role
             * (a role once given stays for the session, as on the server:
             * an announcement without the flag takes none away). */
            room_t *room = room_of_slot(a, slot);
            if (e.operator && room) {
                a->policy[slot].operator = a->policy[slot].server_operator = true;
                presence_set_role(room->presence, slot, e.client_id, true);
            }
        }
        break;
    case BRIDGE_TEXT:
        if (index < 0 && (index = open_for(a, &e)) < 0) break;
        a->remote_seen[index] = true;
        if (e.text.len > PROTOCOL_MAX_MESSAGE_BYTES) { /* the relay's net bounds it already */
            a->bridge_refused++;
            break;
        }
        on_message(a, e.client_id, a->cfg.max_clients + (size_t)index, (const char *)e.text.data, e.text.len, false);
        break;
    case BRIDGE_SCRUB_VIEW: /* before each of its timeline messages, and when its view changes while it scrubs */
        if (index < 0 && (index = open_for(a, &e)) < 0) break;
        a->remote_seen[index] = true;
        bridge_scrub_view_set(a, (size_t)index, &e);
        break;
    case BRIDGE_CLOSE:
        if (index >= 0) remote_close(a, slot, e.client_id);
        break;
    default: a->bridge_refused++; break; /* REPLY, KICK, ROLE, PAST and LIVE go the other way */
    }
}

/* Leases of the other rooms that were not renewed: a relay whose last
 * viewer of that room left (or that died). Their views go; the viewers
 * themselves left with their CLOSE (or go with the relay's heartbeat). */
static void expire_room_leases(app_t *a)
{
    unsigned dead[64];
    for (size_t i = 1; i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r || !r->leases) continue;
        bool any = false;
        while (relay_leases_expire(r->leases, now_ns(), dead, 64) > 0) any = true;
        if (any) sync_encoder(r);
    }
}

/* Relays that stopped renewing their heartbeat (the default room's lease):
 * their viewers leave, in whichever room they are. */
static void expire_relays(app_t *a)
{
    expire_room_leases(a);
    unsigned dead[64];
    size_t n;
    while ((n = relay_leases_expire(a->home->leases, now_ns(), dead, 64)) > 0) {
        for (size_t k = 0; k < n; k++) {
            uint32_t ids[256];
            size_t closed = 0, got;
            while ((got = remote_clients_of_tag(a->remote, dead[k], ids, 256)) > 0) {
                for (size_t i = 0; i < got; i++)
                    remote_close(a, a->cfg.max_clients + (size_t)remote_clients_find(a->remote, ids[i]), ids[i]);
                closed += got;
            }
            fprintf(stderr, "swarmcast: relay tag %u renewed no lease for %.0f s: gone, its %zu viewer(s) left\n",
                    dead[k], RELAY_LEASE_TTL_NS / 1e9, closed);
            a->census_streak[dead[k]] = 0;
            a->census_pending[dead[k]] = false;
        }
        sync_encoder(a->home);
    }
}

static void on_lease_timer(uv_timer_t *t) { expire_relays(t->data); }

/* A relay reports in each lease how many viewers it has. The simulation
 * may hold more: a CLOSE lost while NATS was down (published into a
 * reconnect buffer the server never saw) would leave a ghost in presence
 * and its target in the world until the relay died. After
 * CENSUS_AFTER_LEASES such leases in a row it asks the relay to announce
 * its viewers again (true: the answer says "announce"), and at the next
 * lease (the relay's OPENs come before it: one publisher, one order)
 * closes those that were not announced. */
static bool census(app_t *a, unsigned tag, uint32_t reported)
{
    size_t held = remote_clients_of_tag(a->remote, tag, a->census_ids, remote_clients_cap(a->remote));
    if (a->census_pending[tag]) {
        a->census_pending[tag] = false;
        a->census_streak[tag] = 0;
        for (size_t i = 0; i < held; i++) {
            long index = remote_clients_find(a->remote, a->census_ids[i]);
            if (index < 0 || a->remote_seen[index]) continue;
            remote_close(a, a->cfg.max_clients + (size_t)index, a->census_ids[i]);
            a->census_closed++;
        }
        return false;
    }
    if (held <= reported) {
        a->census_streak[tag] = 0;
        return false;
    }
    if (++a->census_streak[tag] < CENSUS_AFTER_LEASES) return false;
    for (size_t i = 0; i < held; i++) {
        long index = remote_clients_find(a->remote, a->census_ids[i]);
        if (index >= 0) a->remote_seen[index] = false;
    }
    a->census_pending[tag] = true;
    return true;
}

/* The room a lease is for: the default room, an open one, or a kept one
 * opened again (a relay's viewer is on the way). NULL: none; *error is
 * the refusal's ("no_room", or "unavailable" for a kept room that cannot
 * open now: no place or budget). */
static room_t *leased_room(app_t *a, const lease_request_t *req, const char **error)
{
    if (!req->room[0]) return a->home;
    bool kept = false;
    char why[160];
    room_t *r = rooms_find_or_reopen(a, req->room, &kept, why, sizeof why);
    if (r && !r->closing && (r->leases || (r->leases = relay_leases_create(r->views)))) return r;
    if (!r && !kept) a->room_codes_wrong++;
    if (kept && !r) fprintf(stderr, "swarmcast: relay '%s' asked for room %s: %s\n", req->relay, req->room, why);
    *error = r || kept ? "unavailable" : "no_room";
    return NULL;
}

/* Whether the relay of a lease holds its tag by a live heartbeat (the
 * default room's lease, under the same name). A relay's room lease can
 * come first: a viewer of a room arrives at a relay while the simulation,
 * just restarted, has not heard the relay's heartbeat (sent each second). */
static bool heartbeat_live(const app_t *a, const lease_request_t *req)
{
    const char *holder = relay_leases_name(a->home->leases, req->tag);
    return holder && strcmp(holder, req->relay) == 0;
}

/* The answer to a lease granted in room r: the grants, and the hello a v2
 * client of that room would get (the relay patches the id and role, and
 * sets its own public_url: it serves the page). */
static char *lease_granted(app_t *a, room_t *r, const lease_request_t *req, const lease_view_t *granted,
                           bool announce)
{
    pthread_mutex_lock(&r->lock);
    world_info_t info = r->summary.info;
    pthread_mutex_unlock(&r->lock);
    hello_info_t h = {0, a->cfg.tick_hz, a->cfg.snapshot_hz, false, r != a->home || a->cfg.control_token != NULL, 2,
                      NULL, r->code, r->name, config_rooms_names[a->cfg.rooms]};
    char *hello = msg_hello(&h, &info);
    char *answer = hello ? lease_reply_format(req->tag, req->relay, req->room, granted, req->n_views, hello, announce)
                         : NULL;
    free(hello);
    return answer;
}

/* P.lease.<tag>: a relay's views in one room, renewed every second, for
 * that tag only; the answer goes to P.reply.<tag> whatever reply subject
 * the request names (no relay can make the simulation write on another's).
 * The default room's lease is the relay's heartbeat: it holds the tag and
 * carries the census. */
static void on_nats_lease(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)reply;
    app_t *a = user;
    unsigned tag = subject_tag_of(subject);
    char answer_subject[SUBJECT_MAX];
    if (!tag || subject_reply(answer_subject, sizeof answer_subject, a->cfg.nats_prefix, tag) < 0) {
        a->bridge_refused++;
        return;
    }
    lease_request_t req;
    char *answer = NULL;
    const char *error = NULL;
    room_t *r = NULL;
    if (lease_request_parse((const char *)data, len, &req) < 0 || req.tag != tag) {
        a->bridge_refused++;
        answer = lease_reply_refusal("bad_request", NULL, NULL);
    } else if (expire_relays(a), req.room[0] && !heartbeat_live(a, &req)) {
        /* Its viewers' commands would be refused (on_nats_cmd) until the
         * heartbeat comes, so the room's viewers are not greeted before:
         * the relay sends its heartbeat, then this lease again. */
        answer = lease_reply_refusal("not_joined", req.relay, req.room);
    } else if (!(r = leased_room(a, &req, &error))) { /* a dead relay's tag is free again */
        answer = lease_reply_refusal(error, req.relay, req.room);
    } else {
        lease_view_t granted[LEASE_MAX_VIEWS];
        bool is_new = false;
        int rc = relay_leases_renew(r->leases, &req, now_ns(), granted, &is_new);
        if (rc == RELAY_LEASE_TAG_TAKEN) {
            answer = lease_reply_refusal("tag_taken", req.relay, req.room);
        } else if (rc == RELAY_LEASE_OK) {
            bool announce = r == a->home && census(a, req.tag, req.clients);
            answer = lease_granted(a, r, &req, granted, announce);
            if (is_new && r == a->home) fprintf(stderr, "swarmcast: relay '%s' (tag %u) joined\n", req.relay, req.tag);
            sync_encoder(r);
        }
    }
    if (answer) nats_link_publish(a->nats, answer_subject, NULL, answer, strlen(answer));
    free(answer);
}

void bridge_room_closing(app_t *a, room_t *r)
{
    for (size_t s = a->cfg.max_clients; s < a->n_slots; s++) {
        uint32_t id = a->slot_room[s] == r ? remote_clients_id(a->remote, s - a->cfg.max_clients) : 0;
        if (!id) continue;
        send_envelope(a, id, BRIDGE_KICK, CLOSE_ROOM_CLOSED, "room closed");
        remote_clients_remove(a->remote, s - a->cfg.max_clients);
    }
    relay_leases_destroy(r->leases);
    r->leases = NULL;
}

/* One view's chunks of a bundle on its subject (P.view.…); nothing when
 * the view is newer than the bundle. */
static void publish_view(room_t *r, const bundle_t *b, view_spec_t spec)
{
    app_t *a = r->app;
    const bundle_view_t *bv = NULL;
    for (size_t k = 0; k < b->n_views && !bv; k++)
        if (b->views[k].view_id == spec.id) bv = &b->views[k];
    if (!bv) return;
    char subject[SUBJECT_MAX];
    size_t len;
    uint8_t *msg = NULL;
    if (subject_view(subject, sizeof subject, r->stream_prefix, spec.mode, spec.rect) == 0 &&
        (msg = bridge_view_encode(b->seq, bv, &spec, &len)))
        nats_link_publish(a->nats, subject, NULL, msg, len);
    free(msg);
}

/* A room's bundle for the relays: (in the default room) the default view
 * and each leased view (S.view.…), then the snapshot (S.frame), so that a
 * relay that has the frame has its views. Once per bundle whatever the
 * number of relays and viewers; nothing from a room no relay leases. */
void publish_bundle(room_t *r, const bundle_t *b)
{
    app_t *a = r->app;
    if (!bridge_publishing(r) || !nats_link_connected(a->nats)) return; /* a gap, not a backlog */
    viewer_view_t def = r == a->home ? viewers_view_of(r->viewers, RELAYS_DEFAULT_VIEWER(a)) : (viewer_view_t){0};
    if (def.view_id && !relay_leases_view_leased(r->leases, def.view_id))
        publish_view(r, b, (view_spec_t){def.view_id, def.rect, def.mode});
    size_t n_leased;
    const relay_leased_view_t *leased = relay_leases_views(r->leases, &n_leased);
    for (size_t i = 0; i < n_leased; i++)
        publish_view(r, b, (view_spec_t){leased[i].view_id, leased[i].view.rect, leased[i].view.mode});
    size_t len;
    uint8_t *msg = bridge_snapshot_encode(b, &len);
    if (msg) nats_link_publish(a->nats, r->subject_frame, NULL, msg, len);
    free(msg);
}

/* The bridge's part of /metrics: the link's series and the relays'. */
char *bridge_metrics_text(app_t *a)
{
    char *link = nats_link_metrics_text(a->nats);
    if (!link) return NULL;
    size_t n_leased = 0;
    for (size_t i = 0; i < a->n_rooms_max; i++) {
        size_t n = 0;
        if (a->rooms[i] && a->rooms[i]->leases) relay_leases_views(a->rooms[i]->leases, &n);
        n_leased += n;
    }
    char own[1280];
    snprintf(own, sizeof own,
             "# HELP swarmcast_nats_relays edge relays holding a live lease\n# TYPE swarmcast_nats_relays gauge\n"
             "swarmcast_nats_relays %zu\n"
             "# HELP swarmcast_nats_remote_clients relays' viewers in remote slots\n"
             "# TYPE swarmcast_nats_remote_clients gauge\nswarmcast_nats_remote_clients %zu\n"
             "# HELP swarmcast_nats_leased_views distinct views published for relays\n"
             "# TYPE swarmcast_nats_leased_views gauge\nswarmcast_nats_leased_views %zu\n"
             "# HELP swarmcast_nats_refused_total envelopes and leases refused (malformed, unknown relay, full)\n"
             "# TYPE swarmcast_nats_refused_total counter\nswarmcast_nats_refused_total %llu\n"
             "# HELP swarmcast_nats_census_closed_total relays' viewers closed because their relay no longer had them\n"
             "# TYPE swarmcast_nats_census_closed_total counter\nswarmcast_nats_census_closed_total %llu\n"
             "# HELP swarmcast_nats_past_frames_total frames of the past sent to relays' viewers (the timeline)\n"
             "# TYPE swarmcast_nats_past_frames_total counter\nswarmcast_nats_past_frames_total %llu\n",
             relay_leases_count(a->home->leases), remote_clients_count(a->remote), n_leased,
             (unsigned long long)a->bridge_refused, (unsigned long long)a->census_closed,
             (unsigned long long)a->bridge_past_frames);
    char *both = malloc(strlen(link) + strlen(own) + 1);
    if (both) {
        strcpy(both, link);
        strcat(both, own);
    }
    free(link);
    return both;
}

/* --nats: connect (in the background: either side may start first) and
 * subscribe to the relays' commands and leases (P.cmd.*, P.lease.*). */
int bridge_start(app_t *a)
{
    const config_t *cfg = &a->cfg;
    char cmd[SUBJECT_MAX], lease[SUBJECT_MAX];
    if (bridge_room_subjects(a->home) || subject_cmd_any(cmd, sizeof cmd, cfg->nats_prefix) ||
        subject_lease_any(lease, sizeof lease, cfg->nats_prefix))
        return -1;
    if (!(a->remote = remote_clients_create(cfg->max_remote_clients)) ||
        !(a->home->leases = relay_leases_create(a->home->views)) ||
        !(a->remote_seen = calloc(cfg->max_remote_clients ? cfg->max_remote_clients : 1, sizeof *a->remote_seen)) ||
        !(a->census_ids = calloc(cfg->max_remote_clients ? cfg->max_remote_clients : 1, sizeof *a->census_ids)) ||
        bridge_timeline_start(a))
        return -1;
    nats_link_config_t lc = {.urls = cfg->nats_url, .name = "swarmcast-sim", .user = cfg->nats_user,
                             .password = cfg->nats_password, .creds_file = cfg->nats_creds,
                             .nkey_seed_file = cfg->nats_nkey_seed};
    if (!(a->nats = nats_link_create(a->loop, &lc, NULL, NULL))) return -1;
    /* Commands: a burst of a few thousand viewers' messages; leases are one a second per relay. */
    if (!nats_link_subscribe(a->nats, cmd, 65536, 64 << 20, on_nats_cmd, a) ||
        !nats_link_subscribe(a->nats, lease, 4096, 16 << 20, on_nats_lease, a))
        return -1;
    viewers_open(a->home->viewers, RELAYS_DEFAULT_VIEWER(a), now_ns());
    sync_encoder(a->home);
    uv_timer_init(a->loop, &a->lease_timer);
    a->lease_timer.data = a;
    uv_timer_start(&a->lease_timer, on_lease_timer, 1000, 1000);
    fprintf(stderr, "swarmcast: publishing to NATS at %s under %s.*\n", cfg->nats_url, cfg->nats_prefix);
    return 0;
}

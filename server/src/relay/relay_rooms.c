/* relay_rooms: the rooms a relay serves (relay_internal.h has what a room
 * holds). The default room is always here; another is opened when a viewer
 * asks for its code (?room=) and closed when its last viewer leaves: its
 * stream is subscribed only meanwhile, and its lease (which names it) is
 * sent every second, so that a room nobody watches through a relay costs
 * the simulation nothing.
 *
 * A relay cannot know whether a code is a room: its first viewer waits
 * (accepted, sent nothing: its hello is its first message) for the
 * simulation's answer to the room's lease. The answer greets every waiting
 * viewer; a "no_room" sends them away with 4404 and counts a wrong code
 * against each one's address (room_guard, as on the simulation: the relay
 * is the one that sees addresses); no answer within RELAY_ROOM_ANSWER_NS
 * sends them away with 1013 (no simulation holds the room now). Loop
 * thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/remote_clients.h"
#include "protocol/room_messages.h"
#include "relay/relay_internal.h"
#include "relay/relay_lease.h"
#include "rooms/room_guard.h"

relay_room_t *relay_room_create(relay_t *r, size_t index, const char *code)
{
    relay_room_t *room = calloc(1, sizeof *room);
    if (!room) return NULL;
    room->relay = r;
    room->index = index;
    snprintf(room->code, sizeof room->code, "%s", code);
    room->limits = (cmd_limits_t){r->cfg.world_width, r->cfg.world_height, r->cfg.max_agents};
    room->opened_ns = room->last_frame_ns = now_ns();
    room->lease_due = true;
    const char *p = r->cfg.nats_prefix;
    room->compose = compose_create(r->cfg.max_clients, net_headroom());
    room->stream = relay_stream_create();
    if (!room->compose || !room->stream || subject_room_prefix(room->stream_prefix, SUBJECT_MAX, p, code) ||
        subject_frame(room->subj_frame, SUBJECT_MAX, room->stream_prefix) ||
        subject_news(room->subj_news, SUBJECT_MAX, room->stream_prefix) ||
        subject_shared(room->subj_shared, SUBJECT_MAX, room->stream_prefix))
        goto fail;
    room->sub_frame = nats_link_subscribe(r->link, room->subj_frame, STREAM_PENDING_MSGS, STREAM_PENDING_BYTES,
                                          relay_on_frame, room);
    room->sub_news =
        nats_link_subscribe(r->link, room->subj_news, REPLY_PENDING_MSGS, REPLY_PENDING_BYTES, relay_on_news, room);
    room->sub_shared =
        nats_link_subscribe(r->link, room->subj_shared, REPLY_PENDING_MSGS, REPLY_PENDING_BYTES, relay_on_shared, room);
    if (!room->sub_frame || !room->sub_news || !room->sub_shared) goto fail;
    r->rooms[index] = room;
    return room;
fail:
    relay_room_destroy(r, room);
    return NULL;
}

void relay_room_destroy(relay_t *r, relay_room_t *room)
{
    if (!room) return;
    if (r->link) {
        nats_link_unsubscribe(r->link, room->sub_frame);
        nats_link_unsubscribe(r->link, room->sub_news);
        nats_link_unsubscribe(r->link, room->sub_shared);
        for (size_t i = 0; i < room->n_listening; i++) nats_link_unsubscribe(r->link, room->listening[i].sub);
    }
    if (r->rooms[room->index] == room) r->rooms[room->index] = NULL;
    if (r->net) net_channel_reset(r->net, room->index);
    bundle_free(room->current);
    relay_share_forget(room);
    compose_destroy(room->compose);
    viewers_destroy(room->viewers);
    views_destroy(room->views);
    relay_stream_destroy(room->stream);
    free(room->grants);
    free(room->listening);
    free(room->sim_hello);
    free(room);
}

relay_room_t *relay_room_find(const relay_t *r, const char *code)
{
    for (size_t i = 0; i < r->n_rooms_max; i++)
        if (r->rooms[i] && strcmp(r->rooms[i]->code, code) == 0) return r->rooms[i];
    return NULL;
}

relay_room_t *relay_room_open(relay_t *r, const char *code)
{
    relay_room_t *room = relay_room_find(r, code);
    if (room) return room;
    for (size_t i = 1; i < r->n_rooms_max; i++)
        if (!r->rooms[i]) {
            room = relay_room_create(r, i, code);
            if (room) r->n.rooms_opened++;
            return room;
        }
    return NULL;
}

/* net's room_known: on a full relay, a session for a room that is not
 * served here takes nobody's seat (as on the simulation). A room the
 * simulation has not answered for yet is not known. */
bool relay_room_known(void *user, const char *typed)
{
    const relay_t *r = user;
    char code[ROOM_CODE_LEN + 1];
    if (!typed[0]) return true;
    const relay_room_t *room = room_code_normalize(typed, code) ? relay_room_find(r, code) : NULL;
    return room && room->sim_hello;
}

char *relay_room_greet(relay_t *r, relay_room_t *room, size_t slot)
{
    relay_client_t *c = &r->clients[slot];
    /* Everyone is an operator only where nobody has a token: a relay
     * started without the simulation's token must not make its viewers
     * operators of a world that has one, and a made room has its own. */
    bool token = r->cfg.control_token != NULL || room->sim_token;
    bool operator = !token;
    char *hello = relay_hello_for(room->sim_hello, c->global_id, operator, token, r->cfg.public_url);
    if (!hello) return NULL;
    c->waiting = false;
    c->control = operator;
    r->policy[slot].operator = operator;
    viewers_open(room->viewers, slot, now_ns());
    if (views_changed(room->views)) room->lease_due = true;
    relay_send_open(r, slot);
    relay_share_join(r, room, slot);
    return hello;
}

/* The room is left with nobody: it goes (its subjects, its lease; the
 * simulation forgets the lease after 5 s). Not the default room. */
static void close_if_empty(relay_t *r, relay_room_t *room)
{
    if (room->index != 0 && room->people == 0) relay_room_destroy(r, room);
}

void relay_room_left(relay_t *r, relay_room_t *room)
{
    if (room->people) room->people--;
    close_if_empty(r, room);
}

void relay_room_gone(relay_room_t *room)
{
    if (room->index == 0 || !room->sim_hello) return;
    free(room->sim_hello);
    room->sim_hello = NULL;
    room->lease_due = true;
}

size_t relay_rooms_unanswered_from(const relay_t *r, const addr_key_t *addr)
{
    size_t n = 0;
    for (size_t i = 1; i < r->n_rooms_max; i++) {
        const relay_room_t *room = r->rooms[i];
        if (room && !room->sim_hello && room->has_opener && addr_key_equal(&room->opener, addr)) n++;
    }
    return n;
}

void relay_room_answered(relay_t *r, relay_room_t *room)
{
    if (!room->waiting || !room->sim_hello || !room->viewers) return;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || !c->waiting || c->room != room->index) continue;
        room->waiting--;
        char *hello = relay_room_greet(r, room, s);
        if (hello)
            net_send(r->net, s, c->net_id, hello);
        else
            net_close(r->net, s, c->net_id, 1011, "cannot serve this client");
        free(hello);
    }
}

/* Sends away the viewers of a room: the waiting ones with wait_code (and,
 * for a wrong code, a spent token of their address), the greeted ones with
 * greeted_code. The room closes as they go (relay_on_close). */
static void send_away(relay_t *r, relay_room_t *room, int wait_code, const char *wait_reason, bool wrong_code,
                      int greeted_code, const char *greeted_reason)
{
    uint64_t now_ms = now_ns() / 1000000;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || c->room != room->index) continue;
        if (c->waiting && wrong_code) {
            addr_key_t addr;
            if (net_client_addr(r->net, s, c->net_id, &addr)) room_guard_code_wrong(r->guard, &addr, now_ms);
            r->n.room_codes_wrong++;
        }
        if (c->waiting)
            net_close(r->net, s, c->net_id, wait_code, wait_reason);
        else
            net_close(r->net, s, c->net_id, greeted_code, greeted_reason);
    }
}

void relay_room_refused(relay_t *r, relay_room_t *room, const char *error)
{
    if (room->index == 0) return; /* the default room is always there */
    if (strcmp(error, "no_room") == 0)
        send_away(r, room, CLOSE_NO_SUCH_ROOM, "no such room", true, CLOSE_ROOM_CLOSED, "room closed");
    else if (strcmp(error, "unavailable") == 0)
        send_away(r, room, CLOSE_TRY_AGAIN_LATER, "the room cannot open now; try again later", false,
                  CLOSE_TRY_AGAIN_LATER, "the room cannot open now; try again later");
}

void relay_rooms_tick(relay_t *r, uint64_t now)
{
    for (size_t i = 1; i < r->n_rooms_max; i++) {
        relay_room_t *room = r->rooms[i];
        if (!room || !room->waiting || now - room->opened_ns < RELAY_ROOM_ANSWER_NS) continue;
        send_away(r, room, CLOSE_TRY_AGAIN_LATER, "the world is not reachable yet, try again later", false,
                  CLOSE_TRY_AGAIN_LATER, "the world is not reachable yet, try again later");
    }
}

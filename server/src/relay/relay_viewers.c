/* relay_viewers: the relay's viewer sessions, as net's callbacks: a
 * viewer's open (its room, global id, role, budget, view and hello, and an
 * OPEN to the simulation; relay_rooms.c when its room's hello is still to
 * come), its messages (below), its close, and the v2 frame composed for
 * its view. Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "people/auth_guess.h"
#include "bridge/remote_clients.h"
#include "protocol/classify.h"
#include "protocol/messages.h"
#include "protocol/room_messages.h"
#include "protocol/timeline_decode.h"
#include "relay/relay_internal.h"
#include "relay/relay_lease.h"
#include "rooms/room_guard.h"

/* What happens with a viewer's message (protocol/PROTOCOL.md, "NATS
 * subjects (scaled set-up)"):
 *  - auth, view and ping are answered here (a relay has the control token,
 *    its own views and no need of the world for a pong), but for auth
 *    with a room's token, which only the simulation knows: it is
 *    forwarded, and the simulation tells the role it gave (ROLE);
 *  - room messages are forwarded after the address's budget for making
 *    rooms (room_guard, as on the simulation, which sees only the relay);
 *  - timeline messages are charged as a view (as on the simulation) and
 *    forwarded with the viewer's view (relay_scrub.c): the past is kept by
 *    the simulation, which answers, sends the frames and counts the seats;
 *  - everything else is charged against the viewer's budget here, with the
 *    same costs as the simulation, role-checked here (a visitor's reset
 *    never leaves the relay), then forwarded as a TEXT envelope; the
 *    simulation checks again and answers with REPLY envelopes. */

/* A relay viewer's client id as the simulation knows it is tag << 22 | its
 * net id (bridge/remote_clients.h), which works because net's ids stay
 * below the tag's bits. */
_Static_assert(NET_CLIENT_ID_LIMIT == 1u << REMOTE_TAG_SHIFT, "net ids must fit below a relay's tag");

static void reply_error(relay_t *r, size_t slot, uint32_t net_id, const char *code, const char *message,
                        int64_t request_id, const char *cmd)
{
    ops_count_error(r->n.errors, code);
    char *text = msg_error(code, message, request_id, cmd);
    if (text) net_send(r->net, slot, net_id, text);
    free(text);
}

static void close_abusive(relay_t *r, size_t slot, uint32_t net_id)
{
    r->n.abuse_closes++;
    net_close(r->net, slot, net_id, 1008, "too many commands");
}

/* Charges a message's cost; false (refused, and perhaps closed) when the
 * viewer cannot pay. kind: a cmd_kind_t or OPS_CMD_AUTH, for the counters;
 * name: what the refusal names. */
static bool charge(relay_t *r, size_t slot, uint32_t net_id, double cost, size_t kind, int64_t request_id,
                   const char *name)
{
    policy_verdict_t verdict = policy_charge(&r->policy[slot], cost, now_ns());
    if (verdict == POLICY_OK) return true;
    if (kind < OPS_CMD_KINDS) r->n.rate_limited[kind]++;
    reply_error(r, slot, net_id, "rate_limited", "too many messages: this one was not applied; wait a moment",
                request_id, name);
    if (verdict == POLICY_ABUSIVE) close_abusive(r, slot, net_id);
    return false;
}

static void charge_refused(relay_t *r, size_t slot, uint32_t net_id)
{
    if (policy_charge(&r->policy[slot], POLICY_COST_REFUSED, now_ns()) == POLICY_ABUSIVE) close_abusive(r, slot, net_id);
}

static void forward(relay_t *r, size_t slot, const char *data, size_t len)
{
    r->n.forwarded++;
    relay_send_envelope(r, BRIDGE_TEXT, slot, data, len);
}

/* Guesses are limited per address across connections (auth_guess.h), as
 * at the simulation. A room's token (128 random bits: no guess to limit)
 * goes to the simulation, which holds the room's. */
static void on_auth(relay_t *r, size_t slot, uint32_t net_id, const char *token, int64_t request_id, const char *data,
                    size_t len)
{
    r->n.received[OPS_CMD_AUTH]++;
    if (!charge(r, slot, net_id, POLICY_COST_AUTH, OPS_CMD_AUTH, request_id, "auth")) return;
    if (room_token_shaped(token)) {
        forward(r, slot, data, len);
        return;
    }
    r->n.answered_here++;
    const relay_room_t *room = relay_room_of(r, slot);
    /* A relay without the token cannot check one the simulation has. */
    char why[96];
    guess_t guess = r->cfg.control_token ? auth_guess(r->net, slot, net_id, r->cfg.control_token, token, why, sizeof why)
                    : room->sim_token    ? GUESS_WRONG
                                         : GUESS_RIGHT;
    if (guess == GUESS_MUST_WAIT) {
        r->n.rate_limited[OPS_CMD_AUTH]++;
        reply_error(r, slot, net_id, "rate_limited", why, request_id, "auth");
        return;
    }
    if (guess == GUESS_WRONG) {
        reply_error(r, slot, net_id, "bad_token", "that is not the control token", request_id, "auth");
        return;
    }
    r->policy[slot].operator = true;
    r->clients[slot].control = true;
    relay_send_open(r, slot); /* the simulation learns the new role */
    char *text = msg_auth_ack(request_id, true, room->tick);
    if (text) net_send(r->net, slot, net_id, text);
    free(text);
}

static void on_view(relay_t *r, size_t slot, uint32_t net_id, const view_request_t *req)
{
    r->n.answered_here++;
    if (!charge(r, slot, net_id, POLICY_COST_VIEW, OPS_CMD_KINDS, req->request_id, "view")) return;
    relay_room_t *room = relay_room_of(r, slot);
    viewers_request(room->viewers, slot, (viewport_t){req->x, req->y, req->w, req->h}, req->budget, now_ns());
    if (views_changed(room->views)) room->lease_due = true;
}

/* create_room, room_rename, room_close, rooms: charged as on the
 * simulation; making a room also spends the address's budget here. */
static void on_room(relay_t *r, size_t slot, uint32_t net_id, const room_msg_t *m, const char *data, size_t len)
{
    const char *name = room_msg_names[m->kind];
    if (!charge(r, slot, net_id, m->kind == ROOM_MSG_CREATE ? POLICY_COST_AUTH : POLICY_COST_HELLO, OPS_CMD_KINDS,
                m->request_id, name))
        return;
    addr_key_t addr;
    uint64_t wait = 0;
    if (m->kind == ROOM_MSG_CREATE && net_client_addr(r->net, slot, net_id, &addr) &&
        !room_guard_create_take(r->guard, &addr, now_ns() / 1000000, &wait)) {
        char message[96];
        snprintf(message, sizeof message, "this address made too many rooms; try again in %llu s",
                 (unsigned long long)(wait + 999) / 1000);
        r->n.refused_here++;
        reply_error(r, slot, net_id, "rate_limited", message, m->request_id, name);
        return;
    }
    forward(r, slot, data, len);
}

static void on_presence(relay_t *r, size_t slot, uint32_t net_id, const presence_msg_t *m, const char *data,
                        size_t len)
{
    if (!charge(r, slot, net_id, policy_presence_cost(m->kind), OPS_CMD_KINDS, m->request_id, presence_kind_name(m->kind))) return;
    if (m->kind == PRESENCE_PING) {
        r->n.answered_here++;
        char text[64];
        msg_pong(m->request_id, text, sizeof text);
        net_send(r->net, slot, net_id, text);
        return;
    }
    if (m->kind == PRESENCE_HELLO) {
        /* Kept whole: a restarted simulation hears it again. */
        char *copy = malloc(len + 1);
        if (copy) {
            memcpy(copy, data, len);
            copy[len] = '\0';
            free(r->clients[slot].hello_text);
            r->clients[slot].hello_text = copy;
        }
    }
    forward(r, slot, data, len);
}

static void on_command(relay_t *r, size_t slot, uint32_t net_id, const sim_cmd_t *cmd, const char *data, size_t len)
{
    client_policy_t *p = &r->policy[slot];
    const char *name = cmd_name(cmd->kind);
    if (!policy_allows(p, cmd->kind)) {
        char message[160];
        snprintf(message, sizeof message, "%s needs the operator role: send auth with the control token", name);
        r->n.refused_here++;
        reply_error(r, slot, net_id, "forbidden", message, cmd->request_id, name);
        charge_refused(r, slot, net_id);
        return;
    }
    if (!charge(r, slot, net_id, policy_cost(p, cmd), cmd->kind, cmd->request_id, name)) {
        r->n.refused_here++;
        return;
    }
    r->n.received[cmd->kind]++;
    forward(r, slot, data, len);
}

/* A timeline message (true), charged here and forwarded; false when it
 * is none, or an invalid one (err then says why). */
static bool on_timeline(relay_t *r, size_t slot, uint32_t net_id, const char *data, size_t len, cmd_error_t *err)
{
    timeline_request_t req;
    if (timeline_decode(data, len, &req, err) != TIMELINE_DECODED) return false;
    if (!charge(r, slot, net_id, POLICY_COST_VIEW, OPS_CMD_KINDS, req.request_id, "timeline")) {
        r->n.refused_here++;
        return true;
    }
    relay_scrub_forward(r, slot, data, len);
    return true;
}

void relay_on_message(void *user, uint32_t net_id, size_t slot, const char *data, size_t len, bool binary)
{
    relay_t *r = user;
    if (r->clients[slot].net_id != net_id) return;
    if (r->clients[slot].waiting) { /* it has had no hello: nothing it sends can mean anything yet */
        reply_error(r, slot, net_id, "bad_request", "the room is being joined: wait for hello", -1, NULL);
        charge_refused(r, slot, net_id);
        return;
    }
    if (binary) {
        reply_error(r, slot, net_id, "binary_not_accepted",
                    "commands are JSON text messages; binary frames are not accepted", -1, NULL);
        charge_refused(r, slot, net_id);
        return;
    }
    classified_t m;
    classify_message(data, len, &relay_room_of(r, slot)->limits, r->clients[slot].global_id, &m);
    switch (m.kind) {
    case CLASSIFIED_COMMAND: on_command(r, slot, net_id, &m.cmd, data, len); return;
    case CLASSIFIED_PRESENCE: on_presence(r, slot, net_id, &m.presence, data, len); return;
    case CLASSIFIED_AUTH: on_auth(r, slot, net_id, m.token, m.request_id, data, len); return;
    case CLASSIFIED_VIEW: on_view(r, slot, net_id, &m.view); return;
    case CLASSIFIED_ROOM: on_room(r, slot, net_id, &m.room, data, len); return;
    case CLASSIFIED_INVALID:
        if (strcmp(m.err.code, "unknown_command") == 0 && on_timeline(r, slot, net_id, data, len, &m.err)) return;
        r->n.refused_here++;
        reply_error(r, slot, net_id, m.err.code, m.err.message, m.err.request_id, m.err.cmd);
        charge_refused(r, slot, net_id);
        return;
    }
}

/* A refusal net sends as the close (code and reason). */
static char *refuse_open(net_admit_t *admit, int code, const char *reason)
{
    admit->refuse_code = code;
    snprintf(admit->refuse_reason, sizeof admit->refuse_reason, "%s", reason);
    return NULL;
}

static relay_room_t *refuse_room(net_admit_t *admit, int code, const char *reason)
{
    refuse_open(admit, code, reason);
    return NULL;
}

/* The room a viewer asks for (?room=): the default room, or one by its
 * code, with the same per-address budget of wrong codes as the simulation
 * (room_guard). NULL when refused (admit says how). */
static relay_room_t *room_for(relay_t *r, uint32_t net_id, size_t slot, const char *typed, net_admit_t *admit)
{
    if (!typed[0]) {
        relay_room_t *home = r->rooms[0];
        if (!home->sim_hello || !home->viewers)
            return refuse_room(admit, 1013, "the world is not reachable yet, try again later");
        return home;
    }
    addr_key_t addr;
    bool known = net_client_addr(r->net, slot, net_id, &addr);
    uint64_t now_ms = now_ns() / 1000000;
    uint64_t wait = known ? room_guard_code_wait(r->guard, &addr, now_ms) : 0;
    if (wait) {
        char reason[96];
        snprintf(reason, sizeof reason, "too many wrong room codes from this address; try again in %llu s",
                 (unsigned long long)(wait + 999) / 1000);
        return refuse_room(admit, CLOSE_TOO_MANY_CODES, reason);
    }
    char code[ROOM_CODE_LEN + 1];
    if (!room_code_normalize(typed, code)) {
        r->n.room_codes_wrong++;
        if (known) room_guard_code_wrong(r->guard, &addr, now_ms);
        return refuse_room(admit, CLOSE_NO_SUCH_ROOM, "no such room");
    }
    relay_room_t *room = relay_room_find(r, code);
    if (room) return room;
    if (known && relay_rooms_unanswered_from(r, &addr) >= RELAY_ROOMS_ASKED_PER_ADDRESS)
        return refuse_room(admit, CLOSE_TRY_AGAIN_LATER, "this address is opening too many rooms at once; try again later");
    room = relay_room_open(r, code);
    if (!room) return refuse_room(admit, CLOSE_TRY_AGAIN_LATER, "this relay serves its most rooms; try again later");
    if (known) room->opener = addr;
    room->has_opener = known;
    return room;
}

char *relay_on_open(void *user, uint32_t net_id, size_t slot, int protocol, const char *typed, net_admit_t *admit)
{
    relay_t *r = user;
    /* A clean refusal: a v1 client would need v1 frames, which only the
     * simulation encodes. */
    if (protocol != 2) return refuse_open(admit, 1003, "this relay serves the swarmcast.v2 sub-protocol only");
    relay_room_t *room = room_for(r, net_id, slot, typed, admit);
    if (!room) return NULL;
    uint32_t global_id = (uint32_t)r->tag << REMOTE_TAG_SHIFT | (net_id & REMOTE_LOCAL_MASK);
    room->people++;
    if (client_slots_put(r->by_id, global_id, slot)) {
        relay_room_left(r, room);
        return NULL; /* net closes it (1011) */
    }
    r->clients[slot] = (relay_client_t){.net_id = net_id, .global_id = global_id, .room = room->index};
    policy_init(&r->policy[slot], false, r->cfg.rate_scale, now_ns());
    admit->channel = room->index;
    if (room->sim_hello && room->viewers) {
        char *hello = relay_room_greet(r, room, slot);
        if (!hello) {
            client_slots_remove(r->by_id, global_id);
            r->clients[slot] = (relay_client_t){0};
            relay_room_left(r, room);
        }
        return hello;
    }
    /* Its hello comes with the simulation's answer about the room
     * (relay_room_answered): net sends nothing before it. */
    r->clients[slot].waiting = true;
    if (room->waiting++ == 0) room->opened_ns = now_ns();
    room->lease_due = true;
    char *later = malloc(1);
    if (later) *later = '\0';
    return later;
}

void relay_on_close(void *user, uint32_t net_id, size_t slot)
{
    relay_t *r = user;
    relay_client_t *c = &r->clients[slot];
    if (c->net_id != net_id) return; /* refused at open */
    relay_room_t *room = relay_room_of(r, slot);
    if (c->global_id) {
        /* One still waiting was never announced. */
        if (!r->shut_down && !c->waiting) relay_send_envelope(r, BRIDGE_CLOSE, slot, NULL, 0);
        client_slots_remove(r->by_id, c->global_id);
    }
    if (c->waiting) {
        room->waiting--;
    } else if (room->viewers) {
        viewers_close(room->viewers, slot);
        if (views_changed(room->views)) room->lease_due = true;
    }
    free(c->hello_text);
    relay_scrub_left(r, slot);
    *c = (relay_client_t){0};
    relay_room_left(r, room);
}

int relay_compose_v2(void *user, uint32_t net_id, size_t slot, const uint8_t **data, size_t *len)
{
    relay_t *r = user;
    const relay_client_t *c = &r->clients[slot];
    const relay_room_t *room = c->net_id == net_id ? r->rooms[c->room] : NULL;
    int past = room ? relay_scrub_compose(r, slot, data, len) : -1;
    if (past >= 0) return past; /* it looks at the past: no live frames meanwhile */
    viewer_view_t v = room && room->viewers && !c->waiting ? viewers_view_of(room->viewers, slot) : (viewer_view_t){0};
    return v.view_id ? compose_frame(room->compose, slot, net_id, v.view_id, data, len) : 0;
}

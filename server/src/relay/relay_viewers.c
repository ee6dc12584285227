/* relay_viewers: the relay's viewer sessions, as net's callbacks: a
 * viewer's open (its global id, role, budget, view and hello, and an OPEN
 * to the simulation), its messages (below), its close, and the v2 frame
 * composed for its view. Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "people/auth_guess.h"
#include "bridge/remote_clients.h"
#include "protocol/classify.h"
#include "protocol/messages.h"
#include "relay/relay_internal.h"
#include "relay/relay_lease.h"

/* What happens with a viewer's message (protocol/PROTOCOL.md, "NATS
 * subjects (scaled set-up)"):
 *  - auth, view and ping are answered here (a relay has the control token,
 *    its own views and no need of the world for a pong);
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

/* Guesses are limited per address across connections (auth_guess.h), as
 * at the simulation. */
static void on_auth(relay_t *r, size_t slot, uint32_t net_id, const char *token, int64_t request_id)
{
    r->n.received[OPS_CMD_AUTH]++;
    r->n.answered_here++;
    if (!charge(r, slot, net_id, POLICY_COST_AUTH, OPS_CMD_AUTH, request_id, "auth")) return;
    /* A relay without the token cannot check one the simulation has. */
    char why[96];
    guess_t guess = r->cfg.control_token ? auth_guess(r->net, slot, net_id, r->cfg.control_token, token, why, sizeof why)
                    : r->sim_token       ? GUESS_WRONG
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
    relay_send_open(r, slot); /* the simulation learns the new role */
    char *text = msg_auth_ack(request_id, true, r->tick);
    if (text) net_send(r->net, slot, net_id, text);
    free(text);
}

static void on_view(relay_t *r, size_t slot, uint32_t net_id, const view_request_t *req)
{
    r->n.answered_here++;
    if (!charge(r, slot, net_id, POLICY_COST_VIEW, OPS_CMD_KINDS, req->request_id, "view")) return;
    viewers_request(r->viewers, slot, (viewport_t){req->x, req->y, req->w, req->h}, req->budget, now_ns());
    if (views_changed(r->views)) r->lease_due = true;
}

static void forward(relay_t *r, size_t slot, const char *data, size_t len)
{
    r->n.forwarded++;
    relay_send_envelope(r, BRIDGE_TEXT, r->clients[slot].global_id, relay_is_operator(r, slot), data, len);
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

void relay_on_message(void *user, uint32_t net_id, size_t slot, const char *data, size_t len, bool binary)
{
    relay_t *r = user;
    if (r->clients[slot].net_id != net_id) return;
    if (binary) {
        reply_error(r, slot, net_id, "binary_not_accepted",
                    "commands are JSON text messages; binary frames are not accepted", -1, NULL);
        charge_refused(r, slot, net_id);
        return;
    }
    classified_t m;
    classify_message(data, len, &r->limits, r->clients[slot].global_id, &m);
    switch (m.kind) {
    case CLASSIFIED_COMMAND: on_command(r, slot, net_id, &m.cmd, data, len); return;
    case CLASSIFIED_PRESENCE: on_presence(r, slot, net_id, &m.presence, data, len); return;
    case CLASSIFIED_AUTH: on_auth(r, slot, net_id, m.token, m.request_id); return;
    case CLASSIFIED_VIEW: on_view(r, slot, net_id, &m.view); return;
    case CLASSIFIED_ROOM:
        /* Rooms are the simulation's; through a relay, only its default room (see relay_on_open). */
        reply_error(r, slot, net_id, "forbidden", "rooms are made on the server itself, not through a relay",
                    m.room.request_id, room_msg_names[m.room.kind]);
        charge_refused(r, slot, net_id);
        return;
    case CLASSIFIED_INVALID:
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

char *relay_on_open(void *user, uint32_t net_id, size_t slot, int protocol, const char *room, net_admit_t *admit)
{
    relay_t *r = user;
    /* A clean refusal: a v1 client would need v1 frames, which only the
     * simulation encodes. */
    if (protocol != 2) return refuse_open(admit, 1003, "this relay serves the swarmcast.v2 sub-protocol only");
    /* Rooms travel through relays in a later step (docs/SCALING.md). */
    if (room[0]) return refuse_open(admit, 4404, "no such room: this relay serves the default room only");
    if (!r->sim_hello || !r->viewers) return refuse_open(admit, 1013, "the world is not reachable yet, try again later");
    /* Everyone is an operator only where nobody has a token: a relay
     * started without the simulation's token must not make its viewers
     * operators of a world that has one. */
    bool token = r->cfg.control_token != NULL || r->sim_token;
    bool operator = !token;
    uint32_t global_id = (uint32_t)r->tag << REMOTE_TAG_SHIFT | (net_id & REMOTE_LOCAL_MASK);
    char *hello = relay_hello_for(r->sim_hello, global_id, operator, token, r->cfg.public_url);
    if (!hello || client_slots_put(r->by_id, global_id, slot)) {
        free(hello);
        return NULL; /* net closes it (1011) */
    }
    r->clients[slot] = (relay_client_t){net_id, global_id, NULL};
    policy_init(&r->policy[slot], operator, r->cfg.rate_scale, now_ns());
    viewers_open(r->viewers, slot, now_ns());
    if (views_changed(r->views)) r->lease_due = true;
    relay_send_open(r, slot);
    return hello;
}

void relay_on_close(void *user, uint32_t net_id, size_t slot)
{
    relay_t *r = user;
    relay_client_t *c = &r->clients[slot];
    if (c->net_id != net_id) return; /* refused at open */
    if (c->global_id) {
        if (!r->shut_down) relay_send_envelope(r, BRIDGE_CLOSE, c->global_id, relay_is_operator(r, slot), NULL, 0);
        client_slots_remove(r->by_id, c->global_id);
    }
    free(c->hello_text);
    *c = (relay_client_t){0};
    viewers_close(r->viewers, slot);
    if (views_changed(r->views)) r->lease_due = true;
}

int relay_compose_v2(void *user, uint32_t net_id, size_t slot, const uint8_t **data, size_t *len)
{
    relay_t *r = user;
    (void)net_id;
    viewer_view_t v = r->viewers ? viewers_view_of(r->viewers, slot) : (viewer_view_t){0};
    return v.view_id ? compose_frame(r->compose, slot, net_id, v.view_id, data, len) : 0;
}

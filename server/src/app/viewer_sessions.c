/* viewer_sessions: the sessions of local and remote viewers (loop thread).
 * A client opens (its slot's budget and its place in presence), sends
 * messages (each classified: presence, auth, view or a command; charged to
 * its budget; a command queued for the next tick, protocol/classify.c
 * decodes), and closes (its departure queued, so that its target and
 * obstacles go at the next tick). net calls these for its slots, and
 * relay_bridge.c for a relay's viewers, through the same path. Who is
 * here, the cursors and the feed go out from a timer. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <string.h>

#include "app_internal.h"
#include "people/auth_guess.h"
#include "protocol/classify.h"
#include "protocol/messages.h"

/* Doubles the room's queue (under its lock), the waiting commands in order
 * from the start; false at its bound or out of memory. */
static bool grow_queue_locked(room_t *r)
{
    if (r->q_cap >= r->q_cap_max) return false;
    size_t cap = 2 * r->q_cap < r->q_cap_max ? 2 * r->q_cap : r->q_cap_max;
    queued_t *grown = malloc(cap * sizeof *grown);
    if (!grown) return false;
    for (size_t k = 0; k < r->q_len; k++) grown[k] = r->queue[(r->q_head + k) % r->q_cap];
    free(r->queue);
    r->queue = grown;
    r->q_head = 0;
    r->q_cap = cap;
    return true;
}

static bool push_locked(room_t *r, const sim_cmd_t *cmd, size_t slot)
{
    if (r->q_len == r->q_cap && !grow_queue_locked(r)) return false;
    r->queue[(r->q_head + r->q_len) % r->q_cap] = (queued_t){*cmd, slot};
    r->q_len++;
    r->pending[slot]++;
    return true;
}

static void reply_error(app_t *a, size_t slot, uint32_t client, const char *code, const char *message, int64_t id,
                        const char *cmd)
{
    ops_count_error(a->loop_counters.errors, code);
    char *text = msg_error(code, message, id, cmd);
    if (text) client_send(a, slot, client, text);
    free(text);
}

static uint64_t current_tick(room_t *r)
{
    pthread_mutex_lock(&r->lock);
    uint64_t tick = r->summary.tick;
    pthread_mutex_unlock(&r->lock);
    return tick;
}

double wall_clock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Who is here and the feed, to everyone, when they changed: at most
 * INSPECT_HZ times a second (from the cursor timer), so that a crowd joining
 * and leaving rebuilds and sends the list ten times a second, not once per
 * connection. */
static void send_presence_news(room_t *r)
{
    char *text;
    if ((text = presence_take_list(r->presence))) send_latest(r, LATEST_PRESENCE, text);
    free(text);
    if ((text = presence_take_activity(r->presence))) send_latest(r, LATEST_ACTIVITY, text);
    free(text);
}

/* Pointers move many times a second: they go out at most INSPECT_HZ times,
 * with the presence news, each room's to its own people. */
void on_cursor_timer(uv_timer_t *handle)
{
    app_t *a = handle->data;
    for (size_t i = 0; i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r || r->closing) continue;
        send_presence_news(r);
        char *text = presence_take_cursors(r->presence);
        if (text) send_latest(r, LATEST_CURSORS, text);
        free(text);
    }
}

/* A client takes a slot (net's or a remote one): its budget and its place
 * in presence. */
void join_slot(room_t *r, uint32_t client_id, size_t slot, bool operator)
{
    app_t *a = r->app;
    pthread_mutex_lock(&r->lock);
    r->slot_client[slot] = client_id;
    pthread_mutex_unlock(&r->lock);
    policy_init(&a->policy[slot], operator, a->cfg.rate_scale, now_ns());
    /* Without a control token everyone runs the server (a local demo). */
    a->policy[slot].server_operator = a->cfg.control_token == NULL;
    presence_join(r->presence, slot, client_id, operator, wall_clock_s());
    a->slot_room[slot] = r;
    rooms_person_joined(r);
}

char *on_open(void *user, uint32_t client_id, size_t slot, int protocol, const char *room, net_admit_t *admit)
{
    app_t *a = user;
    room_t *r = rooms_admit(a, slot, client_id, room, admit);
    if (!r) return NULL;
    pthread_mutex_lock(&r->lock);
    world_info_t info = r->summary.info;
    pthread_mutex_unlock(&r->lock);
    /* In the default room, everyone is an operator where the server has no
     * control token; a made room's operators hold its token. */
    bool operator = r == a->home && a->cfg.control_token == NULL;
    join_slot(r, client_id, slot, operator);
    hello_info_t hello = {client_id, a->cfg.tick_hz, a->cfg.snapshot_hz, operator,
                          r != a->home || a->cfg.control_token != NULL, protocol, a->cfg.public_url,
                          r->code, r->name, config_rooms_names[a->cfg.rooms]};
    if (protocol == 2) viewers_open(r->viewers, slot, now_ns());
    sync_encoder(r);
    return msg_hello(&hello, &info);
}

void on_close(void *user, uint32_t client_id, size_t slot)
{
    app_t *a = user;
    room_t *r = room_of_slot(a, slot);
    if (!r) return; /* its room closed: nothing of it is left */
    a->slot_room[slot] = NULL;
    rooms_person_left(r);
    /* The departed client's target and own obstacles go at the next tick
     * like any change (see departures_t). */
    presence_leave(r->presence, slot, client_id, wall_clock_s());
    pthread_mutex_lock(&r->lock);
    r->slot_client[slot] = 0;
    if (r->selections[slot].client) r->n_selections--;
    r->selections[slot] = (selection_t){0};
    departures_t *d = &r->departed;
    if (d->len == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        uint32_t *grown = realloc(d->ids, cap * sizeof *grown);
        if (grown) d->ids = grown, d->cap = cap;
    }
    if (r->replaying) {
        /* A recording's clients are not these: nobody's leaving changes it. */
    } else if (d->len < d->cap) {
        d->ids[d->len++] = client_id;
    } else {
        fprintf(stderr, "swarmcast: out of memory: client %u's target stays\n", (unsigned)client_id);
    }
    pthread_mutex_unlock(&r->lock);
    timeline_left(r, slot, client_id);
    if (!is_remote(a, slot)) viewers_close(r->viewers, slot);
    sync_encoder(r);
}

/* Closes a client that keeps sending past its budget. */
static void close_abusive(app_t *a, size_t slot, uint32_t client_id)
{
    a->loop_counters.abuse_closes++;
    client_close(a, slot, client_id, 1008, "too many commands");
}

/* Charges what a refused message costs (refusals are work too). */
static void charge_refused(app_t *a, uint32_t client_id, size_t slot)
{
    if (policy_charge(&a->policy[slot], POLICY_COST_REFUSED, now_ns()) == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
}

/* A command the client could not pay for: refused, and persistently, closed.
 * kind: a cmd_kind_t or OPS_CMD_AUTH. */
static void over_budget(app_t *a, size_t slot, uint32_t client_id, size_t kind, int64_t request_id, policy_verdict_t verdict)
{
    a->loop_counters.rate_limited[kind]++;
    reply_error(a, slot, client_id, "rate_limited", "too many commands: this one was not applied; wait a moment", request_id,
                kind == OPS_CMD_AUTH ? "auth" : cmd_name((cmd_kind_t)kind));
    if (verdict == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
}

/* auth: the operator role for the right token. Guesses are limited per
 * address across connections (net_auth_wait): a refused one is never
 * compared. A relay answers its viewers' auth with the control token
 * itself (they arrive with their role), so one from a remote slot is
 * nobody's guess to take; a room's token it passes on, and the role it
 * gives is told to the relay (ROLE), which role-checks commands first. */
static void on_auth(room_t *r, uint32_t client_id, size_t slot, const char *token, int64_t request_id)
{
    app_t *a = r->app;
    client_policy_t *p = &a->policy[slot];
    a->loop_counters.received[OPS_CMD_AUTH]++;
    policy_verdict_t verdict = policy_charge(p, POLICY_COST_AUTH, now_ns());
    if (verdict != POLICY_OK) {
        over_budget(a, slot, client_id, OPS_CMD_AUTH, request_id, verdict);
        return;
    }
    if (a->cfg.control_token && is_remote(a, slot) && !room_token_shaped(token)) {
        reply_error(a, slot, client_id, "forbidden", "auth is answered by the relay", request_id, "auth");
        return;
    }
    if (room_token_shaped(token)) {
        /* A room's token: 128 random bits, hopeless to guess at any rate,
         * so no per-address wait that a shared NAT could trip. */
        if (!room_token_equal(token, r->token)) {
            reply_error(a, slot, client_id, "bad_token", "that is not this room's token", request_id, "auth");
            return;
        }
        p->operator = true;
        presence_set_role(r->presence, slot, client_id, true);
        if (is_remote(a, slot)) send_envelope(a, client_id, BRIDGE_ROLE, 0, NULL);
        char *text = msg_auth_ack(request_id, true, current_tick(r));
        if (text) client_send(a, slot, client_id, text);
        free(text);
        return;
    }
    char why[96];
    guess_t guess = a->cfg.control_token ? auth_guess(a->net, slot, client_id, a->cfg.control_token, token, why, sizeof why)
                                         : GUESS_RIGHT;
    if (guess == GUESS_MUST_WAIT) {
        a->loop_counters.rate_limited[OPS_CMD_AUTH]++;
        reply_error(a, slot, client_id, "rate_limited", why, request_id, "auth");
        return;
    }
    if (guess == GUESS_WRONG) {
        reply_error(a, slot, client_id, "bad_token", "that is not the control token", request_id, "auth");
        return;
    }
    p->operator = p->server_operator = true;
    presence_set_role(r->presence, slot, client_id, true);
    char *text = msg_auth_ack(request_id, true, current_tick(r));
    if (text) client_send(a, slot, client_id, text);
    free(text);
}

/* inspect: a point to pick the nearest agent at, or none (stop). */
static void set_selection(room_t *r, size_t slot, uint32_t client_id, const presence_msg_t *m)
{
    pthread_mutex_lock(&r->lock);
    selection_t *sel = &r->selections[slot];
    bool had = sel->client != 0;
    if (m->has_point)
        *sel = (selection_t){.client = client_id, .pick = true, .x = m->x, .y = m->y};
    else
        *sel = (selection_t){0};
    r->n_selections = r->n_selections + (sel->client != 0) - had;
    pthread_mutex_unlock(&r->lock);
}

/* hello, cursor, inspect, ping: charged like commands, never queued. */
static void on_presence(room_t *r, uint32_t client_id, size_t slot, const presence_msg_t *m)
{
    app_t *a = r->app;
    policy_verdict_t verdict = policy_charge(&a->policy[slot], policy_presence_cost(m->kind), now_ns());
    if (verdict != POLICY_OK) {
        reply_error(a, slot, client_id, "rate_limited", "too many messages: this one was not applied; wait a moment",
                    m->request_id, presence_kind_name(m->kind));
        if (verdict == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
        return;
    }
    switch (m->kind) {
    case PRESENCE_HELLO: {
        presence_hello(r->presence, slot, client_id, m, wall_clock_s());
        char *text = presence_hello_ack(r->presence, slot, client_id, m->request_id, current_tick(r));
        if (text) client_send(a, slot, client_id, text);
        free(text);
        break;
    }
    case PRESENCE_CURSOR:
        presence_cursor(r->presence, slot, client_id, m->x, m->y);
        break;
    case PRESENCE_PING: {
        char text[64];
        msg_pong(m->request_id, text, sizeof text);
        client_send(a, slot, client_id, text);
        break;
    }
    case PRESENCE_INSPECT:
        set_selection(r, slot, client_id, m);
        break;
    }
}

/* A command queued: what presence shows of it (the target). */
static void presence_on_queued(room_t *r, uint32_t client_id, size_t slot, const sim_cmd_t *cmd)
{
    if (cmd->kind == CMD_SET_TARGET)
        presence_set_target(r->presence, slot, client_id, true, cmd->x, cmd->y);
    else if (cmd->kind == CMD_CLEAR_TARGET)
        presence_set_target(r->presence, slot, client_id, false, 0, 0);
    else
        return;
}

/* view: a v2 client's viewport; it costs one token like any message, and
 * takes effect at most ten times a second (viewers.h). */
static void on_view(room_t *r, uint32_t client_id, size_t slot, const view_request_t *req)
{
    app_t *a = r->app;
    a->loop_counters.view_requests++;
    policy_verdict_t verdict = policy_charge(&a->policy[slot], POLICY_COST_VIEW, now_ns());
    if (verdict != POLICY_OK) {
        a->loop_counters.view_rate_limited++;
        ops_count_error(a->loop_counters.errors, "rate_limited");
        char *text = msg_error("rate_limited", "too many messages: this view was not applied; wait a moment",
                               req->request_id, "view");
        if (text) client_send(a, slot, client_id, text);
        free(text);
        if (verdict == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
        return;
    }
    if (is_remote(a, slot)) { /* its relay handles views; one that forwards them is wrong */
        reply_error(a, slot, client_id, "bad_request", "view is handled by the relay", req->request_id, "view");
        return;
    }
    if (viewers_view_of(r->viewers, slot).view_id == 0) {
        reply_error(a, slot, client_id, "bad_request", "view needs the swarmcast.v2 sub-protocol", req->request_id,
                    "view");
        return;
    }
    viewers_request(r->viewers, slot, (viewport_t){req->x, req->y, req->w, req->h}, req->budget, now_ns());
    sync_encoder(r);
}

/* create_room, room_rename, room_close, rooms: making a room is charged
 * like auth (it is the dearest thing a message can ask for), the others
 * like a name change; then rooms.c's. A relay's viewer's come through its
 * relay, which has charged them and checked its address's room budget
 * (the simulation sees only the relay). */
static void on_room(room_t *r, uint32_t client_id, size_t slot, const room_msg_t *m)
{
    app_t *a = r->app;
    double cost = m->kind == ROOM_MSG_CREATE ? POLICY_COST_AUTH : POLICY_COST_HELLO;
    policy_verdict_t verdict = policy_charge(&a->policy[slot], cost, now_ns());
    if (verdict != POLICY_OK) {
        reply_error(a, slot, client_id, "rate_limited", "too many messages: this one was not applied; wait a moment",
                    m->request_id, room_msg_names[m->kind]);
        if (verdict == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
        return;
    }
    rooms_on_message(a, r, slot, client_id, m);
}

void on_message(void *user, uint32_t client_id, size_t slot, const char *data, size_t len, bool binary)
{
    app_t *a = user;
    room_t *r = room_of_slot(a, slot);
    if (!r) return; /* its room closed and it is being sent away */
    client_policy_t *p = &a->policy[slot];
    if (binary) {
        reply_error(a, slot, client_id, "binary_not_accepted", "commands are JSON text messages; binary frames are not accepted",
                    -1, NULL);
        charge_refused(a, client_id, slot);
        return;
    }
    classified_t m;
    classify_message(data, len, &r->limits, client_id, &m);
    switch (m.kind) {
    case CLASSIFIED_PRESENCE: on_presence(r, client_id, slot, &m.presence); return;
    case CLASSIFIED_AUTH: on_auth(r, client_id, slot, m.token, m.request_id); return;
    case CLASSIFIED_VIEW: on_view(r, client_id, slot, &m.view); return;
    case CLASSIFIED_ROOM: on_room(r, client_id, slot, &m.room); return;
    case CLASSIFIED_INVALID:
        if (strcmp(m.err.code, "unknown_command") == 0) {
            /* Nobody else knew the type: it may be the timeline's (not in
             * classify, which relays share: a relay decodes it after
             * classify too and forwards it, relay_viewers.c). */
            timeline_request_t treq;
            int trc = timeline_decode(data, len, &treq, &m.err);
            if (trc == TIMELINE_DECODED) {
                on_timeline(r, client_id, slot, &treq);
                return;
            }
        }
        reply_error(a, slot, client_id, m.err.code, m.err.message, m.err.request_id, m.err.cmd);
        charge_refused(a, client_id, slot);
        return;
    case CLASSIFIED_COMMAND: break;
    }
    sim_cmd_t cmd = m.cmd;
    const char *name = cmd_name(cmd.kind);
    if (r->replaying) {
        reply_error(a, slot, client_id, "forbidden",
                    "this room replays a recording: nothing changes it (use the timeline to move through it)",
                    cmd.request_id, name);
        charge_refused(a, client_id, slot);
        return;
    }
    if (!policy_allows(p, cmd.kind)) {
        char message[160];
        snprintf(message, sizeof message, "%s needs the operator role: send auth with the control token", name);
        reply_error(a, slot, client_id, "forbidden", message, cmd.request_id, name);
        charge_refused(a, client_id, slot);
        return;
    }
    policy_verdict_t verdict = policy_charge(p, policy_cost(p, &cmd), now_ns());
    if (verdict != POLICY_OK) {
        over_budget(a, slot, client_id, cmd.kind, cmd.request_id, verdict);
        return;
    }
    cmd.visitor = !p->operator;
    pthread_mutex_lock(&r->lock);
    bool queued = r->pending[slot] < PENDING_PER_CLIENT && push_locked(r, &cmd, slot);
    pthread_mutex_unlock(&r->lock);
    if (!queued) {
        char message[96];
        a->loop_counters.rate_limited[cmd.kind]++;
        snprintf(message, sizeof message, "more than %d commands are waiting for the next tick", PENDING_PER_CLIENT);
        reply_error(a, slot, client_id, "rate_limited", message, cmd.request_id, name);
        return;
    }
    a->loop_counters.received[cmd.kind]++;
    presence_on_queued(r, client_id, slot, &cmd);
}

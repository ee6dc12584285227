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

#include "app_internal.h"
#include "people/auth_guess.h"
#include "protocol/classify.h"
#include "protocol/messages.h"

static bool push_locked(app_t *a, const sim_cmd_t *cmd, size_t slot)
{
    if (a->q_len == a->q_cap) return false;
    a->queue[(a->q_head + a->q_len) % a->q_cap] = (queued_t){*cmd, slot};
    a->q_len++;
    a->pending[slot]++;
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

static uint64_t current_tick(app_t *a)
{
    pthread_mutex_lock(&a->lock);
    uint64_t tick = a->summary.tick;
    pthread_mutex_unlock(&a->lock);
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
static void send_presence_news(app_t *a)
{
    char *text;
    if ((text = presence_take_list(a->presence))) send_latest(a, LATEST_PRESENCE, text);
    free(text);
    if ((text = presence_take_activity(a->presence))) send_latest(a, LATEST_ACTIVITY, text);
    free(text);
}

/* Pointers move many times a second: they go out at most INSPECT_HZ times,
 * with the presence news. */
void on_cursor_timer(uv_timer_t *handle)
{
    app_t *a = handle->data;
    send_presence_news(a);
    char *text = presence_take_cursors(a->presence);
    if (text) send_latest(a, LATEST_CURSORS, text);
    free(text);
}

/* A client takes a slot (net's or a remote one): its budget and its place
 * in presence. */
void join_slot(app_t *a, uint32_t client_id, size_t slot, bool operator)
{
    pthread_mutex_lock(&a->lock);
    a->slot_client[slot] = client_id;
    pthread_mutex_unlock(&a->lock);
    policy_init(&a->policy[slot], operator, a->cfg.rate_scale, now_ns());
    presence_join(a->presence, slot, client_id, operator, wall_clock_s());
}

char *on_open(void *user, uint32_t client_id, size_t slot, int protocol)
{
    app_t *a = user;
    pthread_mutex_lock(&a->lock);
    world_info_t info = a->summary.info;
    pthread_mutex_unlock(&a->lock);
    bool operator = a->cfg.control_token == NULL;
    join_slot(a, client_id, slot, operator);
    hello_info_t hello = {client_id, a->cfg.tick_hz, a->cfg.snapshot_hz, operator, a->cfg.control_token != NULL,
                          protocol, a->cfg.public_url};
    if (protocol == 2) viewers_open(a->viewers, slot, now_ns());
    sync_encoder(a);
    return msg_hello(&hello, &info);
}

void on_close(void *user, uint32_t client_id, size_t slot)
{
    app_t *a = user;
    /* The departed client's target and own obstacles go at the next tick
     * like any change (see departures_t). */
    presence_leave(a->presence, slot, client_id, wall_clock_s());
    pthread_mutex_lock(&a->lock);
    a->slot_client[slot] = 0;
    if (a->selections[slot].client) a->n_selections--;
    a->selections[slot] = (selection_t){0};
    departures_t *d = &a->departed;
    if (d->len == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        uint32_t *grown = realloc(d->ids, cap * sizeof *grown);
        if (grown) d->ids = grown, d->cap = cap;
    }
    if (d->len < d->cap)
        d->ids[d->len++] = client_id;
    else
        fprintf(stderr, "swarmcast: out of memory: client %u's target stays\n", (unsigned)client_id);
    pthread_mutex_unlock(&a->lock);
    if (!is_remote(a, slot)) viewers_close(a->viewers, slot);
    sync_encoder(a);
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
 * compared. A relay answers its viewers' auth itself (they arrive with
 * their role), so one from a remote slot is nobody's guess to take. */
static void on_auth(app_t *a, uint32_t client_id, size_t slot, const char *token, int64_t request_id)
{
    client_policy_t *p = &a->policy[slot];
    a->loop_counters.received[OPS_CMD_AUTH]++;
    policy_verdict_t verdict = policy_charge(p, POLICY_COST_AUTH, now_ns());
    if (verdict != POLICY_OK) {
        over_budget(a, slot, client_id, OPS_CMD_AUTH, request_id, verdict);
        return;
    }
    if (a->cfg.control_token && is_remote(a, slot)) {
        reply_error(a, slot, client_id, "forbidden", "auth is answered by the relay", request_id, "auth");
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
    p->operator = true;
    presence_set_role(a->presence, slot, client_id, true);
    char *text = msg_auth_ack(request_id, true, current_tick(a));
    if (text) client_send(a, slot, client_id, text);
    free(text);
}

/* inspect: a point to pick the nearest agent at, or none (stop). */
static void set_selection(app_t *a, size_t slot, uint32_t client_id, const presence_msg_t *m)
{
    pthread_mutex_lock(&a->lock);
    selection_t *sel = &a->selections[slot];
    bool had = sel->client != 0;
    if (m->has_point)
        *sel = (selection_t){.client = client_id, .pick = true, .x = m->x, .y = m->y};
    else
        *sel = (selection_t){0};
    a->n_selections = a->n_selections + (sel->client != 0) - had;
    pthread_mutex_unlock(&a->lock);
}

/* hello, cursor, inspect, ping: charged like commands, never queued. */
static void on_presence(app_t *a, uint32_t client_id, size_t slot, const presence_msg_t *m)
{
    policy_verdict_t verdict = policy_charge(&a->policy[slot], policy_presence_cost(m->kind), now_ns());
    if (verdict != POLICY_OK) {
        reply_error(a, slot, client_id, "rate_limited", "too many messages: this one was not applied; wait a moment",
                    m->request_id, presence_kind_name(m->kind));
        if (verdict == POLICY_ABUSIVE) close_abusive(a, slot, client_id);
        return;
    }
    switch (m->kind) {
    case PRESENCE_HELLO: {
        presence_hello(a->presence, slot, client_id, m, wall_clock_s());
        char *text = presence_hello_ack(a->presence, slot, client_id, m->request_id, current_tick(a));
        if (text) client_send(a, slot, client_id, text);
        free(text);
        break;
    }
    case PRESENCE_CURSOR:
        presence_cursor(a->presence, slot, client_id, m->x, m->y);
        break;
    case PRESENCE_PING: {
        char text[64];
        msg_pong(m->request_id, text, sizeof text);
        client_send(a, slot, client_id, text);
        break;
    }
    case PRESENCE_INSPECT:
        set_selection(a, slot, client_id, m);
        break;
    }
}

/* A command queued: what presence shows of it (the target). */
static void presence_on_queued(app_t *a, uint32_t client_id, size_t slot, const sim_cmd_t *cmd)
{
    if (cmd->kind == CMD_SET_TARGET)
        presence_set_target(a->presence, slot, client_id, true, cmd->x, cmd->y);
    else if (cmd->kind == CMD_CLEAR_TARGET)
        presence_set_target(a->presence, slot, client_id, false, 0, 0);
    else
        return;
}

/* view: a v2 client's viewport; it costs one token like any message, and
 * takes effect at most ten times a second (viewers.h). */
static void on_view(app_t *a, uint32_t client_id, size_t slot, const view_request_t *req)
{
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
    if (viewers_view_of(a->viewers, slot).view_id == 0) {
        reply_error(a, slot, client_id, "bad_request", "view needs the swarmcast.v2 sub-protocol", req->request_id,
                    "view");
        return;
    }
    viewers_request(a->viewers, slot, (viewport_t){req->x, req->y, req->w, req->h}, req->budget, now_ns());
    sync_encoder(a);
}

void on_message(void *user, uint32_t client_id, size_t slot, const char *data, size_t len, bool binary)
{
    app_t *a = user;
    client_policy_t *p = &a->policy[slot];
    if (binary) {
        reply_error(a, slot, client_id, "binary_not_accepted", "commands are JSON text messages; binary frames are not accepted",
                    -1, NULL);
        charge_refused(a, client_id, slot);
        return;
    }
    classified_t m;
    classify_message(data, len, &a->limits, client_id, &m);
    switch (m.kind) {
    case CLASSIFIED_PRESENCE: on_presence(a, client_id, slot, &m.presence); return;
    case CLASSIFIED_AUTH: on_auth(a, client_id, slot, m.token, m.request_id); return;
    case CLASSIFIED_VIEW: on_view(a, client_id, slot, &m.view); return;
    case CLASSIFIED_INVALID:
        reply_error(a, slot, client_id, m.err.code, m.err.message, m.err.request_id, m.err.cmd);
        charge_refused(a, client_id, slot);
        return;
    case CLASSIFIED_COMMAND: break;
    }
    sim_cmd_t cmd = m.cmd;
    const char *name = cmd_name(cmd.kind);
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
    pthread_mutex_lock(&a->lock);
    bool queued = a->pending[slot] < PENDING_PER_CLIENT && push_locked(a, &cmd, slot);
    pthread_mutex_unlock(&a->lock);
    if (!queued) {
        char message[96];
        a->loop_counters.rate_limited[cmd.kind]++;
        snprintf(message, sizeof message, "more than %d commands are waiting for the next tick", PENDING_PER_CLIENT);
        reply_error(a, slot, client_id, "rate_limited", message, cmd.request_id, name);
        return;
    }
    a->loop_counters.received[cmd.kind]++;
    presence_on_queued(a, client_id, slot, &cmd);
}

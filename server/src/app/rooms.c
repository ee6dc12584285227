/* rooms: the server's rooms (loop thread). Which room a new session joins
 * (its ?room= code, checked against the per-address budget of wrong
 * codes), making a room from the page (who may, how many, from what),
 * renaming and closing one, and the lifecycle: a room nobody watches rests
 * (its simulation thread sleeps) after --room-idle-stop and closes after
 * --room-idle-close. The default room (rooms[0]) is the world at / that
 * the server had before rooms: it never rests or closes. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_internal.h"
#include "protocol/messages.h"
#include "experiment/run_scenario.h"
#include "rooms/room_guard.h"

/* How often the lifecycle looks at the rooms. */
#define ROOMS_CHECK_MS 1000

static void on_rooms_timer(uv_timer_t *t);
static void on_rooms_free_timer(uv_timer_t *t);
static room_t *reopen(app_t *a, const kept_room_t *kept, char *why, size_t why_len);

int rooms_init(app_t *a)
{
    a->n_rooms_max = a->cfg.max_rooms + 1;
    a->rooms = calloc(a->n_rooms_max, sizeof *a->rooms);
    a->slot_room = calloc(a->n_slots, sizeof *a->slot_room);
    room_guard_config_t gc = room_guard_defaults();
    gc.hash_seed = uv_hrtime();
    a->guard = room_guard_create(&gc);
    if (!a->rooms || !a->slot_room || !a->guard) {
        fprintf(stderr, "swarmcast: out of memory for %zu rooms\n", a->n_rooms_max);
        return -1;
    }
    return room_store_open(a); /* says why it fails */
}

void rooms_start_timer(app_t *a)
{
    uv_timer_init(a->loop, &a->rooms_timer);
    a->rooms_timer.data = a;
    uv_timer_start(&a->rooms_timer, on_rooms_timer, ROOMS_CHECK_MS, ROOMS_CHECK_MS);
    uv_timer_init(a->loop, &a->rooms_free_timer);
    a->rooms_free_timer.data = a;
}

room_t *rooms_find(const app_t *a, const char *code)
{
    for (size_t i = 1; i < a->n_rooms_max; i++)
        if (a->rooms[i] && !a->rooms[i]->closing && !strcmp(a->rooms[i]->code, code)) return a->rooms[i];
    return NULL;
}

bool rooms_known(void *user, const char *typed)
{
    app_t *a = user;
    char code[ROOM_CODE_LEN + 1];
    if (!typed[0]) return true;
    return room_code_normalize(typed, code) && (rooms_find(a, code) || room_store_find(a, code));
}

/* A refusal at open, as net closes it (code and reason). */
static room_t *refuse(net_admit_t *admit, int code, const char *reason)
{
    admit->refuse_code = code;
    snprintf(admit->refuse_reason, sizeof admit->refuse_reason, "%s", reason);
    return NULL;
}

room_t *rooms_admit(app_t *a, size_t slot, uint32_t client_id, const char *typed, net_admit_t *admit)
{
    if (!typed[0]) return a->home;
    addr_key_t addr;
    bool known = net_client_addr(a->net, slot, client_id, &addr);
    uint64_t now_ms = now_ns() / 1000000;
    /* A lookup waits unread while the address has typed too many wrong
     * codes: answering it would tell a guesser what it wants to know. */
    uint64_t wait = known ? room_guard_code_wait(a->guard, &addr, now_ms) : 0;
    if (wait) {
        a->room_codes_throttled++;
        char reason[96];
        snprintf(reason, sizeof reason, "too many wrong room codes from this address; try again in %llu s",
                 (unsigned long long)(wait + 999) / 1000);
        return refuse(admit, CLOSE_TOO_MANY_CODES, reason);
    }
    char code[ROOM_CODE_LEN + 1];
    bool shaped = room_code_normalize(typed, code);
    bool kept = false;
    /* A close reason holds at most 123 bytes: why is cut to fit. */
    room_t *r = shaped ? rooms_find_or_reopen(a, code, &kept, admit->refuse_reason, sizeof admit->refuse_reason) : NULL;
    if (!r && kept) {
        admit->refuse_code = CLOSE_TRY_AGAIN_LATER;
        return NULL;
    }
    if (!r) {
        a->room_codes_wrong++;
        if (known) room_guard_code_wrong(a->guard, &addr, now_ms);
        return refuse(admit, CLOSE_NO_SUCH_ROOM, "no such room");
    }
    admit->channel = r->index;
    return r;
}

room_t *rooms_find_or_reopen(app_t *a, const char *code, bool *kept, char *why, size_t why_len)
{
    room_t *r = rooms_find(a, code);
    const kept_room_t *k = r ? NULL : room_store_find(a, code);
    *kept = k != NULL;
    return r ? r : k ? reopen(a, k, why, why_len) : NULL;
}

void rooms_person_joined(room_t *r)
{
    if (r->people++ == 0) {
        r->empty_since_ns = 0;
        room_set_resting(r, false);
    }
}

void rooms_person_left(room_t *r)
{
    if (r->people && --r->people == 0) r->empty_since_ns = now_ns();
}

/* ---- making, renaming and closing rooms ---------------------------------- */

static void reply_error(app_t *a, size_t slot, uint32_t client_id, const char *code, const char *message,
                        int64_t request_id, const char *cmd)
{
    ops_count_error(a->loop_counters.errors, code);
    char *text = msg_error(code, message, request_id, cmd);
    if (text) client_send(a, slot, client_id, text);
    free(text);
}

/* Takes n agents from the shared budget for a new room; false when they
 * do not fit (msg says who holds the budget). */
static bool budget_reserve(app_t *a, size_t n, char *msg, size_t msg_len)
{
    size_t held = atomic_load(&a->agents_held);
    while (held + n <= a->cfg.max_agents)
        if (atomic_compare_exchange_weak(&a->agents_held, &held, held + n)) return true;
    snprintf(msg, msg_len,
             "a new room of %zu agents does not fit the population budget of %zu agents that every room of this "
             "server shares: %zu rooms hold %zu, %zu are left",
             n, a->cfg.max_agents, a->n_rooms + 1, held, held < a->cfg.max_agents ? a->cfg.max_agents - held : 0);
    return false;
}

/* A free place among the rooms, or 0 when every one is taken. */
static size_t free_index(const app_t *a)
{
    for (size_t i = 1; i < a->n_rooms_max; i++)
        if (!a->rooms[i]) return i;
    return 0;
}

/* Puts a made room in its place and counts it; with --nats, names its
 * stream (its code is set by now). */
static void install(app_t *a, room_t *r)
{
    a->rooms[r->index] = r;
    a->n_rooms++;
    if (a->cfg.nats_url) bridge_room_subjects(r);
}

/* A room whose loop handles may be open goes: they close now, their
 * callbacks run at the end of this turn of the loop, so the room is freed
 * at the next turn, not before: by rooms_free_timer, due in 1 ms (not 0:
 * started from a timer's callback, a timer due now would run in this same
 * turn). Not at the lifecycle's next round, up to a second away: rooms made
 * and closed in a loop would pile up meanwhile (3 MB each, and more than
 * --max-rooms of them), and the heap would keep that peak. */
static void retire(app_t *a, room_t *r)
{
    room_close_handles(r);
    r->next_closed = a->closed_rooms;
    a->closed_rooms = r;
    uv_timer_start(&a->rooms_free_timer, on_rooms_free_timer, 1, 0);
}

/* A room kept in --state-dir, opened again as it was saved: its code,
 * name, token and set-up. NULL (why says what to try) when there is no
 * place or budget for it now. */
static room_t *reopen(app_t *a, const kept_room_t *kept, char *why, size_t why_len)
{
    size_t index = free_index(a);
    if (!index) {
        snprintf(why, why_len, "this server holds its most rooms (--max-rooms); try again when one closes");
        return NULL;
    }
    room_setup_t setup = {ROOM_FROM_FLAGS, NULL, NULL, false};
    room_t *r = room_create(a, index, &setup, why, why_len);
    if (!r) return NULL;
    memcpy(r->code, kept->code, sizeof r->code);
    memcpy(r->name, kept->name, sizeof r->name);
    memcpy(r->token, kept->token, sizeof r->token);
    r->state_path = r->state_path_owned = room_store_state_path(a, r->code);
    if (!r->state_path || restore_state(r)) {
        snprintf(why, why_len, "room %s cannot be read back; try again later", r->code);
        room_free(r);
        return NULL;
    }
    if (!budget_reserve(a, r->world.n, why, why_len)) {
        room_free(r);
        return NULL;
    }
    r->agents_held = r->world.n;
    if (room_start(r)) {
        atomic_fetch_sub(&a->agents_held, r->agents_held);
        retire(a, r); /* its handles may be on the loop already */
        snprintf(why, why_len, "cannot start the room's simulation");
        return NULL;
    }
    install(a, r);
    room_store_reopened(a, r->code);
    fprintf(stderr, "swarmcast: room %s reopened (%zu agents; %zu rooms)\n", r->code, r->world.n, a->n_rooms);
    return r;
}

/* One run of a sweep in --experiments DIR/NAME, as the scenario file
 * `swarmcast experiment scenario` writes (run_scenario.c), into a temporary
 * file whose path goes into path. 0; -1 when it cannot be had (msg says
 * why: no such experiment or run, I/O). */
static int run_scenario_file(const app_t *a, const room_msg_t *m, char *path, size_t len, char *msg, size_t msg_len)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", a->cfg.experiments, m->experiment);
    if (access(dir, R_OK | X_OK)) {
        snprintf(msg, msg_len, "no experiment named '%s' on this server", m->experiment);
        return -1;
    }
    snprintf(path, len, "%s/swarmcast-run-XXXXXX", P_tmpdir);
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd), unlink(path);
        snprintf(msg, msg_len, "cannot write the run's scenario");
        return -1;
    }
    int rc = run_scenario_write(dir, m->run, f);
    if (fclose(f) || rc) {
        unlink(path);
        snprintf(msg, msg_len, rc == 2 ? "experiment '%s' has no run %s (or cannot be read)" : "cannot write the run's scenario",
                 m->experiment, m->run);
        return -1;
    }
    return 0;
}

/* A scenario shipped with the page (web root's scenarios/NAME.json). */
static int scenario_path(const app_t *a, const char *name, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/scenarios/%s.json", a->cfg.web_root, name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static void create_room(app_t *a, room_t *from, size_t slot, uint32_t client_id, const room_msg_t *m)
{
    const char *cmd = room_msg_names[m->kind];
    char msg[400];
    if (a->cfg.rooms == CONFIG_ROOMS_OFF) {
        reply_error(a, slot, client_id, "forbidden", "this server makes no rooms (--rooms off)", m->request_id, cmd);
        return;
    }
    if (a->cfg.rooms == CONFIG_ROOMS_OPERATORS && !a->policy[slot].server_operator) {
        reply_error(a, slot, client_id, "forbidden",
                    "on this server only its operators make rooms (--rooms operators): send auth with the control token",
                    m->request_id, cmd);
        return;
    }
    size_t index = free_index(a);
    if (!index) {
        snprintf(msg, sizeof msg, "this server holds its most rooms (%zu, --max-rooms); try again when one closes",
                 a->cfg.max_rooms);
        reply_error(a, slot, client_id, "limit_reached", msg, m->request_id, cmd);
        return;
    }
    addr_key_t addr;
    uint64_t wait = 0;
    if (net_client_addr(a->net, slot, client_id, &addr) &&
        !room_guard_create_take(a->guard, &addr, now_ns() / 1000000, &wait)) {
        snprintf(msg, sizeof msg, "this address made too many rooms; try again in %llu s",
                 (unsigned long long)(wait + 999) / 1000);
        reply_error(a, slot, client_id, "rate_limited", msg, m->request_id, cmd);
        return;
    }
    char path[4200];
    summary_t copy;
    room_setup_t setup = {ROOM_FROM_FLAGS, NULL, NULL, false};
    if (m->from == ROOM_FROM_COPY) {
        pthread_mutex_lock(&from->lock);
        copy = from->summary;
        pthread_mutex_unlock(&from->lock);
        setup = (room_setup_t){ROOM_FROM_WORLD, &copy, NULL, false};
    } else if (m->from == ROOM_FROM_NAMED_SCENARIO) {
        if (scenario_path(a, m->scenario, path, sizeof path) || access(path, R_OK)) {
            snprintf(msg, sizeof msg, "no scenario named '%s' (the page lists them: /scenarios/index.json)", m->scenario);
            reply_error(a, slot, client_id, "not_found", msg, m->request_id, cmd);
            return;
        }
        setup = (room_setup_t){ROOM_FROM_SCENARIO, NULL, path, false};
    } else if (m->from == ROOM_FROM_RUN) {
        if (!a->cfg.experiments) {
            reply_error(a, slot, client_id, "forbidden", "this server opens no experiments' runs (--experiments DIR)",
                        m->request_id, cmd);
            return;
        }
        if (run_scenario_file(a, m, path, sizeof path, msg, sizeof msg)) {
            reply_error(a, slot, client_id, "not_found", msg, m->request_id, cmd);
            return;
        }
        setup = (room_setup_t){ROOM_FROM_SCENARIO, NULL, path, true};
    }
    room_t *r = room_create(a, index, &setup, msg, sizeof msg);
    if (m->from == ROOM_FROM_RUN) unlink(path);
    if (!r && m->from == ROOM_FROM_NAMED_SCENARIO && strstr(msg, path)) {
        /* A file of the scenarios folder that is no scenario (index.json,
         * the page's list of them): the reason names the file by its path
         * on this machine, which is the operator's to read (stderr), not a
         * visitor's. To a visitor it is no scenario of that name. */
        fprintf(stderr, "swarmcast: create_room: %s\n", msg);
        snprintf(msg, sizeof msg, "no scenario named '%s' (the page lists them: /scenarios/index.json)", m->scenario);
        reply_error(a, slot, client_id, "not_found", msg, m->request_id, cmd);
        return;
    }
    if (!r) {
        reply_error(a, slot, client_id, "bad_request", msg, m->request_id, cmd);
        return;
    }
    if (!budget_reserve(a, r->world.n, msg, sizeof msg)) {
        room_free(r);
        reply_error(a, slot, client_id, "limit_reached", msg, m->request_id, cmd);
        return;
    }
    r->agents_held = r->world.n;
    do {
        if (room_code_random(r->code) || room_token_random(r->token)) {
            atomic_fetch_sub(&a->agents_held, r->agents_held);
            room_free(r);
            reply_error(a, slot, client_id, "internal", "no randomness for a code", m->request_id, cmd);
            return;
        }
    } while (rooms_find(a, r->code) || room_store_code_taken(a, r->code));
    if (m->has_name) snprintf(r->name, sizeof r->name, "%s", m->name);
    r->state_path = r->state_path_owned = room_store_state_path(a, r->code);
    r->empty_since_ns = now_ns(); /* nobody is in it yet: its creator is on the way */
    if (room_start(r)) {
        atomic_fetch_sub(&a->agents_held, r->agents_held);
        retire(a, r); /* its handles may be on the loop already */
        reply_error(a, slot, client_id, "internal", "cannot start the room's simulation", m->request_id, cmd);
        return;
    }
    install(a, r);
    a->rooms_created++;
    room_store_write(a, r);
    char *text = msg_room_created(m->request_id, r->code, r->name, r->token);
    if (text) client_send(a, slot, client_id, text);
    free(text);
    fprintf(stderr, "swarmcast: room %s made (%zu agents; %zu rooms)\n", r->code, r->world.n, a->n_rooms);
}

void rooms_close(app_t *a, room_t *r, bool forget, const char *why)
{
    if (r == a->home || r->closing) return;
    r->closing = true;
    net_close_channel(a->net, r->index, CLOSE_ROOM_CLOSED, "room closed");
    room_stop(r);
    /* Closed for want of people, it is kept (with --state-dir) and reopens
     * by its code; closed by its operators, it is gone. */
    if (forget) {
        room_store_forget(a, r->code);
    } else if (r->state_path) {
        write_final_state(r);
        room_store_keep(a, r);
    }
    atomic_fetch_sub(&a->agents_held, r->agents_held);
    r->agents_held = 0;
    if (a->nats) bridge_room_closing(a, r);
    /* Its sessions are closing: none may be routed to it from here on. */
    for (size_t s = 0; s < a->n_slots; s++)
        if (a->slot_room[s] == r) a->slot_room[s] = NULL;
    net_channel_reset(a->net, r->index);
    a->rooms[r->index] = NULL;
    a->n_rooms--;
    a->rooms_closed++;
    fprintf(stderr, "swarmcast: room %s closed (%s; %zu rooms)\n", r->code, why, a->n_rooms);
    retire(a, r);
}

/* Frees the rooms closed before this round of the timer (all, at the
 * end), but one whose periodic state write is still on the thread pool:
 * its completion touches the room. */
static void free_closed(app_t *a, bool all)
{
    room_t **link = &a->closed_rooms;
    while (*link) {
        room_t *r = *link;
        if (!all && r->state_writing) {
            link = &r->next_closed;
            continue;
        }
        *link = r->next_closed;
        room_free(r);
    }
}

static void send_ack(app_t *a, size_t slot, uint32_t client_id, int64_t request_id, const char *cmd)
{
    char *text = msg_room_ack(request_id, cmd);
    if (text) client_send(a, slot, client_id, text);
    free(text);
}

void rooms_on_message(app_t *a, room_t *r, size_t slot, uint32_t client_id, const room_msg_t *m)
{
    const char *cmd = room_msg_names[m->kind];
    const client_policy_t *p = &a->policy[slot];
    switch (m->kind) {
    case ROOM_MSG_CREATE:
        create_room(a, r, slot, client_id, m);
        return;
    case ROOM_MSG_RENAME:
        if (!p->operator || r == a->home) {
            reply_error(a, slot, client_id, "forbidden",
                        r == a->home ? "the default room has no name to change" : "room_rename needs the room's operator role",
                        m->request_id, cmd);
            return;
        }
        snprintf(r->name, sizeof r->name, "%s", m->name);
        room_store_write(a, r);
        send_ack(a, slot, client_id, m->request_id, cmd);
        char *news = msg_room_news(r->code, r->name);
        if (news) send_latest(r, LATEST_ROOM, news);
        free(news);
        return;
    case ROOM_MSG_CLOSE: {
        room_t *target = m->has_code ? rooms_find(a, m->code) : r;
        bool may = target == r ? p->operator : p->server_operator;
        if (!may) {
            reply_error(a, slot, client_id, "forbidden",
                        m->has_code ? "closing another room needs the server's operator role (the control token)"
                                    : "room_close needs the room's operator role",
                        m->request_id, cmd);
            return;
        }
        if (!target) {
            reply_error(a, slot, client_id, "not_found", "no such room", m->request_id, cmd);
            return;
        }
        if (target == a->home) {
            reply_error(a, slot, client_id, "forbidden", "the default room does not close", m->request_id, cmd);
            return;
        }
        /* Its own room's close is the sender's answer (4410); another's is acked. */
        if (target != r) send_ack(a, slot, client_id, m->request_id, cmd);
        rooms_close(a, target, true, "closed by an operator");
        return;
    }
    case ROOM_MSG_LIST: {
        if (!p->server_operator) {
            reply_error(a, slot, client_id, "forbidden", "rooms needs the server's operator role (the control token)",
                        m->request_id, cmd);
            return;
        }
        char *text = rooms_list_json(a, m->request_id);
        if (text) client_send(a, slot, client_id, text);
        free(text);
        return;
    }
    case ROOM_MSG_KINDS: break;
    }
}

room_info_t *rooms_info(const app_t *a, size_t *n)
{
    room_info_t *list = calloc(a->n_rooms_max, sizeof *list);
    *n = 0;
    for (size_t i = 0; list && i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r || r->closing) continue;
        pthread_mutex_lock(&r->lock);
        summary_t s = r->summary;
        bool resting = r->resting;
        pthread_mutex_unlock(&r->lock);
        list[(*n)++] = (room_info_t){r->code, r->name, r->people, s.agents, s.tick, s.ticks_per_s, s.slowest_second,
                                     s.paused, resting};
    }
    return list;
}

char *rooms_list_json(const app_t *a, int64_t request_id)
{
    size_t n;
    room_info_t *list = rooms_info(a, &n);
    char *text = list ? msg_rooms(request_id, list, n) : NULL;
    free(list);
    return text;
}

/* ---- the lifecycle --------------------------------------------------------- */

static void on_rooms_free_timer(uv_timer_t *t)
{
    free_closed(t->data, false);
}

static void on_rooms_timer(uv_timer_t *t)
{
    app_t *a = t->data;
    uint64_t now = now_ns();
    free_closed(a, false);
    for (size_t i = 1; i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r || r->people || !r->empty_since_ns) continue;
        double empty_s = (double)(now - r->empty_since_ns) / 1e9;
        if (empty_s >= a->cfg.room_idle_close_s)
            rooms_close(a, r, false, "nobody came back");
        else if (empty_s >= a->cfg.room_idle_stop_s && !r->resting)
            room_set_resting(r, true);
    }
}

void rooms_shutdown(app_t *a)
{
    uv_timer_stop(&a->rooms_timer);
    uv_close((uv_handle_t *)&a->rooms_timer, NULL);
    uv_timer_stop(&a->rooms_free_timer);
    uv_close((uv_handle_t *)&a->rooms_free_timer, NULL);
    for (size_t i = 1; i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r) continue;
        room_stop(r);
        if (r->state_path) write_final_state(r);
        room_close_handles(r);
    }
}

void rooms_destroy(app_t *a)
{
    free_closed(a, true);
    room_store_destroy(a);
    for (size_t i = 1; a->rooms && i < a->n_rooms_max; i++) room_free(a->rooms[i]);
    free(a->rooms);
    free(a->slot_room);
    room_guard_destroy(a->guard);
}

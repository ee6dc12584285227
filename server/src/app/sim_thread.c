/* sim_thread: a room's simulation thread and its fixed-rate tick (every
 * room has its own; room.h). It owns the room's world once it runs; a room
 * nobody watches rests (no ticks) until someone comes back. At each tick
 * it takes the commands the loop queued
 * and the departures, applies them (the one point of the tick where the
 * world changes from outside) and steps; every snapshot period it hands the
 * world to the encoder, whose copier thread copies it while this thread
 * sleeps until the next tick (stream/encoder.h), and after each round of ticks it hands
 * its replies and a summary to the loop (publish). It does no network I/O;
 * its disk I/O is the command log's buffered writes (command_log.c). */
/* pthread_setname_np: the simulation thread is named in top, perf and the tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "activity.h"
#include "app_internal.h"
#include "protocol/inspect_json.h"
#include "protocol/messages.h"
#include "protocol/metrics_json.h"
#include "sim/inspect.h"

/* After a stall the clock runs at most this many ticks back to back, then
 * drops the backlog (counted as overruns) instead of spiralling. */
#define MAX_CATCH_UP 4

/* What the simulation thread is called (/proc/PID/task/TID/comm; at most 15 characters). */
#define SIM_THREAD_NAME "swarmcast-sim"

/* Metrics may take at most this share of the simulation thread's time: in a
 * crowded world of a million agents they cost more than a step, and the
 * tick rate matters more than how often the panel's numbers change. */
#define METRICS_TIME_SHARE 0.05
/* … and one computation must fit well inside a tick: past this many
 * candidate pairs (a crowd: the count grows with the square of density)
 * the pair metrics are left out (null) and the rest still go out. The
 * pair pass costs 1–10 ns a pair (more when everything links into one
 * cluster): at most about 20 ms of one core. Without the bound, 100,000
 * agents in a 100 × 56 u corner took 14.6 s. */
#define METRICS_MAX_PAIRS 2000000ull

/* The news that a parameter changed: its message carries every species'
 * value, so that the newest one alone is the whole truth. */
static char *param_news(const world_t *w, const sim_result_t *res, uint32_t by, uint64_t tick)
{
    double values[SIM_MAX_SPECIES];
    int n = w->params.species > 1 ? w->params.species : 1;
    for (int k = 0; k < n; k++) values[k] = params_get(&w->species_params[k], (size_t)res->param);
    return msg_param((size_t)res->param, res->value, res->species, by, tick, values, n);
}

/* The agents cmd would add to the world (0 for any other command). */
static size_t growth(const world_t *w, const sim_cmd_t *cmd)
{
    if (cmd->kind == CMD_ADD_AGENTS) return cmd->count;
    if (cmd->kind == CMD_RESET && cmd->has_agents && cmd->agents > w->n) return cmd->agents - w->n;
    return 0;
}

/* Takes more agents from the population budget all rooms share (false,
 * with the message to send, when what is left is too little). */
static bool budget_take(room_t *r, size_t more, char *msg, size_t msg_len)
{
    app_t *a = r->app;
    size_t held = atomic_load(&a->agents_held);
    while (held + more <= a->cfg.max_agents)
        if (atomic_compare_exchange_weak(&a->agents_held, &held, held + more)) {
            r->agents_held += more;
            return true;
        }
    size_t others = held >= r->agents_held ? held - r->agents_held : 0;
    snprintf(msg, msg_len,
             "the population budget of %zu agents is shared by every room of this server: this room holds %zu, "
             "the other rooms %zu, and %zu are left",
             a->cfg.max_agents, r->agents_held, others, held < a->cfg.max_agents ? a->cfg.max_agents - held : 0);
    return false;
}

/* After a command: the budget follows the world's population (a reset to
 * fewer agents, or an add that failed, gives agents back). */
static void budget_settle(room_t *r)
{
    size_t n = r->world.n;
    if (n > r->agents_held) atomic_fetch_add(&r->app->agents_held, n - r->agents_held);
    else atomic_fetch_sub(&r->app->agents_held, r->agents_held - n);
    r->agents_held = n;
}

/* Applies one command and records it; with reply, queues the sender's (in
 * slot) ack
 * or error and, for a changed parameter, everyone's news. */
static void apply_one(room_t *r, const sim_cmd_t *cmd, size_t slot, bool reply)
{
    uint64_t tick = r->world.tick;
    sim_result_t res;
    size_t more = growth(&r->world, cmd);
    if (more && !budget_take(r, more, res.message, sizeof res.message)) {
        /* Refused before it reaches the world: nothing to record. */
        res.status = SIM_E_LIMIT;
        ops_count_error(r->counters.errors, msg_error_code(res.status));
        if (reply)
            replies_push(&r->produced, slot, cmd->client_id, LATEST_NONE,
                         msg_error(msg_error_code(res.status), res.message, cmd->request_id, cmd_name(cmd->kind)));
        return;
    }
    sim_apply(&r->world, cmd, &res);
    budget_settle(r);
    record_command(r, tick, cmd);
    if (r->history) history_applied(r->history, tick, cmd, &r->world);
    if (res.status == SIM_OK)
        r->counters.applied[cmd->kind]++;
    else
        ops_count_error(r->counters.errors, msg_error_code(res.status));
    if (!reply) return;
    if (res.status == SIM_OK && res.param >= 0)
        replies_push(&r->produced, 0, 0, LATEST_PARAM(res.param), param_news(&r->world, &res, cmd->client_id, tick));
    if (res.status == SIM_OK) replies_push(&r->produced, slot, cmd->client_id, ROUTE_ACTIVITY, activity_of(&r->world, cmd, &res));
    replies_push(&r->produced, slot, cmd->client_id, LATEST_NONE,
                 res.status == SIM_OK
                     ? msg_ack(cmd, &res, tick)
                     : msg_error(msg_error_code(res.status), res.message, cmd->request_id, cmd_name(cmd->kind)));
}

/* Applies every queued command, in arrival order, then the departures. */
static void apply_commands(room_t *r)
{
    pthread_mutex_lock(&r->lock);
    size_t n = r->q_len;
    if (n > r->taken_cap) {
        /* The queue grew (viewer_sessions.c): so does the list taken from it. */
        queued_t *grown = realloc(r->taken, r->q_cap * sizeof *grown);
        if (grown) r->taken = grown, r->taken_cap = r->q_cap;
        if (n > r->taken_cap) n = r->taken_cap; /* out of memory: the rest wait a tick */
    }
    for (size_t k = 0; k < n; k++) {
        queued_t q = r->queue[(r->q_head + k) % r->q_cap];
        r->pending[q.slot]--;
        r->taken[k] = q;
    }
    r->q_head = (r->q_head + n) % r->q_cap;
    r->q_len -= n;
    departures_t left = r->departed;
    r->departed = r->leaving; /* the emptied list of the last tick, for reuse */
    r->departed.len = 0;
    r->leaving = left;
    pthread_mutex_unlock(&r->lock);

    for (size_t k = 0; k < n; k++) apply_one(r, &r->taken[k].cmd, r->taken[k].slot, true);
    for (size_t k = 0; k < r->leaving.len; k++) {
        sim_cmd_t leave = {.kind = CMD_LEAVE, .client_id = r->leaving.ids[k], .request_id = -1};
        apply_one(r, &leave, 0, false);
    }
}

/* Queues a metrics message for everyone, unless the last one was too recent
 * for its cost. */
metrics_config_t room_metrics_config(const room_t *r)
{
    metrics_config_t mc = metrics_default_config(&r->world);
    mc.max_pairs = METRICS_MAX_PAIRS;
    return mc;
}

static void broadcast_metrics(room_t *r)
{
    uint64_t start = now_ns();
    if (start < r->metrics_not_before_ns) return;
    metrics_t m;
    metrics_config_t mc = room_metrics_config(r);
    if (metrics_compute(&r->metrics, &r->world, &mc, &m) == 0) {
        replies_push(&r->produced, 0, 0, LATEST_METRICS, msg_metrics(&m));
        past_metrics_keep(r, &m); /* what a viewer of this tick's past is told */
    }
    uint64_t took = now_ns() - start;
    r->metrics_not_before_ns = start + (uint64_t)((double)took / METRICS_TIME_SHARE);
}

/* About INSPECT_HZ times a second: each selection's agent, to its client.
 * A point not yet resolved picks the nearest agent; an agent that is gone
 * (or a point near none) is reported once as null and the selection ends. */
static void run_inspections(room_t *r)
{
    size_t n = 0;
    pthread_mutex_lock(&r->lock);
    if (r->n_selections)
        for (size_t s = 0; s < r->app->n_slots; s++)
            if (r->selections[s].client) r->inspecting[n++] = r->selections[s], r->inspecting[n - 1].slot = s;
    pthread_mutex_unlock(&r->lock);
    for (size_t k = 0; k < n; k++) {
        selection_t *sel = &r->inspecting[k];
        long i = sel->pick ? inspect_pick(&r->world, sel->x, sel->y, INSPECT_PICK_RADIUS)
                           : inspect_find(&r->world, sel->agent_id);
        inspect_t in;
        if (i >= 0) inspect_agent(&r->world, (size_t)i, &in);
        replies_push(&r->produced, sel->slot, sel->client, ROUTE_INSPECT, msg_inspect(r->world.tick, i >= 0 ? &in : NULL));
        /* The loop may have changed the selection meanwhile: then that stands. */
        pthread_mutex_lock(&r->lock);
        selection_t *shared = &r->selections[sel->slot];
        if (shared->client == sel->client && shared->pick == sel->pick && shared->x == sel->x && shared->y == sel->y &&
            shared->agent_id == sel->agent_id) {
            if (i < 0) {
                *shared = (selection_t){0};
                r->n_selections--;
            } else {
                shared->pick = false, shared->have_agent = true, shared->agent_id = in.id;
            }
        }
        pthread_mutex_unlock(&r->lock);
    }
}

/* Hands replies and the summary to the loop. */
static void publish(room_t *r)
{
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->produced.len; i++)
        replies_push(&r->outgoing, r->produced.items[i].slot, r->produced.items[i].to, r->produced.items[i].key,
                     r->produced.items[i].text);
    r->produced.len = 0; /* the texts moved */
    double rate = r->summary.ticks_per_s, slowest = r->summary.slowest_second;
    r->summary = (summary_t){world_info(&r->world), r->world.tick, r->world.n, r->world.seed, r->world.paused, r->last_tick_ns,
                             rate, slowest, r->counters};
    bool wake = r->outgoing.len;
    pthread_mutex_unlock(&r->lock);
    if (wake) uv_async_send(&r->wake_loop);
}

/* A run's room (room.c, run_into_past) steps its run into its past here,
 * at most half a period each tick, so that the room takes at most half a
 * core on the way and its viewers see the run go by fast; at the run's end
 * it waits, paused. Commands wait until then: the past is the run's. */
static void run_ahead(room_t *r)
{
    uint64_t until = now_ns() + r->period_ns / 2;
    do {
        world_step(&r->world);
        history_stepped(r->history, &r->world);
        past_metrics_stepped(r, &r->world);
    } while (r->world.tick < r->run_ahead_to && now_ns() < until);
    if (r->world.tick >= r->run_ahead_to) {
        r->run_ahead_to = 0;
        r->world.paused = true;
    }
}

/* Sleeps until the deadline (or a stop); returns false on stop. A resting
 * room (nobody watches) sleeps until someone comes: *woke is then set, and
 * the clock starts again from now rather than running the missed ticks. */
static bool sleep_until(room_t *r, uint64_t deadline_ns, bool *woke)
{
    struct timespec until = {(time_t)(deadline_ns / 1000000000ull), (long)(deadline_ns % 1000000000ull)};
    pthread_mutex_lock(&r->lock);
    *woke = false;
    for (;;) {
        if (r->stop) break;
        if (r->resting) {
            pthread_cond_wait(&r->stop_cond, &r->lock);
            *woke = true;
            continue;
        }
        if (pthread_cond_timedwait(&r->stop_cond, &r->lock, &until) == ETIMEDOUT) break;
    }
    bool go_on = !r->stop;
    pthread_mutex_unlock(&r->lock);
    return go_on;
}

/* Fixed-step clock: every due tick runs (commands, then one step while not
 * paused), up to MAX_CATCH_UP at once; when a snapshot's period has come the
 * world is handed to the encoder's copier, once whatever the number of
 * viewers, and left alone until the copy is done. */
void *sim_main(void *arg)
{
    room_t *r = arg;
    pthread_setname_np(pthread_self(), SIM_THREAD_NAME);
    if (r->history && !r->replaying && !r->whole_run)
        history_started(r->history, &r->world); /* a replay's past is its run; so is a run's room's */
    uint64_t next_due = now_ns() + r->period_ns;
    /* The tick rate, per whole second (healthz: each room's rate and its slowest second). */
    uint64_t second_start_ns = now_ns(), second_ticks = 0;
    bool woke;
    while (sleep_until(r, next_due, &woke)) {
        /* The last snapshot's copy ran while this thread slept: it must be
         * done before the commands change the world. */
        encoder_wait_copied(r->encoder);
        uint64_t now = now_ns();
        if (woke) {
            next_due = now; /* rested: no catching up on the ticks nobody missed */
            second_start_ns = now, second_ticks = 0;
        }
        bool snapshot_due = false, metrics_due = false;
        int ran_ticks = 0;
        for (int ran = 0; now >= next_due && ran < MAX_CATCH_UP; ran++) {
            bool running_ahead = r->run_ahead_to != 0;
            if (running_ahead) {
                run_ahead(r);
            } else {
                apply_commands(r);
                if (!r->world.paused) {
                    uint64_t began = now_ns();
                    world_step(&r->world);
                    ops_observe_step(&r->counters, (double)(now_ns() - began) / 1e9);
                    if (r->history) history_stepped(r->history, &r->world);
                }
            }
            r->counters.ticks++;
            ran_ticks++;
            r->last_tick_ns = now_ns();
            next_due += r->period_ns;
            r->snapshot_credit += r->cfg->snapshot_hz;
            if (r->snapshot_credit >= r->cfg->tick_hz) {
                r->snapshot_credit -= r->cfg->tick_hz;
                snapshot_due = true;
            }
            r->metrics_credit += r->cfg->metrics_hz;
            if (r->metrics_credit >= r->cfg->tick_hz) {
                r->metrics_credit -= r->cfg->tick_hz;
                metrics_due = !running_ahead; /* run_ahead keeps the run's own rows */
            }
            now = now_ns();
            if (running_ahead) {
                /* One slice a wake, then at least half a period asleep: a
                 * room behind its clock must not step its run flat out. */
                if (next_due < now + r->period_ns / 2) next_due = now + r->period_ns / 2;
                break;
            }
        }
        if (now >= next_due) {
            uint64_t behind = now - next_due, skipped = behind / r->period_ns + 1;
            r->counters.overruns += skipped;
            next_due = now + r->period_ns;
            if (now - r->last_overrun_log_ns > 1000000000ull) {
                fprintf(stderr, "swarmcast: tick overrun: %.1f ms behind, skipped %llu tick(s), %llu in all\n",
                        (double)behind / 1e6, (unsigned long long)skipped, (unsigned long long)r->counters.overruns);
                r->last_overrun_log_ns = now;
            }
        }
        second_ticks += (uint64_t)ran_ticks;
        if (now - second_start_ns >= 1000000000ull) {
            double rate = (double)second_ticks * 1e9 / (double)(now - second_start_ns);
            pthread_mutex_lock(&r->lock);
            r->summary.ticks_per_s = rate;
            if (r->summary.slowest_second == 0 || rate < r->summary.slowest_second) r->summary.slowest_second = rate;
            pthread_mutex_unlock(&r->lock);
            second_start_ns = now, second_ticks = 0;
        }
        if (metrics_due) broadcast_metrics(r);
        r->inspect_credit += (double)ran_ticks * INSPECT_HZ;
        if (r->inspect_credit >= r->cfg->tick_hz) {
            r->inspect_credit = 0;
            run_inspections(r);
        }
        if (snapshot_due) {
            if (encoder_submit(r->encoder, &r->world) == 0)
                r->counters.snapshots++;
            else
                fprintf(stderr, "swarmcast: out of memory for a copy of the world; snapshot not sent\n");
        }
        publish(r);
        capture_state(r, now);
        record_flush_due(r, now);
    }
    encoder_wait_copied(r->encoder); /* the world outlives no copy of it */
    return NULL;
}

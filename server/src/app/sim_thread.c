/* sim_thread: the simulation thread and its fixed-rate tick. It owns the
 * world once it runs: at each tick it takes the commands the loop queued
 * and the departures, applies them (the one point of the tick where the
 * world changes from outside) and steps; every snapshot period it hands a
 * copy of the world to the encoder, and after each round of ticks it hands
 * its replies and a summary to the loop (publish). It does no network I/O;
 * its disk I/O is the command log's buffered writes (command_log.c). */
/* pthread_setname_np: the simulation thread is named in top, perf and the tests. */
#define _GNU_SOURCE
#include <errno.h>
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

/* Applies one command and records it; with reply, queues the sender's (in
 * slot) ack
 * or error and, for a changed parameter, everyone's news. */
static void apply_one(app_t *a, const sim_cmd_t *cmd, size_t slot, bool reply)
{
    uint64_t tick = a->world.tick;
    sim_result_t res;
    sim_apply(&a->world, cmd, &res);
    record_command(a, tick, cmd);
    if (res.status == SIM_OK)
        a->counters.applied[cmd->kind]++;
    else
        ops_count_error(a->counters.errors, msg_error_code(res.status));
    if (!reply) return;
    if (res.status == SIM_OK && res.param >= 0)
        replies_push(&a->produced, 0, 0, LATEST_PARAM(res.param), param_news(&a->world, &res, cmd->client_id, tick));
    if (res.status == SIM_OK) replies_push(&a->produced, slot, cmd->client_id, ROUTE_ACTIVITY, activity_of(&a->world, cmd, &res));
    replies_push(&a->produced, slot, cmd->client_id, LATEST_NONE,
                 res.status == SIM_OK
                     ? msg_ack(cmd, &res, tick)
                     : msg_error(msg_error_code(res.status), res.message, cmd->request_id, cmd_name(cmd->kind)));
}

/* Applies every queued command, in arrival order, then the departures. */
static void apply_commands(app_t *a)
{
    pthread_mutex_lock(&a->lock);
    size_t n = a->q_len;
    for (size_t k = 0; k < n; k++) {
        queued_t q = a->queue[(a->q_head + k) % a->q_cap];
        a->pending[q.slot]--;
        a->taken[k] = q;
    }
    a->q_head = (a->q_head + n) % a->q_cap;
    a->q_len = 0;
    departures_t left = a->departed;
    a->departed = a->leaving; /* the emptied list of the last tick, for reuse */
    a->departed.len = 0;
    a->leaving = left;
    pthread_mutex_unlock(&a->lock);

    for (size_t k = 0; k < n; k++) apply_one(a, &a->taken[k].cmd, a->taken[k].slot, true);
    for (size_t k = 0; k < a->leaving.len; k++) {
        sim_cmd_t leave = {.kind = CMD_LEAVE, .client_id = a->leaving.ids[k], .request_id = -1};
        apply_one(a, &leave, 0, false);
    }
}

/* Queues a metrics message for everyone, unless the last one was too recent
 * for its cost. */
static void broadcast_metrics(app_t *a)
{
    uint64_t start = now_ns();
    if (start < a->metrics_not_before_ns) return;
    metrics_t m;
    metrics_config_t mc = metrics_default_config(&a->world);
    mc.max_pairs = METRICS_MAX_PAIRS;
    if (metrics_compute(&a->metrics, &a->world, &mc, &m) == 0) replies_push(&a->produced, 0, 0, LATEST_METRICS, msg_metrics(&m));
    uint64_t took = now_ns() - start;
    a->metrics_not_before_ns = start + (uint64_t)((double)took / METRICS_TIME_SHARE);
}

/* About INSPECT_HZ times a second: each selection's agent, to its client.
 * A point not yet resolved picks the nearest agent; an agent that is gone
 * (or a point near none) is reported once as null and the selection ends. */
static void run_inspections(app_t *a)
{
    size_t n = 0;
    pthread_mutex_lock(&a->lock);
    if (a->n_selections)
        for (size_t s = 0; s < a->n_slots; s++)
            if (a->selections[s].client) a->inspecting[n++] = a->selections[s], a->inspecting[n - 1].slot = s;
    pthread_mutex_unlock(&a->lock);
    for (size_t k = 0; k < n; k++) {
        selection_t *sel = &a->inspecting[k];
        long i = sel->pick ? inspect_pick(&a->world, sel->x, sel->y, INSPECT_PICK_RADIUS)
                           : inspect_find(&a->world, sel->agent_id);
        inspect_t in;
        if (i >= 0) inspect_agent(&a->world, (size_t)i, &in);
        replies_push(&a->produced, sel->slot, sel->client, ROUTE_INSPECT, msg_inspect(a->world.tick, i >= 0 ? &in : NULL));
        /* The loop may have changed the selection meanwhile: then that stands. */
        pthread_mutex_lock(&a->lock);
        selection_t *shared = &a->selections[sel->slot];
        if (shared->client == sel->client && shared->pick == sel->pick && shared->x == sel->x && shared->y == sel->y &&
            shared->agent_id == sel->agent_id) {
            if (i < 0) {
                *shared = (selection_t){0};
                a->n_selections--;
            } else {
                shared->pick = false, shared->have_agent = true, shared->agent_id = in.id;
            }
        }
        pthread_mutex_unlock(&a->lock);
    }
}

/* Hands replies and the summary to the loop. */
static void publish(app_t *a)
{
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->produced.len; i++)
        replies_push(&a->outgoing, a->produced.items[i].slot, a->produced.items[i].to, a->produced.items[i].key,
                     a->produced.items[i].text);
    a->produced.len = 0; /* the texts moved */
    a->summary = (summary_t){world_info(&a->world), a->world.tick, a->world.n, a->world.paused, a->last_tick_ns,
                             a->counters};
    bool wake = a->outgoing.len;
    pthread_mutex_unlock(&a->lock);
    if (wake) uv_async_send(&a->wake_loop);
}

/* Sleeps until the deadline (or a stop); returns false on stop. */
static bool sleep_until(app_t *a, uint64_t deadline_ns)
{
    struct timespec until = {(time_t)(deadline_ns / 1000000000ull), (long)(deadline_ns % 1000000000ull)};
    pthread_mutex_lock(&a->lock);
    while (!a->stop && pthread_cond_timedwait(&a->stop_cond, &a->lock, &until) != ETIMEDOUT) {
    }
    bool go_on = !a->stop;
    pthread_mutex_unlock(&a->lock);
    return go_on;
}

/* Fixed-step clock: every due tick runs (commands, then one step while not
 * paused), up to MAX_CATCH_UP at once; when a snapshot's period has come the
 * world is copied for the encoder worker, once whatever the number of viewers. */
void *sim_main(void *arg)
{
    app_t *a = arg;
    pthread_setname_np(pthread_self(), SIM_THREAD_NAME);
    uint64_t next_due = now_ns() + a->period_ns;
    while (sleep_until(a, next_due)) {
        uint64_t now = now_ns();
        bool snapshot_due = false, metrics_due = false;
        int ran_ticks = 0;
        for (int ran = 0; now >= next_due && ran < MAX_CATCH_UP; ran++) {
            apply_commands(a);
            if (!a->world.paused) {
                uint64_t began = now_ns();
                world_step(&a->world);
                ops_observe_step(&a->counters, (double)(now_ns() - began) / 1e9);
            }
            a->counters.ticks++;
            ran_ticks++;
            a->last_tick_ns = now_ns();
            next_due += a->period_ns;
            a->snapshot_credit += a->cfg.snapshot_hz;
            if (a->snapshot_credit >= a->cfg.tick_hz) {
                a->snapshot_credit -= a->cfg.tick_hz;
                snapshot_due = true;
            }
            a->metrics_credit += a->cfg.metrics_hz;
            if (a->metrics_credit >= a->cfg.tick_hz) {
                a->metrics_credit -= a->cfg.tick_hz;
                metrics_due = true;
            }
            now = now_ns();
        }
        if (now >= next_due) {
            uint64_t behind = now - next_due, skipped = behind / a->period_ns + 1;
            a->counters.overruns += skipped;
            next_due = now + a->period_ns;
            if (now - a->last_overrun_log_ns > 1000000000ull) {
                fprintf(stderr, "swarmcast: tick overrun: %.1f ms behind, skipped %llu tick(s), %llu in all\n",
                        (double)behind / 1e6, (unsigned long long)skipped, (unsigned long long)a->counters.overruns);
                a->last_overrun_log_ns = now;
            }
        }
        if (metrics_due) broadcast_metrics(a);
        a->inspect_credit += (double)ran_ticks * INSPECT_HZ;
        if (a->inspect_credit >= a->cfg.tick_hz) {
            a->inspect_credit = 0;
            run_inspections(a);
        }
        if (snapshot_due) {
            if (encoder_submit(a->encoder, &a->world) == 0)
                a->counters.snapshots++;
            else
                fprintf(stderr, "swarmcast: out of memory for a copy of the world; snapshot not sent\n");
        }
        publish(a);
        capture_state(a, now);
        record_flush_due(a, now);
    }
    return NULL;
}

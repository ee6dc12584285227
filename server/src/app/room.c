/* room: making a room's world and its parts, starting and stopping its
 * simulation thread, and freeing it (room.h says what a room holds). The
 * registry of rooms, their codes and lifecycle are rooms.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "replay_log.h"
#include "sim/params.h"
#include "world_setup.h"

/* A room's command queue starts with this many places and doubles when
 * full, up to every client's share (PENDING_PER_CLIENT each): the bound
 * is the same, and a room of a few people holds a few kB, not megabytes. */
#define ROOM_QUEUE_START 256

/* A target per viewer: net's, and the relays' with --nats (in any room). */
static size_t room_max_targets(const config_t *cfg)
{
    return cfg->max_clients + (cfg->nats_url ? cfg->max_remote_clients : 0);
}

/* The world from the flags alone: the seed's agents, then --set. A made
 * room has --room-agents of them (the default room --agents): the rooms
 * share one population budget. */
static int plain_world(room_t *r, char *msg, size_t msg_len)
{
    const config_t *cfg = r->cfg;
    const app_t *a = r->app;
    size_t agents = r == a->home ? cfg->agents : cfg->room_agents;
    world_config_t wc = {
        .width = cfg->world_width,
        .height = cfg->world_height,
        .dt = (float)(1.0 / cfg->tick_hz),
        .seed = cfg->seed,
        .agents = agents,
        .max_agents = cfg->max_agents > agents ? cfg->max_agents : agents,
        .max_targets = room_max_targets(cfg),
        .threads = cfg->threads,
    };
    if (world_init(&r->world, &wc)) {
        snprintf(msg, msg_len, "cannot create a world of %zu agents", agents);
        return -1;
    }
    char why[160];
    for (size_t i = 0; i < cfg->n_sets; i++)
        world_set_param(&r->world, (size_t)cfg->sets[i].param, cfg->sets[i].value, why, sizeof why);
    /* --set may change max_speed, which the initial speeds were drawn from. */
    if (cfg->n_sets) world_reset(&r->world, cfg->seed, agents);
    return 0;
}

/* A copy of another room's set-up, from the summary its simulation thread
 * last published: its model and every parameter (each species'), its
 * seed and population, the agents drawn afresh from that seed. Not its
 * obstacles or targets, which only its own thread may read. */
static int copied_world(room_t *r, const summary_t *from, char *msg, size_t msg_len)
{
    const config_t *cfg = r->cfg;
    world_config_t wc = {
        .width = from->info.width,
        .height = from->info.height,
        .dt = (float)(1.0 / cfg->tick_hz),
        .seed = from->seed,
        .agents = 0,
        .max_agents = cfg->max_agents,
        .max_targets = room_max_targets(cfg),
        .threads = cfg->threads,
    };
    if (world_init(&r->world, &wc)) {
        snprintf(msg, msg_len, "cannot create a world");
        return -1;
    }
    r->world.params = from->info.params;
    memcpy(r->world.species_params, from->info.species_params, sizeof r->world.species_params);
    if (world_reset(&r->world, from->seed, from->agents) != SIM_OK) {
        world_free(&r->world);
        snprintf(msg, msg_len, "cannot create a world of %zu agents", from->agents);
        return -1;
    }
    return 0;
}

/* --scenario (the default room), or a shipped scenario (a new room): the
 * world exactly as `--headless --scenario` builds it (world_setup.c), so
 * that with nobody steering it steps as that run did, tick for tick. */
static int scenario_world(room_t *r, const char *path, uint64_t *steps, char *msg, size_t msg_len)
{
    config_t cfg = *r->cfg;
    config_t resolved;
    cfg.scenario = path;
    if (r != r->app->home) {
        /* A room made from the page: the scenario decides, not the flags. */
        cfg.agents_given = cfg.seed_given = cfg.world_given = cfg.steps_given = false;
        cfg.n_sets = 0;
        if (world_setup_resolve(&cfg, &resolved, msg, msg_len)) return -1;
        cfg = resolved;
    }
    if (world_setup(&cfg, &r->world, steps, msg, msg_len)) return -1;
    return 0;
}

/* A run of a sweep opened in a room: its whole run goes into the room's
 * past, as a served --replay's does, and the room then waits at the run's
 * end, paused. The stepping is the room's own thread's (run_ahead in
 * sim_thread.c), paced: the loop that makes the room, and every other room,
 * must not wait for a run that anyone who may make a room can ask for. */
static int run_into_past(room_t *r, uint64_t steps, char *msg, size_t msg_len)
{
    r->whole_run = true;
    if (timeline_open(r, msg, msg_len)) {
        world_free(&r->world);
        timeline_destroy(r);
        return -1;
    }
    if (!r->history) { /* no past kept (--history-minutes 0): live from tick 0 */
        r->whole_run = false;
        return 0;
    }
    history_started(r->history, &r->world);
    /* The metrics on the way, as often as live viewers get them: the
     * plots of a viewer looking at the run's past give its values. */
    past_metrics_open(r, steps);
    past_metrics_stepped(r, &r->world);
    if (r->world.tick >= steps)
        r->world.paused = true;
    else
        r->run_ahead_to = steps;
    return 0;
}

/* A served --replay: the recording re-run (replay_log.c, as --headless
 * --replay runs it) with every tick going into the room's past, so that
 * the whole run is on the timeline; the room then shows its last tick,
 * paused, and takes no commands. */
static int replay_ready(void *user, world_t *w)
{
    (void)w;
    room_t *r = user;
    char msg[160];
    if (timeline_open(r, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return 1;
    }
    history_started(r->history, &r->world);
    past_metrics_open(r, UINT64_MAX); /* the whole recording: as many rows as a room keeps */
    past_metrics_stepped(r, &r->world);
    return 0;
}

static int replay_step(void *user, world_t *w)
{
    room_t *r = user;
    world_step(w);
    history_stepped(r->history, w);
    past_metrics_stepped(r, w);
    return 0;
}

static void replay_applied(void *user, uint64_t tick, const sim_cmd_t *cmd, const world_t *w)
{
    room_t *r = user;
    history_applied(r->history, tick, cmd, w);
}

static int replay_world(room_t *r, char *msg, size_t msg_len)
{
    const config_t *cfg = r->cfg;
    replay_hooks_t hooks = {.ready = replay_ready, .step = replay_step, .applied = replay_applied, .user = r};
    replay_result_t res;
    bool have_world;
    fprintf(stderr, "swarmcast: replaying %s into the timeline …\n", cfg->replay);
    int rc = replay_log_run(cfg->replay, cfg->threads, &r->world, &have_world, &hooks, &res);
    while (!rc && res.ended && r->world.tick < res.end_tick) rc = replay_step(r, &r->world);
    if (rc) {
        if (have_world) world_free(&r->world);
        timeline_destroy(r);
        snprintf(msg, msg_len, "cannot serve %s (above: why)", cfg->replay);
        return -1;
    }
    if (!res.ended)
        fprintf(stderr, "swarmcast: %s has no end_tick line (the server did not stop cleanly); served to tick %llu\n",
                cfg->replay, (unsigned long long)r->world.tick);
    history_stats_t h;
    history_get_stats(r->history, &h);
    fprintf(stderr, "swarmcast: %s: ticks %llu … %llu on the timeline (%zu keyframes, %.1f MiB), %llu commands\n",
            cfg->replay, (unsigned long long)h.from, (unsigned long long)h.to, h.keyframes, (double)h.bytes / 1048576.0,
            (unsigned long long)res.commands);
    r->world.paused = true;
    r->replaying = true;
    return 0;
}

room_t *room_create(app_t *a, size_t index, const room_setup_t *setup, char *msg, size_t msg_len)
{
    room_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(msg, msg_len, "out of memory");
        return NULL;
    }
    r->app = a;
    r->cfg = &a->cfg;
    r->index = index;
    if (index == 0) a->home = r; /* plain_world asks */
    const config_t *cfg = r->cfg;
    metrics_init(&r->metrics); /* before the world: a run or a recording stepped ahead computes its metrics */
    uint64_t run_steps = 0;
    int rc = setup->from == ROOM_FROM_REPLAY   ? replay_world(r, msg, msg_len)
             : setup->from == ROOM_FROM_SCENARIO ? scenario_world(r, setup->scenario_path, setup->whole_run ? &run_steps : NULL, msg, msg_len)
             : setup->from == ROOM_FROM_WORLD  ? copied_world(r, setup->copy, msg, msg_len)
                                               : plain_world(r, msg, msg_len);
    if (!rc && setup->whole_run) rc = run_into_past(r, run_steps, msg, msg_len);
    if (rc) {
        metrics_free(&r->metrics);
        metrics_past_destroy(r->metrics_past);
        free(r->past_metrics_sent);
        free(r);
        return NULL;
    }
    /* A scenario's world may have its own size: commands and views are
     * checked against this room's. */
    r->limits = (cmd_limits_t){r->world.width, r->world.height, cfg->max_agents};
    pthread_mutex_init(&r->state_write_lock, NULL);
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&r->stop_cond, &attr);
    pthread_condattr_destroy(&attr);

    /* Per-slot state: a session's slot is the same in every room. */
    size_t n_remote = cfg->nats_url ? cfg->max_remote_clients : 0;
    r->q_cap_max = cfg->max_clients * PENDING_PER_CLIENT + n_remote * PENDING_PER_REMOTE_SLOT;
    r->q_cap = r->taken_cap = r->q_cap_max < ROOM_QUEUE_START ? r->q_cap_max : ROOM_QUEUE_START;
    r->queue = calloc(r->q_cap, sizeof *r->queue);
    r->taken = calloc(r->taken_cap, sizeof *r->taken);
    r->slot_client = calloc(a->n_slots, sizeof *r->slot_client);
    r->pending = calloc(a->n_slots, sizeof *r->pending);
    r->selections = calloc(a->n_slots, sizeof *r->selections);
    r->inspecting = calloc(a->n_slots, sizeof *r->inspecting);
    r->presence = presence_new(a->n_slots);
    r->views = views_create(cfg->max_views);
    r->viewers = r->views ? viewers_create(cfg->max_clients + 1, r->views, r->world.width, r->world.height,
                                           (double)cfg->detail_budget)
                          : NULL;
    r->compose = compose_create(cfg->max_clients, net_headroom());
    if (!r->queue || !r->taken || !r->slot_client || !r->pending || !r->selections || !r->inspecting ||
        !r->presence || !r->views || !r->viewers || !r->compose) {
        snprintf(msg, msg_len, "out of memory for a room");
        room_free(r);
        return NULL;
    }
    if (timeline_open(r, msg, msg_len)) {
        room_free(r);
        return NULL;
    }
    if (!r->metrics_past) past_metrics_open(r, 0);
    r->started_ns = r->last_tick_ns = now_ns();
    r->period_ns = (uint64_t)(1e9 / cfg->tick_hz);
    r->summary = (summary_t){world_info(&r->world), r->world.tick, r->world.n, r->world.seed, r->world.paused, r->last_tick_ns, 0, 0, {0}};
    return r;
}

/* The encoder and the loop's wake-up: the room's handles on the loop. */
static int open_handles(room_t *r)
{
    uv_async_init(r->app->loop, &r->wake_loop, on_wake);
    r->wake_loop.data = r;
    r->handles_open = true;
    r->encoder = encoder_create(r->app->loop, net_headroom(), on_bundles, r);
    return r->encoder ? 0 : -1;
}

int room_start(room_t *r)
{
    if (open_handles(r)) return -1;
    r->state_due_ns = now_ns() + (uint64_t)(r->cfg->state_every_s * 1e9);
    r->record_flushed_ns = now_ns();
    r->summary = (summary_t){world_info(&r->world), r->world.tick, r->world.n, r->world.seed, r->world.paused, r->last_tick_ns, 0, 0, {0}};
    if (pthread_create(&r->sim_thread, NULL, sim_main, r)) return -1;
    r->sim_started = true;
    return 0;
}

void room_set_resting(room_t *r, bool resting)
{
    pthread_mutex_lock(&r->lock);
    r->resting = resting;
    pthread_cond_signal(&r->stop_cond);
    pthread_mutex_unlock(&r->lock);
}

void room_stop(room_t *r)
{
    pthread_mutex_lock(&r->lock);
    bool already = r->stop;
    r->stop = true;
    pthread_cond_signal(&r->stop_cond);
    pthread_mutex_unlock(&r->lock);
    if (already || !r->sim_started) return;
    pthread_join(r->sim_thread, NULL);
    r->sim_started = false;
}

void room_close_handles(room_t *r)
{
    if (!r->handles_open) return;
    r->handles_open = false;
    timeline_close(r);
    encoder_stop(r->encoder);
    uv_close((uv_handle_t *)&r->wake_loop, NULL);
}

void room_free(room_t *r)
{
    if (!r) return;
    timeline_destroy(r);
    metrics_past_destroy(r->metrics_past);
    free(r->past_metrics_sent);
    encoder_destroy(r->encoder);
    relay_leases_destroy(r->leases); /* they hold views of the registry below */
    bundle_free(r->current);
    shared_buf_unref(r->v1_frame);
    compose_destroy(r->compose);
    viewers_destroy(r->viewers);
    views_destroy(r->views);
    world_free(&r->world);
    free(r->queue);
    free(r->taken);
    free(r->departed.ids);
    free(r->leaving.ids);
    free(r->slot_client);
    free(r->pending);
    free(r->selections);
    free(r->inspecting);
    presence_free(r->presence);
    replies_clear(&r->produced);
    free(r->produced.items);
    replies_clear(&r->outgoing);
    free(r->outgoing.items);
    if (r->state_captured) state_image_free(r->state_captured);
    free(r->state_captured);
    metrics_free(&r->metrics);
    record_release(r);
    free(r->state_path_owned);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->stop_cond);
    pthread_mutex_destroy(&r->state_write_lock);
    free(r);
}

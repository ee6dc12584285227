/* app: the simulation host's wiring. It creates the parts (the world, the
 * per-slot state, net and its callbacks, the stream, the bridge with
 * --nats), starts the simulation thread, and at the end stops it, writes
 * what must outlive the run and shuts the parts down in order. What each
 * part does is in its own file of this folder (app_internal.h lists them);
 * how the two threads meet is described there too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_internal.h"
#include "net_config_for.h"
#include "persist/state_json.h"
#include "sim/capacity.h"
#include "sim/params.h"
#include "world_setup.h"

/* Frees the per-slot state and what the threads exchanged (app_create's
 * failure path and app_destroy). */
static void free_shared(app_t *a)
{
    free(a->queue);
    free(a->taken);
    free(a->departed.ids);
    free(a->leaving.ids);
    free(a->slot_client);
    free(a->pending);
    free(a->policy);
    free(a->selections);
    free(a->inspecting);
    presence_free(a->presence);
    a->presence = NULL;
    replies_clear(&a->produced);
    free(a->produced.items);
    replies_clear(&a->outgoing);
    free(a->outgoing.items);
    if (a->state_captured) state_image_free(a->state_captured);
    free(a->state_captured);
    a->state_captured = NULL;
    metrics_free(&a->metrics);
    record_release(a);
}

/* Without --max-agents: what this machine steps within half a tick in the
 * dearest crowd anyone could set up, and what the world's area holds (see
 * sim/capacity.h), so that no command can freeze the world. */
static size_t population_limit(const config_t *cfg)
{
    capacity_t cap;
    if (capacity_estimate(cfg->world_width, cfg->world_height, cfg->tick_hz, cfg->threads, cfg->max_clients, &cap)) {
        fprintf(stderr, "swarmcast: cannot calibrate the population limit; keeping %zu\n", cfg->max_agents);
        return cfg->max_agents;
    }
    char line[512];
    capacity_describe(&cap, line, sizeof line);
    fprintf(stderr, "swarmcast: %s (--max-agents overrides)\n", line);
    if (cfg->agents > cap.max_agents) {
        fprintf(stderr, "swarmcast: warning: --agents %zu is above that; the limit is raised to %zu, and a crowd "
                        "may overrun ticks\n", cfg->agents, cfg->agents);
        return cfg->agents;
    }
    return cap.max_agents;
}

/* The world from the flags alone: the seed's agents, then --set. */
static int plain_world(app_t *a)
{
    const config_t *cfg = &a->cfg;
    world_config_t wc = {
        .width = cfg->world_width,
        .height = cfg->world_height,
        .dt = (float)(1.0 / cfg->tick_hz),
        .seed = cfg->seed,
        .agents = cfg->agents,
        .max_agents = cfg->max_agents,
        .max_targets = cfg->max_clients + (cfg->nats_url ? cfg->max_remote_clients : 0),
        .threads = cfg->threads,
    };
    if (world_init(&a->world, &wc)) {
        fprintf(stderr, "swarmcast: cannot create a world of %zu agents\n", cfg->agents);
        return -1;
    }
    char msg[160];
    for (size_t i = 0; i < cfg->n_sets; i++)
        world_set_param(&a->world, (size_t)cfg->sets[i].param, cfg->sets[i].value, msg, sizeof msg);
    /* --set may change max_speed, which the initial speeds were drawn from. */
    if (cfg->n_sets) world_reset(&a->world, cfg->seed, cfg->agents);
    return 0;
}

/* --scenario: the world exactly as `--headless --scenario` builds it
 * (world_setup.c), so that with nobody steering it steps as that run did,
 * tick for tick. main.c has checked the file (world_setup_resolve) and put
 * its size, population and seed into the flags. It wins over a saved
 * --state-file at start (README, "Watching one run of a sweep"), which keeps
 * this world from then on. */
static int scenario_world(app_t *a)
{
    const config_t *cfg = &a->cfg;
    char msg[400];
    if (world_setup(cfg, &a->world, NULL, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return -1;
    }
    const char *model = params_desc((size_t)params_find("model"))->enum_names[a->world.params.model];
    fprintf(stderr, "swarmcast: serving scenario %s from tick 0 (model %s, %zu agents, %gx%g, seed %lu, %zu obstacles, "
                    "%zu targets; its \"steps\" end a headless run: this world runs until stopped)\n",
            cfg->scenario, model, a->world.n, (double)a->world.width, (double)a->world.height,
            (unsigned long)a->world.seed, a->world.n_obstacles, a->world.n_targets);
    if (cfg->state_file)
        fprintf(stderr, "swarmcast: --scenario replaces the set-up saved in %s, which keeps this world from now on\n",
                cfg->state_file);
    if (cfg->record)
        fprintf(stderr, "swarmcast: note: --record's header holds the scenario's parameters, seed and population, "
                        "not its obstacles, targets or agent_list: with any of them, a replay differs from this run\n");
    return 0;
}

app_t *app_create(uv_loop_t *loop, const config_t *cfg)
{
    app_t *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->loop = loop;
    a->cfg = *cfg;
    if (!cfg->max_agents_given) a->cfg.max_agents = population_limit(cfg);
    cfg = &a->cfg;
    if (cfg->scenario ? scenario_world(a) : plain_world(a)) {
        free(a);
        return NULL;
    }
    a->limits = (cmd_limits_t){cfg->world_width, cfg->world_height, cfg->max_agents};
    pthread_mutex_init(&a->state_write_lock, NULL);
    if (cfg->state_file && !cfg->scenario && restore_state(a)) goto fail;
    a->started_ns = a->last_tick_ns = now_ns();
    a->state_due_ns = a->started_ns + (uint64_t)(cfg->state_every_s * 1e9);
    a->summary = (summary_t){world_info(&a->world), a->world.tick, a->world.n, a->world.paused, a->last_tick_ns, {0}};
    metrics_init(&a->metrics);
    if (cfg->record && open_record(a)) goto fail;

    /* Per-slot state for net's slots and, with --nats, the remote ones. */
    size_t n_remote = cfg->nats_url ? cfg->max_remote_clients : 0;
    a->n_slots = cfg->max_clients + n_remote;
    a->q_cap = cfg->max_clients * PENDING_PER_CLIENT + n_remote * PENDING_PER_REMOTE_SLOT;
    a->queue = calloc(a->q_cap, sizeof *a->queue);
    a->taken = calloc(a->q_cap, sizeof *a->taken);
    a->slot_client = calloc(a->n_slots, sizeof *a->slot_client);
    a->pending = calloc(a->n_slots, sizeof *a->pending);
    a->policy = calloc(a->n_slots, sizeof *a->policy);
    a->selections = calloc(a->n_slots, sizeof *a->selections);
    a->inspecting = calloc(a->n_slots, sizeof *a->inspecting);
    a->presence = presence_new(a->n_slots);
    if (!a->queue || !a->taken || !a->slot_client || !a->pending || !a->policy || !a->selections || !a->inspecting ||
        !a->presence)
        goto fail;

    pthread_mutex_init(&a->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&a->stop_cond, &attr);
    pthread_condattr_destroy(&attr);

    net_config_t nc = net_config_for(cfg);
    /* A scenario's targets keep their ids (sorted): viewers are numbered
     * above them, so none moves one or, leaving, takes it away. */
    if (cfg->scenario && a->world.n_targets) nc.reserved_client_ids = a->world.targets[a->world.n_targets - 1].client_id;
    net_callbacks_t cb = {a, on_open, on_message, on_close, on_health, on_metrics, compose_v2};
    if (!(a->net = net_create(loop, &nc, &cb))) {
        fprintf(stderr, "swarmcast: cannot listen on %s:%d with web root %s\n", cfg->bind, cfg->port, cfg->web_root);
        goto fail_sync;
    }
    uv_async_init(loop, &a->wake_loop, on_wake);
    a->wake_loop.data = a;
    uv_timer_init(loop, &a->cursor_timer);
    a->cursor_timer.data = a;
    uv_timer_start(&a->cursor_timer, on_cursor_timer, (uint64_t)(1000 / INSPECT_HZ), (uint64_t)(1000 / INSPECT_HZ));
    a->views = views_create(cfg->max_views);
    a->viewers = a->views ? viewers_create(cfg->max_clients + 1, a->views, cfg->world_width, cfg->world_height,
                                           (double)cfg->detail_budget)
                          : NULL;
    a->compose = compose_create(cfg->max_clients, net_headroom());
    a->encoder = encoder_create(loop, net_headroom(), on_bundles, a);
    if (!a->views || !a->viewers || !a->compose || !a->encoder) {
        fprintf(stderr, "swarmcast: out of memory for the stream\n");
        exit(1);
    }

    if (cfg->nats_url && bridge_start(a) < 0) {
        /* Nothing but a bad option gets here (the server itself may come later). */
        fprintf(stderr, "swarmcast: cannot set up the NATS bridge\n");
        exit(1);
    }

    a->period_ns = (uint64_t)(1e9 / cfg->tick_hz);
    a->record_flushed_ns = a->started_ns;
    if (pthread_create(&a->sim_thread, NULL, sim_main, a)) {
        /* Nothing sensible can run without it, and the listener is open. */
        fprintf(stderr, "swarmcast: cannot start the simulation thread\n");
        exit(1);
    }
    return a;
fail_sync:
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->stop_cond);
fail:
    world_free(&a->world);
    free_shared(a);
    free(a);
    return NULL;
}

int app_port(const app_t *a) { return net_port(a->net); }
int app_metrics_port(const app_t *a) { return net_metrics_port(a->net); }

bool app_failed(const app_t *a) { return a->failed; }

void app_shutdown(app_t *a)
{
    pthread_mutex_lock(&a->lock);
    bool already = a->stop;
    a->stop = true;
    pthread_cond_signal(&a->stop_cond);
    pthread_mutex_unlock(&a->lock);
    if (already) return;
    pthread_join(a->sim_thread, NULL);
    /* The world is still now: the log's last line and the final state. */
    record_end(a);
    if (a->cfg.final_path && state_json_write_file(a->cfg.final_path, &a->world)) a->failed = true;
    if (a->cfg.state_file) write_final_state(a);
    encoder_stats_t es;
    encoder_get_stats(a->encoder, &es);
    encoder_stop(a->encoder);
    if (es.snapshots)
        fprintf(stderr, "swarmcast: encoder: %llu snapshots, %.3f ms mean, %.3f ms max per snapshot (all views), "
                        "%zu views at the end\n",
                (unsigned long long)es.snapshots, es.seconds_total / (double)es.snapshots * 1e3, es.seconds_max * 1e3,
                es.views);
    uv_close((uv_handle_t *)&a->wake_loop, NULL);
    uv_timer_stop(&a->cursor_timer);
    uv_close((uv_handle_t *)&a->cursor_timer, NULL);
    if (a->nats) {
        uv_timer_stop(&a->lease_timer);
        uv_close((uv_handle_t *)&a->lease_timer, NULL);
        nats_link_destroy(a->nats);
        a->nats = NULL; /* no more publishing from here on */
    }
    net_shutdown(a->net, NULL, NULL);
}

void app_destroy(app_t *a)
{
    if (!a) return;
    net_destroy(a->net);
    encoder_destroy(a->encoder);
    bundle_free(a->current);
    shared_buf_unref(a->v1_frame);
    compose_destroy(a->compose);
    viewers_destroy(a->viewers);
    relay_leases_destroy(a->leases);
    remote_clients_destroy(a->remote);
    free(a->remote_seen);
    free(a->census_ids);
    views_destroy(a->views);
    world_free(&a->world);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->stop_cond);
    pthread_mutex_destroy(&a->state_write_lock);
    free_shared(a);
    free(a);
}

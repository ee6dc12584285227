/* app: the simulation host's wiring. It creates the parts (the world, the
 * per-slot state, net and its callbacks, the stream, the bridge with
 * --nats), starts the simulation thread, and at the end stops it, writes
 * what must outlive the run and shuts the parts down in order. What each
 * part does is in its own file of this folder (app_internal.h lists them);
 * how the two threads meet is described there too. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "net_config_for.h"
#include "persist/state_json.h"
#include "sim/capacity.h"
#include "sim/params.h"
#include "world_setup.h"

/* Without --max-agents: what this machine steps within one period in the
 * dearest crowd anyone could set up (and within half a period in a normal
 * flock), and what the world's area holds (see sim/capacity.h), so that no
 * command can make a tick overrun by more than a period. */
static size_t population_limit(const config_t *cfg)
{
    capacity_t cap;
    if (capacity_estimate(cfg->world_width, cfg->world_height, cfg->tick_hz, cfg->threads, cfg->max_clients, &cap)) {
        fprintf(stderr, "swarmcast: cannot calibrate the population limit; keeping %zu\n", cfg->max_agents);
        return cfg->max_agents;
    }
    char line[700];
    capacity_describe(&cap, line, sizeof line);
    fprintf(stderr, "swarmcast: %s (--max-agents overrides)\n", line);
    if (cfg->agents > cap.max_agents) {
        fprintf(stderr, "swarmcast: warning: --agents %zu is above that; the limit is raised to %zu, and a crowd "
                        "may overrun ticks\n", cfg->agents, cfg->agents);
        return cfg->agents;
    }
    return cap.max_agents;
}

/* --scenario's world is reported at start, as the operator asked for it. */
static void describe_scenario(const app_t *a)
{
    const config_t *cfg = &a->cfg;
    const world_t *w = &a->home->world;
    const char *model = params_desc((size_t)params_find("model"))->enum_names[w->params.model];
    fprintf(stderr, "swarmcast: serving scenario %s from tick 0 (model %s, %zu agents, %gx%g, seed %lu, %zu obstacles, "
                    "%zu targets; its \"steps\" end a headless run: this world runs until stopped)\n",
            cfg->scenario, model, w->n, (double)w->width, (double)w->height, (unsigned long)w->seed, w->n_obstacles,
            w->n_targets);
    if (cfg->state_file)
        fprintf(stderr, "swarmcast: --scenario replaces the set-up saved in %s, which keeps this world from now on\n",
                cfg->state_file);
    if (cfg->record)
        fprintf(stderr, "swarmcast: note: --record's header holds the scenario's parameters, seed and population, "
                        "not its obstacles, targets or agent_list: with any of them, a replay differs from this run\n");
}

/* The default room: the world at / that the server had before rooms, with
 * --scenario, --state-file and --record. */
static room_t *home_room(app_t *a)
{
    const config_t *cfg = &a->cfg;
    char msg[400];
    room_setup_t setup = {cfg->replay ? ROOM_FROM_REPLAY : cfg->scenario ? ROOM_FROM_SCENARIO : ROOM_FROM_FLAGS, NULL,
                          cfg->scenario, false};
    room_t *r = room_create(a, 0, &setup, msg, sizeof msg);
    if (!r) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return NULL;
    }
    if (cfg->scenario) describe_scenario(a);
    r->state_path = cfg->state_file;
    if (!r->state_path && cfg->state_dir) {
        /* --state-dir keeps the default room's set-up too. */
        size_t len = strlen(cfg->state_dir) + sizeof "/default.state";
        if ((r->state_path_owned = malloc(len))) snprintf(r->state_path_owned, len, "%s/default.state", cfg->state_dir);
        r->state_path = r->state_path_owned;
    }
    r->record_path = cfg->record;
    if ((r->state_path && !cfg->scenario && restore_state(r)) || (cfg->record && open_record(r))) {
        room_free(r);
        a->home = NULL;
        return NULL;
    }
    r->summary = (summary_t){world_info(&r->world), r->world.tick, r->world.n, r->world.seed, r->world.paused,
                             r->last_tick_ns, 0, 0, {0}};
    /* The default room's population is the server's start: it may pass
     * the budget (a warning said so at calibration). */
    r->agents_held = r->world.n;
    atomic_fetch_add(&a->agents_held, r->agents_held);
    return r;
}

app_t *app_create(uv_loop_t *loop, const config_t *cfg)
{
    app_t *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->loop = loop;
    a->cfg = *cfg;
    if (!cfg->max_agents_given) a->cfg.max_agents = population_limit(cfg);
    cfg = &a->cfg;
    a->started_ns = now_ns();
    /* Per-slot state for net's slots and, with --nats, the remote ones. */
    size_t n_remote = cfg->nats_url ? cfg->max_remote_clients : 0;
    a->n_slots = cfg->max_clients + n_remote;
    a->policy = calloc(a->n_slots, sizeof *a->policy);
    if (!a->policy) {
        fprintf(stderr, "swarmcast: out of memory\n");
        goto fail;
    }
    if (rooms_init(a)) goto fail; /* it says why: memory, or a --state-dir it cannot use */
    a->rooms[0] = home_room(a);
    if (!a->rooms[0]) goto fail;

    net_config_t nc = net_config_for(cfg);
    /* Every room is a broadcast group of its own. */
    nc.channels = a->n_rooms_max;
    /* A scenario's targets keep their ids (sorted): viewers are numbered
     * above them, so none moves one or, leaving, takes it away. */
    if (cfg->scenario && a->home->world.n_targets)
        nc.reserved_client_ids = a->home->world.targets[a->home->world.n_targets - 1].client_id;
    net_callbacks_t cb = {a, on_open, on_message, on_close, on_health, on_metrics, compose_v2, rooms_known};
    if (!(a->net = net_create(loop, &nc, &cb))) {
        fprintf(stderr, "swarmcast: cannot listen on %s:%d with web root %s\n", cfg->bind, cfg->port, cfg->web_root);
        goto fail;
    }
    uv_timer_init(loop, &a->cursor_timer);
    a->cursor_timer.data = a;
    uv_timer_start(&a->cursor_timer, on_cursor_timer, (uint64_t)(1000 / INSPECT_HZ), (uint64_t)(1000 / INSPECT_HZ));

    if (cfg->nats_url && bridge_start(a) < 0) {
        /* Nothing but a bad option gets here (the server itself may come later). */
        fprintf(stderr, "swarmcast: cannot set up the NATS bridge\n");
        exit(1);
    }
    if (room_start(a->home)) {
        /* Nothing sensible can run without it, and the listener is open. */
        fprintf(stderr, "swarmcast: cannot start the simulation thread\n");
        exit(1);
    }
    rooms_start_timer(a);
    return a;
fail:
    if (a->home) room_free(a->home);
    rooms_destroy(a);
    free(a->policy);
    free(a);
    return NULL;
}

int app_port(const app_t *a) { return net_port(a->net); }
int app_metrics_port(const app_t *a) { return net_metrics_port(a->net); }

bool app_failed(const app_t *a) { return a->home->failed; }

void app_shutdown(app_t *a)
{
    room_t *home = a->home;
    pthread_mutex_lock(&home->lock);
    bool already = home->stop;
    pthread_mutex_unlock(&home->lock);
    if (already) return;
    room_stop(home);
    /* The world is still now: the log's last line and the final state. */
    record_end(home);
    if (a->cfg.final_path && state_json_write_file(a->cfg.final_path, &home->world)) home->failed = true;
    if (home->state_path) write_final_state(home);
    encoder_stats_t es;
    encoder_get_stats(home->encoder, &es);
    if (es.snapshots)
        fprintf(stderr, "swarmcast: encoder: %llu snapshots, %.3f ms mean, %.3f ms max per snapshot (all views), "
                        "%zu views at the end\n",
                (unsigned long long)es.snapshots, es.seconds_total / (double)es.snapshots * 1e3, es.seconds_max * 1e3,
                es.views);
    room_close_handles(home);
    rooms_shutdown(a);
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
    remote_clients_destroy(a->remote);
    room_free(a->home);
    a->rooms[0] = NULL;
    rooms_destroy(a);
    free(a->remote_seen);
    free(a->census_ids);
    free(a->remote_views);
    free(a->policy);
    free(a);
}

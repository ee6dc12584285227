/* health: the simulation host's answers to /healthz and /metrics (net
 * serves them on the loop thread): the summary the default room's
 * simulation thread last published (the figures the server had before
 * rooms), every room's line, the rooms' series, the loop's counters, the
 * stream's and, with --nats, the bridge's. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "stream/stream_metrics.h"

/* /healthz answers 503 when the simulation has run no tick for this long. */
#define STALLED_NS 2000000000ull

char *on_health(void *user, int *status)
{
    app_t *a = user;
    room_t *home = a->home;
    pthread_mutex_lock(&home->lock);
    summary_t s = home->summary;
    pthread_mutex_unlock(&home->lock);
    uint64_t now = now_ns();
    /* The default room never rests: its ticks say whether the server lives. */
    bool stalled = now - s.last_tick_ns > STALLED_NS;
    *status = stalled ? 503 : 200;
    size_t n = 0;
    room_info_t *list = rooms_info(a, &n);
    char *rooms = list ? rooms_json_array(list, n) : NULL;
    free(list);
    size_t cap = 512 + (rooms ? strlen(rooms) : 0);
    char *body = malloc(cap);
    if (body)
        snprintf(body, cap,
                 "{\"status\":\"%s\",\"tick\":%llu,\"agents\":%zu,\"max_agents\":%zu,\"clients\":%zu,\"paused\":%s,"
                 "\"tick_overruns\":%llu,\"seconds_since_last_tick\":%.3f,\"uptime_s\":%.1f,\"agents_all_rooms\":%zu,"
                 "\"rooms\":%s}",
                 stalled ? "stalled" : "ok", (unsigned long long)s.tick, s.agents, s.info.max_agents,
                 net_client_count(a->net), s.paused ? "true" : "false", (unsigned long long)s.counters.overruns,
                 (double)(now - s.last_tick_ns) / 1e9, (double)(now - a->started_ns) / 1e9,
                 (size_t)atomic_load(&a->agents_held), rooms ? rooms : "[]");
    free(rooms);
    return body;
}

/* The rooms' series: a fixed set whatever the number of rooms. */
static char *rooms_metrics_text(const app_t *a)
{
    size_t people = 0, resting = 0;
    for (size_t i = 0; i < a->n_rooms_max; i++) {
        const room_t *r = a->rooms[i];
        if (!r || r->closing) continue;
        people += r->people;
        resting += r->resting;
    }
    char *text = malloc(2048);
    if (!text) return NULL;
    snprintf(text, 2048,
             "# HELP swarmcast_rooms rooms open, the default one included\n# TYPE swarmcast_rooms gauge\nswarmcast_rooms %zu\n"
             "# HELP swarmcast_rooms_resting rooms nobody watches, not stepping\n# TYPE swarmcast_rooms_resting gauge\n"
             "swarmcast_rooms_resting %zu\n"
             "# HELP swarmcast_rooms_kept rooms closed and kept in --state-dir, which reopen by their code\n"
             "# TYPE swarmcast_rooms_kept gauge\nswarmcast_rooms_kept %zu\n"
             "# HELP swarmcast_rooms_created_total rooms made from the page or the protocol\n"
             "# TYPE swarmcast_rooms_created_total counter\nswarmcast_rooms_created_total %llu\n"
             "# HELP swarmcast_rooms_closed_total rooms closed (by their operators, or nobody came back)\n"
             "# TYPE swarmcast_rooms_closed_total counter\nswarmcast_rooms_closed_total %llu\n"
             "# HELP swarmcast_room_people sessions in all rooms\n# TYPE swarmcast_room_people gauge\nswarmcast_room_people %zu\n"
             "# HELP swarmcast_room_agents agents in all rooms (of the shared population budget, max_agents)\n"
             "# TYPE swarmcast_room_agents gauge\nswarmcast_room_agents %zu\n"
             "# HELP swarmcast_room_codes_wrong_total sessions that asked for a room code that does not exist\n"
             "# TYPE swarmcast_room_codes_wrong_total counter\nswarmcast_room_codes_wrong_total %llu\n"
             "# HELP swarmcast_room_codes_rate_limited_total room lookups refused unread: their address typed too many "
             "wrong codes\n# TYPE swarmcast_room_codes_rate_limited_total counter\nswarmcast_room_codes_rate_limited_total %llu\n",
             a->n_rooms + 1, resting, a->n_kept, (unsigned long long)a->rooms_created, (unsigned long long)a->rooms_closed, people,
             (size_t)atomic_load(&a->agents_held), (unsigned long long)a->room_codes_wrong,
             (unsigned long long)a->room_codes_throttled);
    return text;
}

char *on_metrics(void *user)
{
    app_t *a = user;
    room_t *home = a->home;
    pthread_mutex_lock(&home->lock);
    summary_t s = home->summary;
    pthread_mutex_unlock(&home->lock);
    uint64_t now = now_ns();
    ops_gauges_t g = {s.agents, s.info.max_agents, s.paused, s.tick, (double)(now - a->started_ns) / 1e9,
                      (double)(now - s.last_tick_ns) / 1e9};
    char *ops = ops_metrics_text(&s.counters, &a->loop_counters, &g);
    encoder_stats_t es;
    encoder_get_stats(home->encoder, &es);
    compose_stats_t cs;
    compose_get_stats(home->compose, &cs);
    stream_gauges_t sg = {views_count(home->views), net_protocol_count(a->net, 1), net_protocol_count(a->net, 2)};
    char *stream = stream_metrics_text(&es, &cs, &sg);
    char *rooms = rooms_metrics_text(a);
    char *timeline = timeline_metrics_text(a);
    char *bridge = a->nats ? bridge_metrics_text(a) : NULL;
    char *all = NULL;
    if (ops && stream && rooms && timeline &&
        (all = malloc(strlen(ops) + strlen(stream) + strlen(rooms) + strlen(timeline) + (bridge ? strlen(bridge) : 0) + 1))) {
        strcpy(all, ops);
        strcat(all, stream);
        strcat(all, rooms);
        strcat(all, timeline);
        if (bridge) strcat(all, bridge);
    }
    free(timeline);
    free(ops);
    free(stream);
    free(rooms);
    free(bridge);
    return all;
}

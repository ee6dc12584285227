/* health: the simulation host's answers to /healthz and /metrics (net
 * serves them on the loop thread): the summary the simulation thread last
 * published, the loop's counters, the stream's and, with --nats, the
 * bridge's. */
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
    pthread_mutex_lock(&a->lock);
    summary_t s = a->summary;
    pthread_mutex_unlock(&a->lock);
    uint64_t now = now_ns();
    bool stalled = now - s.last_tick_ns > STALLED_NS;
    *status = stalled ? 503 : 200;
    char *body = malloc(320);
    if (!body) return NULL;
    snprintf(body, 320,
             "{\"status\":\"%s\",\"tick\":%llu,\"agents\":%zu,\"max_agents\":%zu,\"clients\":%zu,\"paused\":%s,"
             "\"tick_overruns\":%llu,\"seconds_since_last_tick\":%.3f,\"uptime_s\":%.1f}",
             stalled ? "stalled" : "ok", (unsigned long long)s.tick, s.agents, s.info.max_agents,
             net_client_count(a->net), s.paused ? "true" : "false", (unsigned long long)s.counters.overruns,
             (double)(now - s.last_tick_ns) / 1e9, (double)(now - a->started_ns) / 1e9);
    return body;
}

char *on_metrics(void *user)
{
    app_t *a = user;
    pthread_mutex_lock(&a->lock);
    summary_t s = a->summary;
    pthread_mutex_unlock(&a->lock);
    uint64_t now = now_ns();
    ops_gauges_t g = {s.agents, s.info.max_agents, s.paused, s.tick, (double)(now - a->started_ns) / 1e9,
                      (double)(now - s.last_tick_ns) / 1e9};
    char *ops = ops_metrics_text(&s.counters, &a->loop_counters, &g);
    encoder_stats_t es;
    encoder_get_stats(a->encoder, &es);
    compose_stats_t cs;
    compose_get_stats(a->compose, &cs);
    stream_gauges_t sg = {views_count(a->views), net_protocol_count(a->net, 1), net_protocol_count(a->net, 2)};
    char *stream = stream_metrics_text(&es, &cs, &sg);
    char *bridge = a->nats ? bridge_metrics_text(a) : NULL;
    char *both = NULL;
    if (ops && stream && (both = malloc(strlen(ops) + strlen(stream) + (bridge ? strlen(bridge) : 0) + 1))) {
        strcpy(both, ops);
        strcat(both, stream);
        if (bridge) strcat(both, bridge);
    }
    free(ops);
    free(stream);
    free(bridge);
    return both;
}

/* relay_http_status: the relay's /healthz body (ok, restarting or
 * nats_disconnected, with its tag, viewers, views and the time since the
 * last snapshot and lease answer) and its part of /metrics (the NATS
 * link's series, then the relay's own); net serves them and adds its own
 * series. Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_out.h"
#include "relay/relay_internal.h"

static const char *health_state(const relay_t *r, uint64_t now)
{
    if (!r->link || !nats_link_connected(r->link)) return "nats_disconnected";
    if (!r->current || now - r->last_frame_ns > FRAME_SILENCE_NS) return "restarting";
    return "ok";
}

char *relay_on_health(void *user, int *status)
{
    relay_t *r = user;
    uint64_t now = now_ns();
    const char *state = health_state(r, now);
    *status = strcmp(state, "ok") == 0 ? 200 : 503;
    char *body = malloc(384);
    if (!body) return NULL;
    double since = r->current ? (double)(now - r->last_frame_ns) / 1e9 : -1;
    double since_lease = r->lease_answered_ns ? (double)(now - r->lease_answered_ns) / 1e9 : -1;
    snprintf(body, 384,
             "{\"status\":\"%s\",\"relay\":\"%s\",\"tag\":%u,\"clients\":%zu,\"views\":%zu,\"tick\":%u,"
             "\"seconds_since_frame\":%.3f,\"seconds_since_lease\":%.3f,\"uptime_s\":%.1f}",
             state, r->name, r->tag, net_client_count(r->net), r->views ? views_count(r->views) : 0, r->tick, since,
             since_lease, (double)(now - r->started_ns) / 1e9);
    return body;
}

static void metric(jbuf_t *b, const char *name, const char *type, const char *help, double value)
{
    jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.15g\n", name, help, name, type, name, value);
}

char *relay_on_metrics(void *user)
{
    relay_t *r = user;
    uint64_t now = now_ns();
    compose_stats_t cs;
    compose_get_stats(r->compose, &cs);
    jbuf_t b;
    jb_init_growing(&b);
    char *link = r->link ? nats_link_metrics_text(r->link) : NULL;
    if (link) jb_raw(&b, link);
    free(link);
    metric(&b, "swarmcast_relay_views", "gauge", "distinct views this relay's viewers watch",
           r->views ? (double)views_count(r->views) : 0);
    metric(&b, "swarmcast_relay_subjects", "gauge", "view subjects this relay listens to", (double)r->n_listening);
    metric(&b, "swarmcast_relay_frames_total", "counter", "snapshots received and passed on", (double)r->n.frames);
    metric(&b, "swarmcast_relay_seconds_since_frame", "gauge", "seconds since the last snapshot (-1: none yet)",
           r->current ? (double)(now - r->last_frame_ns) / 1e9 : -1);
    metric(&b, "swarmcast_relay_restarting", "gauge", "1 while the world-restarting banner is up", r->restarting);
    metric(&b, "swarmcast_relay_forwarded_total", "counter", "viewer messages forwarded to the simulation",
           (double)r->n.forwarded);
    metric(&b, "swarmcast_relay_answered_here_total", "counter", "viewer messages answered by the relay (auth, view, ping)",
           (double)r->n.answered_here);
    metric(&b, "swarmcast_relay_refused_here_total", "counter",
           "viewer messages refused by the relay (role, budget, invalid)", (double)r->n.refused_here);
    metric(&b, "swarmcast_relay_abuse_closes_total", "counter", "viewers closed for sending past their budget",
           (double)r->n.abuse_closes);
    metric(&b, "swarmcast_relay_leases_sent_total", "counter", "lease requests sent", (double)r->n.leases_sent);
    metric(&b, "swarmcast_relay_leases_answered_total", "counter", "lease answers received",
           (double)r->n.leases_answered);
    metric(&b, "swarmcast_relay_replays_total", "counter", "times the viewers were announced again (a restarted simulation, or its census)",
           (double)r->n.replays);
    metric(&b, "swarmcast_relay_bad_messages_total", "counter", "NATS messages that did not decode",
           (double)r->n.bad_messages);
    metric(&b, "swarmcast_v2_clients", "gauge", "connected swarmcast.v2 viewers", (double)net_protocol_count(r->net, 2));
    metric(&b, "swarmcast_compose_frames_total", "counter", "v2 frames composed", (double)cs.frames_composed);
    metric(&b, "swarmcast_compose_cache_hits_total", "counter", "v2 frames handed out again without composing",
           (double)cs.cache_hits);
    if (b.failed) {
        jb_free(&b);
        return NULL;
    }
    return b.buf;
}

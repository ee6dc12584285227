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

/* The default room's stream says whether the simulation is there. */
static const char *health_state(const relay_t *r, uint64_t now)
{
    const relay_room_t *home = r->rooms[0];
    if (!r->link || !nats_link_connected(r->link)) return "nats_disconnected";
    if (!home->current || now - home->last_frame_ns > FRAME_SILENCE_NS) return "restarting";
    return "ok";
}

typedef struct relay_totals {
    size_t rooms, views, listening;
    compose_stats_t compose;
} relay_totals_t;

/* Over the rooms served now. */
static relay_totals_t totals(const relay_t *r)
{
    relay_totals_t t = {0};
    for (size_t i = 0; i < r->n_rooms_max; i++) {
        const relay_room_t *room = r->rooms[i];
        if (!room) continue;
        compose_stats_t cs;
        compose_get_stats(room->compose, &cs);
        t.rooms++;
        t.views += room->views ? views_count(room->views) : 0;
        t.listening += room->n_listening;
        t.compose.frames_composed += cs.frames_composed;
        t.compose.cache_hits += cs.cache_hits;
    }
    return t;
}

char *relay_on_health(void *user, int *status)
{
    relay_t *r = user;
    uint64_t now = now_ns();
    const char *state = health_state(r, now);
    *status = strcmp(state, "ok") == 0 ? 200 : 503;
    char *body = malloc(384);
    if (!body) return NULL;
    const relay_room_t *home = r->rooms[0];
    relay_totals_t t = totals(r);
    double since = home->current ? (double)(now - home->last_frame_ns) / 1e9 : -1;
    double since_lease = home->lease_answered_ns ? (double)(now - home->lease_answered_ns) / 1e9 : -1;
    snprintf(body, 384,
             "{\"status\":\"%s\",\"relay\":\"%s\",\"tag\":%u,\"clients\":%zu,\"rooms\":%zu,\"views\":%zu,"
             "\"tick\":%u,\"seconds_since_frame\":%.3f,\"seconds_since_lease\":%.3f,\"uptime_s\":%.1f}",
             state, r->name, r->tag, net_client_count(r->net), t.rooms, t.views, home->tick, since, since_lease,
             (double)(now - r->started_ns) / 1e9);
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
    const relay_room_t *home = r->rooms[0];
    relay_totals_t t = totals(r);
    compose_stats_t cs = t.compose;
    jbuf_t b;
    jb_init_growing(&b);
    char *link = r->link ? nats_link_metrics_text(r->link) : NULL;
    if (link) jb_raw(&b, link);
    free(link);
    metric(&b, "swarmcast_relay_rooms", "gauge", "rooms this relay serves now (the default room and those with viewers here)",
           (double)t.rooms);
    metric(&b, "swarmcast_relay_rooms_opened_total", "counter", "rooms this relay began to serve",
           (double)r->n.rooms_opened);
    metric(&b, "swarmcast_relay_room_codes_wrong_total", "counter", "room codes asked for that are no room",
           (double)r->n.room_codes_wrong);
    metric(&b, "swarmcast_relay_views", "gauge", "distinct views this relay's viewers watch (all rooms)",
           (double)t.views);
    metric(&b, "swarmcast_relay_subjects", "gauge", "view subjects this relay listens to (all rooms)",
           (double)t.listening);
    metric(&b, "swarmcast_relay_frames_total", "counter", "snapshots received and passed on (all rooms)",
           (double)r->n.frames);
    metric(&b, "swarmcast_relay_seconds_since_frame", "gauge",
           "seconds since the default room's last snapshot (-1: none yet)",
           home->current ? (double)(now - home->last_frame_ns) / 1e9 : -1);
    metric(&b, "swarmcast_relay_restarting", "gauge", "1 while the default room's world-restarting banner is up",
           home->restarting);
    metric(&b, "swarmcast_relay_forwarded_total", "counter", "viewer messages forwarded to the simulation",
           (double)r->n.forwarded);
    metric(&b, "swarmcast_relay_timeline_forwarded_total", "counter",
           "viewer timeline messages forwarded to the simulation (which keeps the past)", (double)r->n.timeline_forwarded);
    metric(&b, "swarmcast_relay_past_frames_total", "counter", "frames of the past passed on to scrubbing viewers",
           (double)r->n.past_frames);
    metric(&b, "swarmcast_relay_scrubbing", "gauge", "viewers looking at the past", (double)r->n_scrubbing);
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

/* relay: `swarmcast relay` wired together (relay.h says what it is): it
 * creates the relay's parts, connects them (net's callbacks to
 * relay_viewers.c and relay_http_status.c, the NATS subjects to
 * relay_feed.c and relay_upstream.c), runs its clock (the lease each
 * second, the world-restarting banner, the viewers' views) and shuts them
 * down in order. Loop thread only. */
#include "relay/relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net_config_for.h"
#include "relay/relay_internal.h"
#include "rooms/room_guard.h"

/* Leases are renewed this often (the simulation forgets a relay after 5 s
 * without one), and sent at most this soon after the views changed. */
#define LEASE_EVERY_NS 1000000000ull
#define TIMER_MS 100
/* While restarting, the banner is sent again this often, so that pages whose
 * watchdog waits for any message keep the connection. */
#define STATUS_REPEAT_NS 2000000000ull

/* ---- the clock ------------------------------------------------------------ */

/* One room's round: its lease, its banner, its viewers' views. */
static void room_timer(relay_t *r, relay_room_t *room, bool connected, uint64_t now)
{
    if (connected && (room->lease_due || now - room->lease_sent_ns >= LEASE_EVERY_NS)) relay_send_lease(r, room);
    bool silent = !connected || now - room->last_frame_ns > FRAME_SILENCE_NS;
    if (silent && room->sim_hello) {
        if (!room->restarting) {
            fprintf(stderr, "swarmcast: relay: %s%s%s; viewers see \"world restarting\"\n",
                    connected ? "no snapshot for 2 s" : "NATS disconnected", room->code[0] ? " in room " : "",
                    room->code);
            r->replay_due = true;
            relay_show_status(room, true);
        } else if (now - room->status_sent_ns >= STATUS_REPEAT_NS) {
            relay_show_status(room, true);
        }
    }
    if (room->viewers) viewers_poll(room->viewers, now);
    if (room->views && views_changed(room->views)) room->lease_due = true;
    relay_share_tell_late(r, room);
}

static void on_timer(uv_timer_t *t)
{
    relay_t *r = t->data;
    uint64_t now = now_ns();
    bool connected = nats_link_connected(r->link);
    for (size_t i = 0; i < r->n_rooms_max; i++)
        if (r->rooms[i]) room_timer(r, r->rooms[i], connected, now);
    relay_rooms_tick(r, now);
}

/* ---- life cycle ------------------------------------------------------------ */

/* The default room's stream and our tag's replies. */
static int subscribe_fixed(relay_t *r)
{
    if (!relay_room_create(r, 0, "")) return -1;
    return relay_listen_for_replies(r);
}

relay_t *relay_create(uv_loop_t *loop, const config_t *cfg)
{
    relay_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->loop = loop;
    r->cfg = *cfg;
    cfg = &r->cfg;
    r->started_ns = now_ns();
    r->tag = cfg->relay_tag ? cfg->relay_tag : relay_random_tag();
    uint64_t t = now_ns();
    r->instance = (uint32_t)(t ^ (t >> 32) ^ (uint64_t)getpid() * 40503u);
    if (cfg->relay_name)
        snprintf(r->name, sizeof r->name, "%s", cfg->relay_name);
    else
        snprintf(r->name, sizeof r->name, "relay-%u", r->tag);
    r->clients = calloc(cfg->max_clients, sizeof *r->clients);
    r->policy = calloc(cfg->max_clients, sizeof *r->policy);
    r->by_id = client_slots_create(cfg->max_clients);
    /* A relay serves as many rooms at once as the simulation may hold. */
    r->n_rooms_max = cfg->max_rooms + 1;
    r->rooms = calloc(r->n_rooms_max, sizeof *r->rooms);
    room_guard_config_t gc = room_guard_defaults();
    r->guard = room_guard_create(&gc);
    if (!r->clients || !r->policy || !r->by_id || !r->rooms || !r->guard) {
        fprintf(stderr, "swarmcast: out of memory for the relay\n");
        goto fail;
    }
    nats_link_config_t lc = {.urls = cfg->nats_url,
                             .name = r->name,
                             .user = cfg->nats_user,
                             .password = cfg->nats_password,
                             .creds_file = cfg->nats_creds,
                             .nkey_seed_file = cfg->nats_nkey_seed};
    if (!(r->link = nats_link_create(loop, &lc, relay_on_nats_state, r))) goto fail;
    if (subscribe_fixed(r)) {
        fprintf(stderr, "swarmcast: relay: cannot subscribe to the simulation's subjects (prefix %s)\n",
                cfg->nats_prefix);
        goto fail;
    }
    net_config_t nc = net_config_for(cfg);
    nc.channels = r->n_rooms_max;
    net_callbacks_t cb = {r, relay_on_open, relay_on_message, relay_on_close, relay_on_health, relay_on_metrics, relay_compose_v2,
                          relay_room_known};
    if (!(r->net = net_create(loop, &nc, &cb))) {
        fprintf(stderr, "swarmcast: cannot listen on %s:%d with web root %s\n", cfg->bind, cfg->port, cfg->web_root);
        goto fail;
    }
    uv_timer_init(loop, &r->timer);
    r->timer.data = r;
    uv_timer_start(&r->timer, on_timer, TIMER_MS, TIMER_MS);
    fprintf(stderr, "swarmcast: relay %s (tag %u) on NATS %s, prefix %s\n", r->name, r->tag, cfg->nats_url,
            cfg->nats_prefix);
    return r;
fail:
    relay_destroy(r);
    return NULL;
}

int relay_port(const relay_t *r) { return net_port(r->net); }
int relay_metrics_port(const relay_t *r) { return net_metrics_port(r->net); }

/* The viewers are gone (or the grace period is over): NATS goes last,
 * because closing it may block the loop for a moment (libnats joins its
 * threads), which would eat the viewers' grace period. */
static void on_net_closed(void *arg)
{
    relay_t *r = arg;
    nats_link_destroy(r->link);
    r->link = NULL;
}

void relay_shutdown(relay_t *r)
{
    if (r->shut_down) return;
    r->shut_down = true;
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, NULL);
    /* The simulation hears of every viewer's leaving now rather than when
     * the lease runs out (5 s). */
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id && !r->clients[s].waiting) relay_send_envelope(r, BRIDGE_CLOSE, s, NULL, 0);
    net_shutdown(r->net, on_net_closed, r);
}

void relay_destroy(relay_t *r)
{
    if (!r) return;
    if (r->link) nats_link_destroy(r->link);
    r->link = NULL;
    net_destroy(r->net);
    r->net = NULL;
    for (size_t i = 0; r->rooms && i < r->n_rooms_max; i++) relay_room_destroy(r, r->rooms[i]);
    free(r->rooms);
    room_guard_destroy(r->guard);
    client_slots_destroy(r->by_id);
    for (size_t s = 0; r->clients && s < r->cfg.max_clients; s++) {
        free(r->clients[s].hello_text);
        relay_scrub_left(r, s);
    }
    free(r->clients);
    free(r->policy);
    free(r);
}

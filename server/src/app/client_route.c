/* client_route: every message to a client goes by its slot (loop thread).
 * Slots [0, max_clients) are net's, and their messages go to net; slots
 * past them (--nats) are relays' viewers, and theirs go to the viewer's
 * relay in an envelope (relay_bridge.c). News for everyone goes to the
 * room's viewers in this process and to the relays that lease the room. */
#include <stdlib.h>

#include "app_internal.h"

bool is_remote(const app_t *a, size_t slot) { return slot >= a->cfg.max_clients; }

/* Whether the remote slot still holds client_id (as net_send ignores a
 * slot that now holds another client). */
static bool remote_holds(const app_t *a, size_t slot, uint32_t client_id)
{
    return a->remote && remote_clients_id(a->remote, slot - a->cfg.max_clients) == client_id;
}

void client_send(app_t *a, size_t slot, uint32_t client_id, const char *text)
{
    if (!is_remote(a, slot))
        net_send(a->net, slot, client_id, text);
    else if (remote_holds(a, slot, client_id))
        send_envelope(a, client_id, BRIDGE_REPLY, 0, text);
}

size_t client_backlog(const app_t *a, size_t slot, uint32_t client_id)
{
    /* A relay's viewer's backlog is the relay's business (its own net). */
    return is_remote(a, slot) ? 0 : net_backlog(a->net, slot, client_id);
}

void client_close(app_t *a, size_t slot, uint32_t client_id, int code, const char *reason)
{
    if (!is_remote(a, slot)) {
        net_close(a->net, slot, client_id, code, reason);
    } else if (remote_holds(a, slot, client_id)) {
        send_envelope(a, client_id, BRIDGE_KICK, (uint16_t)code, reason);
        remote_close(a, slot, client_id); /* gone here now; the relay's CLOSE that follows finds nothing */
    }
}

/* News for everyone in a room: its viewers on this process and the
 * relays' that lease the room (S.news under the room's stream prefix). */
void send_latest(room_t *r, unsigned key, const char *text)
{
    app_t *a = r->app;
    net_send_latest(a->net, r->index, key, text);
    if (!bridge_publishing(r) || !nats_link_connected(a->nats)) return;
    size_t len;
    uint8_t *msg = bridge_news_encode((uint16_t)key, text, &len);
    if (msg) nats_link_publish(a->nats, r->subject_news, NULL, msg, len);
    free(msg);
}

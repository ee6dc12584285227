/* relay_timeline: the timeline for a relay's viewers, on the simulation's
 * side (PROTOCOL.md, "Timeline" and "NATS subjects"). The past is kept
 * here, once per room (docs/ARCHITECTURE.md, "The timeline through
 * relays"): a relay's viewer takes one of the room's seats like a viewer
 * of this process, through its remote slot, with the same limits and
 * refusals. What differs is only where its frames go and which view they
 * show:
 *  - its view is the relay's (the relay answers view messages itself), told
 *    with each timeline message and when it changes (SCRUB_VIEW);
 *  - its frames of the past go to its relay in PAST envelopes, an empty
 *    one first when it takes a seat (its relay holds back the live frames
 *    from then on), and LIVE sends it back to the live stream;
 *  - one relay holds at most half the seats (rounded up), so that the
 *    viewers of one relay cannot keep everyone else from the past.
 * Loop thread. */
#include <stdlib.h>

#include "app_internal.h"

/* The seats one relay's viewers may hold together, of the server's. */
static size_t relay_seat_share(size_t seats) { return seats > 1 ? (seats + 1) / 2 : seats; }

int bridge_timeline_start(app_t *a)
{
    size_t n = a->cfg.max_remote_clients ? a->cfg.max_remote_clients : 1;
    a->remote_views = calloc(n, sizeof *a->remote_views);
    return a->remote_views ? 0 : -1;
}

void bridge_timeline_forget(app_t *a, size_t index)
{
    if (a->remote_views) a->remote_views[index] = (remote_view_t){0};
}

void bridge_scrub_view_set(app_t *a, size_t index, const bridge_envelope_t *e)
{
    wire2_mode_t mode;
    wire2_rect_t rect;
    if (bridge_scrub_view_decode(e->text, &mode, &rect) < 0) {
        a->bridge_refused++;
        return;
    }
    a->remote_views[index] = (remote_view_t){.known = true, .mode = mode, .rect = rect};
}

bool bridge_scrub_view(const app_t *a, size_t slot, wire2_rect_t *rect, wire2_mode_t *mode)
{
    long index = is_remote(a, slot) && a->remote_views ? (long)(slot - a->cfg.max_clients) : -1;
    if (index < 0 || !a->remote_views[index].known) return false;
    *rect = a->remote_views[index].rect;
    *mode = a->remote_views[index].mode;
    return true;
}

bool bridge_seat_fair(const app_t *a, size_t slot)
{
    if (!is_remote(a, slot) || !a->remote) return true;
    unsigned tag = remote_tag_of(remote_clients_id(a->remote, slot - a->cfg.max_clients));
    size_t held = 0;
    for (size_t s = a->cfg.max_clients; s < a->n_slots; s++) {
        const room_t *r = a->slot_room[s];
        if (!r || !r->slot_seat || r->slot_seat[s] < 0) continue;
        if (remote_tag_of(remote_clients_id(a->remote, s - a->cfg.max_clients)) == tag) held++;
    }
    return held < relay_seat_share(a->cfg.timeline_seats);
}

void bridge_send_past(app_t *a, size_t slot, uint32_t client_id, const shared_buf_t *frame)
{
    if (!is_remote(a, slot) || remote_clients_id(a->remote, slot - a->cfg.max_clients) != client_id) return;
    send_envelope_bytes(a, client_id, BRIDGE_PAST, 0, frame ? shared_buf_data(frame) : NULL, frame ? frame->len : 0);
    a->bridge_past_frames += frame != NULL;
}

void bridge_send_live(app_t *a, size_t slot, uint32_t client_id)
{
    if (!is_remote(a, slot) || remote_clients_id(a->remote, slot - a->cfg.max_clients) != client_id) return;
    send_envelope_bytes(a, client_id, BRIDGE_LIVE, 0, NULL, 0);
}

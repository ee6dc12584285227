/* relay_scrub: the relay's viewers who look at the past (PROTOCOL.md,
 * "Timeline"; docs/ARCHITECTURE.md, "The timeline through relays"). The
 * past is kept by the simulation; the relay passes on:
 *  - up, each timeline message as the viewer's TEXT, after the view it
 *    watches (SCRUB_VIEW: the relay answers view messages itself, so the
 *    simulation knows it only from this), and that view again when it
 *    changes while the viewer scrubs (the same moment in the new view);
 *  - down, the PAST envelopes: from the first (empty: a seat taken) the
 *    viewer gets no live frame, and each frame of the past in one;
 *    LIVE sends it back to the live stream, whose next frame for it is
 *    a key with the scene (its decoder holds the past's).
 * Loop thread only. */
#include <stdlib.h>
#include <string.h>

#include "relay/relay_internal.h"

static void stop(relay_t *r, relay_client_t *c)
{
    if (c->scrubbing) r->n_scrubbing--;
    c->scrubbing = false;
    c->scrub_view_known = false;
    shared_buf_unref(c->past_next);
    shared_buf_unref(c->past_sent);
    c->past_next = c->past_sent = NULL;
}

/* The view the viewer watches here, as the simulation takes it; false
 * when it has none yet. */
static bool view_of(const relay_t *r, size_t slot, wire2_mode_t *mode, wire2_rect_t *rect)
{
    const relay_room_t *room = relay_room_of(r, slot);
    view_spec_t spec;
    viewer_view_t v = room->viewers ? viewers_view_of(room->viewers, slot) : (viewer_view_t){0};
    if (!v.view_id || !views_spec_of(room->views, v.view_id, &spec)) return false;
    *mode = spec.mode;
    *rect = spec.rect;
    return true;
}

static void send_view(relay_t *r, size_t slot, wire2_mode_t mode, wire2_rect_t rect)
{
    relay_client_t *c = &r->clients[slot];
    uint8_t text[BRIDGE_SCRUB_VIEW_BYTES];
    bridge_scrub_view_encode(mode, rect, text);
    relay_send_envelope(r, BRIDGE_SCRUB_VIEW, slot, (const char *)text, sizeof text);
    c->scrub_view_known = true;
    c->scrub_mode = mode;
    c->scrub_rect = rect;
}

void relay_scrub_forward(relay_t *r, size_t slot, const char *data, size_t len)
{
    wire2_mode_t mode;
    wire2_rect_t rect;
    if (view_of(r, slot, &mode, &rect)) send_view(r, slot, mode, rect);
    r->n.forwarded++;
    r->n.timeline_forwarded++;
    relay_send_envelope(r, BRIDGE_TEXT, slot, data, len);
}

void relay_scrub_follow_views(relay_t *r, const relay_room_t *room)
{
    if (!r->n_scrubbing) return;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        const relay_client_t *c = &r->clients[s];
        wire2_mode_t mode;
        wire2_rect_t rect;
        if (!c->net_id || !c->scrubbing || c->room != room->index || !view_of(r, s, &mode, &rect)) continue;
        if (c->scrub_view_known && mode == c->scrub_mode && wire2_rect_equal(rect, c->scrub_rect)) continue;
        send_view(r, s, mode, rect);
    }
}

void relay_scrub_past(relay_t *r, size_t slot, const uint8_t *frame, size_t len)
{
    relay_client_t *c = &r->clients[slot];
    if (!c->scrubbing) r->n_scrubbing++;
    c->scrubbing = true;
    if (len) {
        shared_buf_t *b = shared_buf_new(net_headroom(), len);
        if (!b) return; /* this frame is lost; the next one replaces it */
        memcpy(shared_buf_data(b), frame, len);
        shared_buf_unref(c->past_next);
        c->past_next = b;
        r->n.past_frames++;
    }
    net_wake_v2(r->net, slot, c->net_id);
}

void relay_scrub_live(relay_t *r, size_t slot)
{
    relay_client_t *c = &r->clients[slot];
    bool was = c->scrubbing;
    stop(r, c);
    if (!was) return;
    relay_room_t *room = relay_room_of(r, slot);
    if (room->compose) compose_forget(room->compose, slot);
    net_wake_v2(r->net, slot, c->net_id);
}

void relay_scrub_all_live(relay_t *r)
{
    for (size_t s = 0; s < r->cfg.max_clients && r->n_scrubbing; s++)
        if (r->clients[s].net_id && r->clients[s].scrubbing) relay_scrub_live(r, s);
}

void relay_scrub_left(relay_t *r, size_t slot) { stop(r, &r->clients[slot]); }

int relay_scrub_compose(relay_t *r, size_t slot, const uint8_t **data, size_t *len)
{
    relay_client_t *c = &r->clients[slot];
    if (!c->scrubbing) return -1;
    if (!c->past_next) return 0;
    shared_buf_unref(c->past_sent); /* net is done with it: a new compose */
    c->past_sent = c->past_next;
    c->past_next = NULL;
    *data = shared_buf_data(c->past_sent);
    *len = c->past_sent->len;
    return 1;
}

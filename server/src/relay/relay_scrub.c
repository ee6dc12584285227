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
 *    a key with the scene (its decoder holds the past's);
 *  - an operator's share, once per frame for the room (S.shared): every
 *    viewer of the room who watches live when it begins follows it (as on
 *    the simulation), until it ends, or the viewer leaves it with `live`
 *    (LIVE) or takes a seat of its own (PAST).
 * Loop thread only. */
#include <stdlib.h>
#include <string.h>

#include "relay/relay_internal.h"

static void stop(relay_t *r, relay_client_t *c)
{
    if (c->scrubbing) r->n_scrubbing--;
    c->scrubbing = false;
    c->following = false;
    c->share_untold = false;
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
    c->following = c->share_untold = false; /* a seat of its own */
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
    bool was = c->scrubbing || c->following;
    stop(r, c);
    if (!was) return;
    relay_room_t *room = relay_room_of(r, slot);
    if (room->compose) compose_forget(room->compose, slot);
    net_wake_v2(r->net, slot, c->net_id);
}

void relay_scrub_all_live(relay_t *r)
{
    static const char live[] = "{\"type\":\"timeline\",\"op\":\"live\"}";
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        const relay_client_t *c = &r->clients[s];
        if (!c->net_id || (!c->scrubbing && !c->following)) continue;
        /* A simulation that only lost touch for a while may still hold
         * the seat: it is told, and frees it (its answer tells the viewer). */
        if (c->scrubbing) relay_send_envelope(r, BRIDGE_TEXT, s, live, sizeof live - 1);
        relay_scrub_live(r, s);
    }
    /* A share's end may never come (a restarted simulation numbers its
     * shares from 1 again, and a lost message is lost): newcomers must
     * not follow a share nobody ends. */
    for (size_t i = 0; i < r->n_rooms_max; i++)
        if (r->rooms[i]) relay_share_forget(r->rooms[i]);
}

void relay_scrub_left(relay_t *r, size_t slot) { stop(r, &r->clients[slot]); }

int relay_scrub_compose(relay_t *r, size_t slot, const uint8_t **data, size_t *len)
{
    relay_client_t *c = &r->clients[slot];
    if (c->following) {
        const relay_room_t *room = relay_room_of(r, slot);
        if (!room->shared_frame || c->shared_sent == room->shared_seq) return 0;
        c->shared_sent = room->shared_seq;
        *data = shared_buf_data(room->shared_frame);
        *len = room->shared_frame->len;
        return 1;
    }
    if (!c->scrubbing) return -1;
    if (!c->past_next) return 0;
    shared_buf_unref(c->past_sent); /* net is done with it: a new compose */
    c->past_sent = c->past_next;
    c->past_next = NULL;
    *data = shared_buf_data(c->past_sent);
    *len = c->past_sent->len;
    return 1;
}

/* ---- an operator's share ------------------------------------------------ */

static void tell(relay_t *r, size_t slot, bridge_bytes_t text)
{
    char *copy = malloc(text.len + 1);
    if (!copy) return;
    if (text.len) memcpy(copy, text.data, text.len);
    copy[text.len] = '\0';
    net_send(r->net, slot, r->clients[slot].net_id, copy);
    free(copy);
}

/* The share ended: its followers back to live, told why. */
static void share_ended(relay_t *r, relay_room_t *room, bridge_bytes_t text)
{
    relay_share_forget(room);
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || !c->following || c->room != room->index) continue;
        bool told = !c->share_untold;
        relay_scrub_live(r, s);
        if (text.present && told) tell(r, s, text);
    }
}

/* A new share: everyone of the room watching live follows it, told so. */
static void share_began(relay_t *r, relay_room_t *room, uint32_t id, bridge_bytes_t text)
{
    room->sharing = true;
    room->share_id = id;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || c->waiting || c->scrubbing || c->following || c->room != room->index) continue;
        c->following = true;
        c->shared_sent = room->shared_seq;
        tell(r, s, text);
    }
}

void relay_on_shared(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    relay_room_t *room = user;
    relay_t *r = room->relay;
    (void)subject, (void)reply;
    bridge_shared_t m;
    if (bridge_shared_decode(data, len, &m)) {
        r->n.bad_messages++;
        return;
    }
    if (!room->viewers) return; /* no hello yet: nobody here watches */
    if (!m.frame.present) {
        if (room->sharing && m.share_id == room->share_id) share_ended(r, room, m.text);
        return;
    }
    if (room->sharing && m.share_id != room->share_id) share_ended(r, room, (bridge_bytes_t){0}); /* its end was lost */
    shared_buf_t *b = shared_buf_new(net_headroom(), m.frame.len);
    if (!b) return;
    if (m.frame.len) memcpy(shared_buf_data(b), m.frame.data, m.frame.len);
    if (!room->sharing) share_began(r, room, m.share_id, m.text);
    char *text = malloc(m.text.len + 1);
    if (text) {
        if (m.text.len) memcpy(text, m.text.data, m.text.len);
        text[m.text.len] = '\0';
        free(room->shared_text);
        room->shared_text = text;
    }
    shared_buf_unref(room->shared_frame);
    room->shared_frame = b;
    room->shared_seq++;
    r->n.past_frames++;
    for (size_t s = 0; s < r->cfg.max_clients; s++)
        if (r->clients[s].net_id && r->clients[s].following && r->clients[s].room == room->index)
            net_wake_v2(r->net, s, r->clients[s].net_id);
}

void relay_share_forget(relay_room_t *room)
{
    shared_buf_unref(room->shared_frame);
    room->shared_frame = NULL;
    free(room->shared_text);
    room->shared_text = NULL;
    room->sharing = false;
}

void relay_share_join(relay_t *r, const relay_room_t *room, size_t slot)
{
    relay_client_t *c = &r->clients[slot];
    if (!room->sharing || !room->shared_frame || !room->shared_text) return;
    c->following = true;
    c->shared_sent = room->shared_seq - 1; /* its first frame is the moment shown */
    c->share_untold = true; /* net sends its hello first: the news goes at the timer's round */
}

void relay_share_tell_late(relay_t *r, const relay_room_t *room)
{
    if (!room->sharing || !room->shared_text) return;
    for (size_t s = 0; s < r->cfg.max_clients; s++) {
        relay_client_t *c = &r->clients[s];
        if (!c->net_id || !c->share_untold || c->room != room->index) continue;
        c->share_untold = false;
        net_send(r->net, s, c->net_id, room->shared_text);
    }
}

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
 *    viewers of one relay cannot keep everyone else from the past;
 *  - an operator's share reaches the relays' viewers of the room through
 *    one message per frame on the room's S.shared, whatever their number:
 *    each relay hands it to its viewers who watch live.
 * Loop thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "protocol/timeline_messages.h"

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

/* What a relay's viewer following the share is told: the same message as
 * the simulation's own followers (why: "shared", or "share_ended" live). */
static char *share_news(room_t *r, const char *why)
{
    timeline_state_t s = timeline_live_state(r, why);
    if (r->shared_seat >= 0) {
        scrub_request_t cur = scrubbers_current(r->scrubbers, r->shared_seat);
        s.mode = "following";
        s.tick = (uint64_t)floor(cur.position);
        s.speed = cur.speed ? cur.speed : 1;
    }
    return msg_timeline(&s);
}

static void publish_share(room_t *r, const char *why, const shared_buf_t *frame)
{
    app_t *a = r->app;
    char subject[SUBJECT_MAX];
    if (!bridge_publishing(r) || !nats_link_connected(a->nats) ||
        subject_shared(subject, sizeof subject, r->stream_prefix) < 0)
        return;
    char *text = share_news(r, why);
    if (!text) return;
    bridge_bytes_t t = {(const uint8_t *)text, strlen(text), true};
    bridge_bytes_t f = frame ? (bridge_bytes_t){shared_buf_data(frame), frame->len, true} : (bridge_bytes_t){0};
    size_t len;
    uint8_t *msg = bridge_shared_encode(r->share_id, t, f, &len);
    if (msg) nats_link_publish(a->nats, subject, NULL, msg, len);
    free(msg);
    free(text);
}

void bridge_share_begin(room_t *r) { r->share_id++; }

void bridge_share_frame(room_t *r, const shared_buf_t *frame) { publish_share(r, "shared", frame); }

void bridge_share_end(room_t *r) { publish_share(r, "share_ended", NULL); }

/* timeline_sessions: the loop's side of the timeline (PROTOCOL.md,
 * "Timeline"). A viewer's timeline message takes one of the room's seats
 * (timeline/scrubbers.h) and asks it for a tick, a playback or a pause; the
 * seat's thread rebuilds that past from the room's history and wakes the
 * room (on_wake → timeline_deliver); the frame goes to that viewer alone
 * through net (net_wake_v2 → compose_v2 → timeline_compose), in place of
 * the live stream's, until it asks for live again. An operator may share
 * its seat: every viewer of the room watching live then gets that seat's
 * frames (the whole world) until the operator goes live. Nothing here touches
 * the world, its command queue or its log: scrubbing changes nothing for
 * anyone else. A relay's viewer goes through the same code on its remote
 * slot; where it differs (its view, where its frames go, its relay's share
 * of the seats, the share for relays) the calls are relay_timeline.c's. */
#include <math.h>
#include <stdlib.h>

#include "app_internal.h"
#include "protocol/timeline_messages.h"

/* What the N+1st scrubber is told to wait before trying again: seats are
 * held while someone looks at the past, typically a few seconds. */
#define TIMELINE_RETRY_MS 2000

static void wake_room(void *user)
{
    room_t *r = user;
    uv_async_send(&r->wake_loop);
}

static uint64_t keyframe_ticks(const config_t *cfg)
{
    double k = round(cfg->keyframe_seconds * cfg->tick_hz);
    return k >= 1 ? (uint64_t)k : 1;
}

int timeline_open(room_t *r, char *msg, size_t msg_len)
{
    const config_t *cfg = r->cfg;
    /* A served --replay, or a run of a sweep: its whole run is the past. */
    bool recording = (cfg->replay && r->index == 0) || r->whole_run;
    if (r->history) return 0; /* opened already (the replay's) */
    r->shared_seat = -1;
    if (cfg->history_minutes <= 0 && !recording) return 0;
    history_limits_t lim = {
        .keyframe_ticks = keyframe_ticks(cfg),
        .window_ticks = recording ? UINT64_MAX : (uint64_t)llround(cfg->history_minutes * 60.0 * cfg->tick_hz),
        .max_bytes = (size_t)(cfg->history_mb * 1048576.0),
        .shared_bytes = &r->app->timeline_bytes,
        .shared_max = (size_t)(cfg->history_total_mb * 1048576.0),
    };
    size_t seats = cfg->timeline_seats;
    r->history = history_create(&lim);
    r->slot_seat = malloc(r->app->n_slots * sizeof *r->slot_seat);
    r->scrub_next = calloc(seats ? seats : 1, sizeof *r->scrub_next);
    r->scrub_sent = calloc(seats ? seats : 1, sizeof *r->scrub_sent);
    r->following = calloc(r->app->n_slots, sizeof *r->following);
    r->shared_sent = calloc(r->app->n_slots, sizeof *r->shared_sent);
    r->share_untold = calloc(r->app->n_slots, sizeof *r->share_untold);
    if (r->slot_seat)
        for (size_t i = 0; i < r->app->n_slots; i++) r->slot_seat[i] = -1;
    if (seats && r->history) {
        scrubbers_config_t sc = {
            .world = {.width = r->world.width, .height = r->world.height, .dt = r->world.dt, .seed = r->world.seed,
                      .max_agents = r->world.max_agents, .max_targets = r->world.max_targets,
                      /* One thread: a seat's rebuild on two measured slower on a busy
                       * 2-core machine (4.5 against 3.0 ms a step at 10,000 agents), its
                       * second worker waiting for a core at each barrier. */
                      .threads = 1},
            .tick_hz = cfg->tick_hz,
            .frame_hz = cfg->snapshot_hz,
            .seats = seats,
            .in_use = &r->app->timeline_seats_used,
            .headroom = net_headroom(),
            .notify = wake_room,
            .user = r,
        };
        r->scrubbers = scrubbers_create(r->history, &sc);
    }
    if (r->history && r->slot_seat && r->scrub_next && r->scrub_sent && r->following && r->shared_sent &&
        r->share_untold && (!seats || r->scrubbers))
        return 0;
    snprintf(msg, msg_len, "out of memory for the room's timeline");
    return -1;
}

void timeline_close(room_t *r)
{
    /* The seats' threads wake the room through its handle: they stop first. */
    scrubbers_destroy(r->scrubbers);
    r->scrubbers = NULL;
    for (size_t i = 0; r->scrub_next && i < r->cfg->timeline_seats; i++) {
        shared_buf_unref(r->scrub_next[i]);
        shared_buf_unref(r->scrub_sent[i]);
        r->scrub_next[i] = r->scrub_sent[i] = NULL;
    }
    shared_buf_unref(r->shared_frame);
    r->shared_frame = NULL;
    r->shared_seat = -1;
}

void timeline_destroy(room_t *r)
{
    timeline_close(r);
    history_destroy(r->history);
    r->history = NULL;
    free(r->slot_seat);
    free(r->scrub_next);
    free(r->scrub_sent);
    free(r->following);
    free(r->shared_sent);
    free(r->share_untold);
    r->slot_seat = NULL;
    r->scrub_next = r->scrub_sent = NULL;
    r->following = r->share_untold = NULL;
    r->shared_sent = NULL;
}

/* ---- answers --------------------------------------------------------------- */

static void send_text(room_t *r, size_t slot, uint32_t client_id, char *text)
{
    if (text) client_send(r->app, slot, client_id, text);
    free(text);
}

static void refuse(room_t *r, size_t slot, uint32_t client_id, const timeline_request_t *req, const char *code,
                   const char *message, int64_t retry_ms)
{
    history_stats_t w = {0};
    if (r->history) history_get_stats(r->history, &w);
    send_text(r, slot, client_id, msg_timeline_error(code, message, req ? req->request_id : -1, w.from, w.to, retry_ms));
}

/* Where the client is on the timeline, to the client. */
timeline_state_t timeline_live_state(room_t *r, const char *why)
{
    history_stats_t w;
    history_get_stats(r->history, &w);
    return (timeline_state_t){.request_id = -1,
                              .mode = "live",
                              .tick = w.to,
                              .speed = 1,
                              .from = w.from,
                              .to = w.to,
                              .base = w.base,
                              .keyframe_ticks = keyframe_ticks(r->cfg),
                              .why = why};
}

static void tell_state(room_t *r, size_t slot, uint32_t client_id, const timeline_request_t *req, const char *why)
{
    int seat = r->slot_seat[slot];
    timeline_state_t s = timeline_live_state(r, why);
    if (req) s.op = timeline_op_names[req->op], s.request_id = req->request_id;
    if (seat < 0 && r->following[slot] && r->shared_seat >= 0) seat = r->shared_seat;
    if (seat >= 0) {
        scrub_request_t cur = scrubbers_current(r->scrubbers, seat);
        s.mode = r->slot_seat[slot] < 0 ? "following" : cur.playing ? "playing" : "paused";
        s.tick = (uint64_t)floor(cur.position);
        s.speed = cur.speed ? cur.speed : 1;
    }
    send_text(r, slot, client_id, msg_timeline(&s));
}

/* ---- seats ------------------------------------------------------------------ */

/* A follower back on the live stream: its next frame is a live key. */
static void unfollow(room_t *r, size_t slot, uint32_t client_id)
{
    if (!r->following[slot]) return;
    r->following[slot] = false;
    r->share_untold[slot] = false;
    compose_forget(r->compose, slot);
    net_wake_v2(r->app->net, slot, client_id);
}

/* The operator stopped sharing (went live, left): its followers go back
 * to live, and are told why. */
static void end_share(room_t *r)
{
    if (r->shared_seat < 0) return;
    r->shared_seat = -1;
    shared_buf_unref(r->shared_frame);
    r->shared_frame = NULL;
    bridge_share_end(r);
    for (size_t slot = 0; slot < r->app->n_slots; slot++) {
        if (!r->following[slot]) continue;
        uint32_t client_id = r->slot_client[slot];
        unfollow(r, slot, client_id);
        tell_state(r, slot, client_id, NULL, "share_ended");
    }
}

/* Whether the viewer in slot k watches live on its own: v2, no seat, not a relay's. */
static bool watches_live(room_t *r, size_t k)
{
    return r->slot_client[k] && r->slot_seat[k] < 0 && !is_remote(r->app, k) && viewers_view_of(r->viewers, k).view_id != 0;
}

/* Everyone in the room watching live on its own follows the operator's
 * seat, whose view becomes the whole world; one rebuild serves them all. */
static void start_share(room_t *r, size_t slot, int seat)
{
    r->shared_seat = seat;
    scrub_request_t q = scrubbers_current(r->scrubbers, seat);
    q.rect = wire2_rect_world();
    q.mode = r->world.n <= r->cfg->detail_budget ? WIRE2_DETAIL : WIRE2_LOD;
    if (!q.playing) q.position = floor(q.position);
    for (size_t k = 0; k < r->app->n_slots; k++) {
        if (k == slot || !watches_live(r, k)) continue;
        r->following[k] = true;
        r->shared_sent[k] = r->shared_seq;
    }
    scrubbers_request(r->scrubbers, seat, &q); /* a frame for them at once */
    bridge_share_begin(r); /* and for the relays' viewers watching live */
    for (size_t k = 0; k < r->app->n_slots; k++)
        if (r->following[k]) tell_state(r, k, r->slot_client[k], NULL, "shared");
}

/* Back to the live stream: the seat goes, and the next live frame is a key
 * with the scene (the client's decoder holds the past's). */
static void go_live(room_t *r, size_t slot, uint32_t client_id)
{
    unfollow(r, slot, client_id);
    bridge_send_live(r->app, slot, client_id); /* a relay's viewer: always, its relay may think it scrubs */
    int seat = r->slot_seat[slot];
    if (seat < 0) return;
    if (seat == r->shared_seat) end_share(r);
    scrubbers_release(r->scrubbers, seat);
    r->slot_seat[slot] = -1;
    shared_buf_unref(r->scrub_next[seat]);
    r->scrub_next[seat] = NULL;
    compose_forget(r->compose, slot);
    net_wake_v2(r->app->net, slot, client_id);
}

/* The client's seat, taken now when it has none (*fresh): -1 when none is free. */
static int seat_for(room_t *r, size_t slot, uint32_t client_id, bool *fresh)
{
    *fresh = r->slot_seat[slot] < 0;
    if (!*fresh) return r->slot_seat[slot];
    if (!bridge_seat_fair(r->app, slot)) return -1; /* its relay's viewers hold their share */
    int seat = scrubbers_acquire(r->scrubbers, slot, client_id);
    if (seat < 0) return -1;
    r->slot_seat[slot] = seat;
    shared_buf_unref(r->scrub_next[seat]);
    r->scrub_next[seat] = NULL;
    bridge_send_past(r->app, slot, client_id, NULL); /* a relay's viewer: its relay holds back the live frames */
    return seat;
}

/* The view the client watches live is the one it sees of the past. */
static void with_view(room_t *r, size_t slot, scrub_request_t *q)
{
    view_spec_t spec;
    viewer_view_t v = is_remote(r->app, slot) ? (viewer_view_t){0} : viewers_view_of(r->viewers, slot);
    if (bridge_scrub_view(r->app, slot, &q->rect, &q->mode)) return; /* a relay's viewer: the view its relay told */
    if (v.view_id && views_spec_of(r->views, v.view_id, &spec)) q->rect = spec.rect, q->mode = spec.mode;
    else q->rect = wire2_rect_world(), q->mode = WIRE2_DETAIL;
}

void on_timeline(room_t *r, uint32_t client_id, size_t slot, const timeline_request_t *req)
{
    app_t *a = r->app;
    policy_verdict_t verdict = policy_charge(&a->policy[slot], POLICY_COST_VIEW, now_ns());
    if (verdict != POLICY_OK) {
        refuse(r, slot, client_id, req, "rate_limited", "too many messages: this one was not applied; wait a moment", -1);
        if (verdict == POLICY_ABUSIVE) client_close(a, slot, client_id, 1008, "too many commands");
        return;
    }
    if (!r->history || !r->scrubbers) {
        refuse(r, slot, client_id, req, "unavailable", "this server keeps no past (--history-minutes 0 or --timeline-seats 0)", -1);
        return;
    }
    if (!is_remote(a, slot) && viewers_view_of(r->viewers, slot).view_id == 0) { /* relays serve v2 only */
        refuse(r, slot, client_id, req, "bad_request", "the timeline needs the swarmcast.v2 sub-protocol", -1);
        return;
    }
    history_stats_t w;
    history_get_stats(r->history, &w);
    if (req->op == TIMELINE_WINDOW) {
        tell_state(r, slot, client_id, req, NULL);
        return;
    }
    if (req->op == TIMELINE_LIVE) {
        go_live(r, slot, client_id);
        tell_state(r, slot, client_id, req, NULL);
        return;
    }
    if (req->op == TIMELINE_SEEK && (req->tick < w.from || req->tick > w.to)) {
        refuse(r, slot, client_id, req, "out_of_window",
               req->tick < w.from ? "that tick is older than the past this server keeps (from … to)"
                                  : "that tick has not happened yet (the newest is to)",
               -1);
        return;
    }
    if (req->op == TIMELINE_SHARE) {
        int own = r->slot_seat[slot];
        if (!r->app->policy[slot].operator) {
            refuse(r, slot, client_id, req, "forbidden", "share needs the operator role: send auth with the control token", -1);
        } else if (own < 0) {
            refuse(r, slot, client_id, req, "bad_request", "share shows everyone what you look at: seek or pause first", -1);
        } else if (r->shared_seat >= 0 && r->shared_seat != own) {
            refuse(r, slot, client_id, req, "timeline_busy", "another operator is sharing a moment; try again later",
                   TIMELINE_RETRY_MS);
        } else {
            start_share(r, slot, own);
            tell_state(r, slot, client_id, req, NULL);
        }
        return;
    }
    r->following[slot] = false; /* a follower who moves on its own takes a seat of its own */
    bool fresh;
    int seat = seat_for(r, slot, client_id, &fresh);
    if (seat < 0) {
        refuse(r, slot, client_id, req, "timeline_busy",
               "every seat for looking at the past is taken (--timeline-seats); try again later", TIMELINE_RETRY_MS);
        return;
    }
    scrub_request_t q = scrubbers_current(r->scrubbers, seat);
    if (fresh) q = (scrub_request_t){.position = (double)w.to, .speed = 1}; /* from what it watched: the present */
    if (seat != r->shared_seat) with_view(r, slot, &q);
    switch (req->op) {
    case TIMELINE_SEEK: q.position = (double)req->tick, q.playing = false; break;
    case TIMELINE_PLAY: q.position = floor(q.position), q.playing = true, q.speed = req->speed; break;
    case TIMELINE_PAUSE: q.position = floor(q.position), q.playing = false; break;
    case TIMELINE_STEP: {
        double to = floor(q.position) + (double)req->by;
        q.position = to < (double)w.from ? (double)w.from : to > (double)w.to ? (double)w.to : to;
        q.playing = false;
        break;
    }
    default: break;
    }
    scrubbers_request(r->scrubbers, seat, &q);
    tell_state(r, slot, client_id, req, NULL);
}

/* ---- frames on their way out -------------------------------------------------- */

void timeline_deliver(room_t *r)
{
    if (!r->scrubbers || r->closing) return;
    for (size_t slot = 0; r->shared_seat >= 0 && slot < r->app->n_slots; slot++) {
        if (!r->share_untold[slot]) continue;
        r->share_untold[slot] = false;
        if (!r->following[slot]) continue;
        tell_state(r, slot, r->slot_client[slot], NULL, "shared");
        net_wake_v2(r->app->net, slot, r->slot_client[slot]);
    }
    for (size_t seat = 0; seat < r->cfg->timeline_seats; seat++) {
        size_t slot;
        uint32_t client_id;
        if (!scrubbers_holder(r->scrubbers, (int)seat, &slot, &client_id) || r->slot_seat[slot] != (int)seat) continue;
        scrub_output_t out;
        scrubbers_take(r->scrubbers, (int)seat, &out);
        if (out.frame) {
            if ((int)seat == r->shared_seat) {
                shared_buf_unref(r->shared_frame);
                r->shared_frame = shared_buf_ref(out.frame);
                r->shared_seq++;
                for (size_t k = 0; k < r->app->n_slots; k++)
                    if (r->following[k]) net_wake_v2(r->app->net, k, r->slot_client[k]);
                bridge_share_frame(r, out.frame);
            }
            if (is_remote(r->app, slot)) { /* a relay's viewer: the frame goes to its relay now */
                bridge_send_past(r->app, slot, client_id, out.frame);
                shared_buf_unref(out.frame);
            } else {
                shared_buf_unref(r->scrub_next[seat]);
                r->scrub_next[seat] = out.frame;
                net_wake_v2(r->app->net, slot, client_id);
            }
            past_metrics_send(r, (int)seat, slot, client_id, out.tick); /* that moment's values, for the plots */
        }
        if (out.reached_live) {
            go_live(r, slot, client_id);
            tell_state(r, slot, client_id, NULL, "reached_live");
        } else if (out.stopped_at_start) {
            tell_state(r, slot, client_id, NULL, "reached_start");
        } else if (out.error) {
            tell_state(r, slot, client_id, NULL, "window_moved");
        }
    }
}

/* Whether the viewer in slot k is a relay's and watches live: no seat, and
 * no share running (its relay makes every viewer watching live follow a
 * share, and tells them the base when it ends: its text is made then). */
static bool relay_viewer_live(room_t *r, size_t k)
{
    return r->slot_client[k] && r->slot_seat[k] < 0 && is_remote(r->app, k) && r->shared_seat < 0;
}

/* After a reset the live world's ticks start again while the timeline goes
 * on: everyone watching live is told the new base, so that a page places
 * the live frames (base + their tick) on its timeline — a relay's viewers
 * too, through their relay. */
static void tell_reset(room_t *r)
{
    history_stats_t w;
    history_get_stats(r->history, &w);
    if (w.base == r->base_told) return;
    r->base_told = w.base;
    for (size_t k = 0; k < r->app->n_slots; k++)
        if ((watches_live(r, k) && !r->following[k]) || relay_viewer_live(r, k))
            tell_state(r, k, r->slot_client[k], NULL, "reset");
}

void timeline_follow_views(room_t *r)
{
    if (!r->scrubbers) return;
    tell_reset(r);
    for (size_t seat = 0; seat < r->cfg->timeline_seats; seat++) {
        size_t slot;
        uint32_t client_id;
        if (!scrubbers_holder(r->scrubbers, (int)seat, &slot, &client_id) || r->slot_seat[slot] != (int)seat ||
            (int)seat == r->shared_seat)
            continue;
        scrub_request_t now = scrubbers_current(r->scrubbers, (int)seat), moved = now;
        with_view(r, slot, &moved);
        if (wire2_rect_equal(moved.rect, now.rect) && moved.mode == now.mode) continue;
        if (!moved.playing) moved.position = floor(moved.position);
        scrubbers_request(r->scrubbers, (int)seat, &moved); /* the same moment, the new view */
    }
}

int timeline_compose(room_t *r, size_t slot, uint32_t client_id, const uint8_t **data, size_t *len)
{
    (void)client_id; /* the slot's seat is released when its client leaves (timeline_left) */
    if (!r->slot_seat || slot >= r->app->n_slots) return -1;
    if (r->slot_seat[slot] < 0 && r->following[slot]) {
        if (!r->shared_frame || r->shared_sent[slot] == r->shared_seq) return 0;
        r->shared_sent[slot] = r->shared_seq;
        *data = shared_buf_data(r->shared_frame);
        *len = r->shared_frame->len;
        return 1;
    }
    if (r->slot_seat[slot] < 0) return -1;
    int seat = r->slot_seat[slot];
    if (!r->scrub_next[seat]) return 0;
    shared_buf_unref(r->scrub_sent[seat]);
    r->scrub_sent[seat] = r->scrub_next[seat];
    r->scrub_next[seat] = NULL;
    *data = shared_buf_data(r->scrub_sent[seat]);
    *len = r->scrub_sent[seat]->len;
    return 1;
}

void timeline_joined(room_t *r, size_t slot, uint32_t client_id)
{
    if (!r->slot_seat || slot >= r->app->n_slots || r->shared_seat < 0 || r->closing) return;
    if (r->slot_client[slot] != client_id || !watches_live(r, slot)) return;
    /* It follows the share as those who were there: the moment shown now
     * (the newest frame, a key with its scene) comes as its first frame. */
    r->following[slot] = true;
    r->shared_sent[slot] = r->shared_seq - 1;
    /* Told after its hello, which net sends once this call is over: at the
     * room's next wake (timeline_deliver). */
    r->share_untold[slot] = true;
    uv_async_send(&r->wake_loop);
}

void timeline_left(room_t *r, size_t slot, uint32_t client_id)
{
    if (!r->slot_seat || slot >= r->app->n_slots) return;
    r->following[slot] = false;
    r->share_untold[slot] = false;
    if (r->slot_seat[slot] < 0) return;
    if (!r->scrubbers) { /* the room closed first (timeline_close): its seats are gone already */
        r->slot_seat[slot] = -1;
        return;
    }
    int seat = r->slot_seat[slot];
    if (seat == r->shared_seat) end_share(r);
    scrubbers_release(r->scrubbers, seat);
    r->slot_seat[slot] = -1;
    shared_buf_unref(r->scrub_next[seat]);
    r->scrub_next[seat] = NULL;
    (void)client_id;
}

/* ---- /metrics ----------------------------------------------------------------- */

char *timeline_metrics_text(const app_t *a)
{
    size_t bytes = 0, keyframes = 0, commands = 0;
    uint64_t rebuilds = 0, restores = 0, frames = 0, evicted = 0;
    double last = 0, max = 0;
    scrubbers_stats_t all = {0}; /* the phases' sums */
    history_stats_t home = {0};
    for (size_t i = 0; i < a->n_rooms_max; i++) {
        room_t *r = a->rooms[i];
        if (!r || r->closing || !r->history) continue;
        history_stats_t h;
        history_get_stats(r->history, &h);
        if (r == a->home) home = h;
        bytes += h.bytes, keyframes += h.keyframes, commands += h.commands, evicted += h.keyframes_evicted;
        if (!r->scrubbers) continue;
        scrubbers_stats_t s;
        scrubbers_get_stats(r->scrubbers, &s);
        rebuilds += s.rebuilds, restores += s.restores, frames += s.frames;
        all.requests_served += s.requests_served, all.steps += s.steps;
        all.wait_seconds += s.wait_seconds, all.restore_seconds += s.restore_seconds;
        all.step_seconds += s.step_seconds, all.encode_seconds += s.encode_seconds;
        if (s.rebuilds) last = s.rebuild_seconds_last;
        if (s.rebuild_seconds_max > max) max = s.rebuild_seconds_max;
    }
    size_t cap = 8192;
    char *text = malloc(cap);
    if (!text) return NULL;
    int used = snprintf(text, cap,
             "# HELP swarmcast_timeline_bytes memory of the kept past, all rooms (keyframes and commands)\n"
             "# TYPE swarmcast_timeline_bytes gauge\nswarmcast_timeline_bytes %zu\n"
             "# HELP swarmcast_timeline_keyframes keyframes kept, all rooms\n# TYPE swarmcast_timeline_keyframes gauge\n"
             "swarmcast_timeline_keyframes %zu\n"
             "# HELP swarmcast_timeline_commands commands kept, all rooms\n# TYPE swarmcast_timeline_commands gauge\n"
             "swarmcast_timeline_commands %zu\n"
             "# HELP swarmcast_timeline_keyframes_evicted_total keyframes dropped for the window or the budget\n"
             "# TYPE swarmcast_timeline_keyframes_evicted_total counter\nswarmcast_timeline_keyframes_evicted_total %llu\n"
             "# HELP swarmcast_timeline_window_ticks the default room's kept past, in ticks\n"
             "# TYPE swarmcast_timeline_window_ticks gauge\nswarmcast_timeline_window_ticks %llu\n"
             "# HELP swarmcast_timeline_seats_used seats of viewers looking at the past, all rooms\n"
             "# TYPE swarmcast_timeline_seats_used gauge\nswarmcast_timeline_seats_used %zu\n"
             "# HELP swarmcast_timeline_frames_total frames of the past sent\n"
             "# TYPE swarmcast_timeline_frames_total counter\nswarmcast_timeline_frames_total %llu\n"
             "# HELP swarmcast_timeline_rebuilds_total worlds of the past rebuilt for a frame\n"
             "# TYPE swarmcast_timeline_rebuilds_total counter\nswarmcast_timeline_rebuilds_total %llu\n"
             "# HELP swarmcast_timeline_restores_total rebuilds that started from a keyframe (the others advanced)\n"
             "# TYPE swarmcast_timeline_restores_total counter\nswarmcast_timeline_restores_total %llu\n"
             "# HELP swarmcast_timeline_rebuild_seconds the last rebuild's time on a seat's thread\n"
             "# TYPE swarmcast_timeline_rebuild_seconds gauge\nswarmcast_timeline_rebuild_seconds %.6f\n"
             "# HELP swarmcast_timeline_rebuild_seconds_max the longest rebuild's time on a seat's thread\n"
             "# TYPE swarmcast_timeline_rebuild_seconds_max gauge\nswarmcast_timeline_rebuild_seconds_max %.6f\n",
             bytes, keyframes, commands, (unsigned long long)evicted, (unsigned long long)(home.to - home.from),
             (size_t)atomic_load(&((app_t *)a)->timeline_seats_used), (unsigned long long)frames,
             (unsigned long long)rebuilds, (unsigned long long)restores, last, max);
    if (used < 0 || (size_t)used >= cap) return text;
    snprintf(text + used, cap - (size_t)used,
             "# HELP swarmcast_timeline_requests_total timeline requests taken up by a seat's thread\n"
             "# TYPE swarmcast_timeline_requests_total counter\nswarmcast_timeline_requests_total %llu\n"
             "# HELP swarmcast_timeline_seconds_total where the seats' time went: waiting for their thread, restoring "
             "keyframes, re-stepping, encoding the frame\n"
             "# TYPE swarmcast_timeline_seconds_total counter\n"
             "swarmcast_timeline_seconds_total{phase=\"wait\"} %.6f\n"
             "swarmcast_timeline_seconds_total{phase=\"restore\"} %.6f\n"
             "swarmcast_timeline_seconds_total{phase=\"steps\"} %.6f\n"
             "swarmcast_timeline_seconds_total{phase=\"encode\"} %.6f\n"
             "# HELP swarmcast_timeline_steps_total steps re-taken to rebuild the past\n"
             "# TYPE swarmcast_timeline_steps_total counter\nswarmcast_timeline_steps_total %llu\n",
             (unsigned long long)all.requests_served, all.wait_seconds, all.restore_seconds, all.step_seconds,
             all.encode_seconds, (unsigned long long)all.steps);
    return text;
}

/* fanout: what a session is sent and when (net.h's opening comment has the
 * order: its outbox, the news it has not had, the newest snapshot). Owns
 * the outbox with its back-pressure, the "latest" news per key, the shared
 * v1 frame and the v2 sequence; writes one thing per WRITEABLE callback, or
 * directly from a timer or a wake-up (net_flush_now). Loop thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_internal.h"
#include "protocol/utf8.h"

/* Past OUTBOX_PAUSE_READING a client's commands are no longer read (TCP
 * back-pressure) until its outbox drains to OUTBOX_RESUME_READING; a client
 * that lets it fill completely is not reading at all and is closed. */
#define OUTBOX_PAUSE_READING 32
#define OUTBOX_RESUME_READING 8

/* Whether anything waits to be written to s. */
static bool snapshot_pending(const net_t *n, const session_t *s)
{
    const channel_t *c = &n->channels[s->channel];
    return s->protocol == 2 ? s->snap_seq != c->v2_seq : c->snap_len && s->snap_seq != c->snap_seq;
}

bool net_has_pending(const net_t *n, const session_t *s)
{
    if (s->out_count || snapshot_pending(n, s)) return true;
    for (size_t w = 0; w < LATEST_WORDS; w++)
        if (s->latest_dirty[w]) return true;
    return false;
}

/* Call before giving s something to write: the stall clock starts when
 * output becomes pending, not at the last write of long ago. */
static void note_pending(const net_t *n, session_t *s)
{
    if (!net_has_pending(n, s)) s->last_progress_ms = now_ms(n);
}

void net_outbox_clear(session_t *s)
{
    for (; s->out_count; s->out_count--, s->out_head = (s->out_head + 1) % OUTBOX_CAP)
        free(s->out[s->out_head].buf);
}

/* A text frame's bytes after LWS_PRE of headroom: 0, -1 when out of
 * memory, or 1 when text is not valid UTF-8. That is the last line of
 * defence: every builder of outgoing text keeps it valid (protocol/utf8.h),
 * but a browser fails the whole connection on one invalid text frame, so a
 * future bug in one of them costs one message (counted in /metrics and
 * told once on stderr), not every viewer's connection. */
static int text_frame(net_t *n, const char *text, uint8_t **buf, size_t *len)
{
    *len = strlen(text);
    if (!utf8_valid(text, *len)) {
        if (n->stats.text_refused++ == 0)
            fprintf(stderr, "swarmcast: a text message of %zu bytes that is not valid UTF-8 was not sent (a bug; "
                            "all are counted in swarmcast_text_refused_total)\n", *len);
        return 1;
    }
    *buf = malloc(LWS_PRE + *len);
    if (!*buf) return -1;
    memcpy(*buf + LWS_PRE, text, *len);
    return 0;
}

void net_enqueue(net_t *n, session_t *s, const char *text)
{
    if (s->closing) return;
    if (s->out_count == OUTBOX_CAP) {
        net_begin_close(n, s, LWS_CLOSE_STATUS_POLICY_VIOLATION, "client does not read its messages");
        return;
    }
    size_t len;
    uint8_t *buf = NULL;
    int rc = text_frame(n, text, &buf, &len);
    if (rc > 0) return;
    if (rc < 0) {
        net_begin_close(n, s, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "out of memory");
        return;
    }
    note_pending(n, s);
    s->out[(s->out_head + s->out_count) % OUTBOX_CAP] = (outgoing_t){buf, len};
    s->out_count++;
    if (s->out_count >= OUTBOX_PAUSE_READING && !s->reading_paused) {
        lws_rx_flow_control(s->wsi, 0);
        s->reading_paused = true;
    }
    lws_callback_on_writable(s->wsi);
}

/* ---- sending ------------------------------------------------------------- */

static int write_text(net_t *n, struct lws *wsi, uint8_t *buf, size_t len)
{
    int written = lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT);
    if (written < (int)len) return -1;
    n->stats.text_frames++;
    n->stats.text_bytes += len;
    return 0;
}

/* The first key whose newest text s has not had, or -1. */
static int first_dirty(const session_t *s)
{
    for (size_t w = 0; w < LATEST_WORDS; w++)
        if (s->latest_dirty[w]) return (int)(w * 64 + (size_t)__builtin_ctzll(s->latest_dirty[w]));
    return -1;
}

/* The newest v2 frame for s, composed now for what it holds: the newest
 * state of its view, as a delta, a chain of deltas or a key. */
static int write_v2(net_t *n, session_t *s)
{
    s->snap_seq = n->channels[s->channel].v2_seq;
    const uint8_t *data;
    size_t len;
    if (!n->cb.compose_v2(n->cb.user, s->client_id, s->slot, &data, &len)) return 0;
    if (lws_write(s->wsi, (uint8_t *)data, len, LWS_WRITE_BINARY) < (int)len) return -1;
    n->stats.v2_frames++;
    n->stats.v2_bytes += len;
    return 0;
}

/* Writes the next thing s is owed, in this order: a ping, its replies, the
 * news it has not had, the newest snapshot. 1 when something was written,
 * 0 when nothing was owed, -1 when the socket failed. */
static int write_next(net_t *n, session_t *s)
{
    struct lws *wsi = s->wsi;
    channel_t *c = &n->channels[s->channel];
    int key;
    if (s->ping_due) {
        /* lws 4.1 does not report a pong with an empty payload. */
        uint8_t ping[LWS_PRE + 4];
        memcpy(ping + LWS_PRE, "swrm", 4);
        s->ping_due = false;
        n->stats.pings++;
        return lws_write(wsi, ping + LWS_PRE, 4, LWS_WRITE_PING) < 4 ? -1 : 1;
    }
    if (s->out_count) {
        outgoing_t o = s->out[s->out_head];
        s->out_head = (s->out_head + 1) % OUTBOX_CAP;
        s->out_count--;
        int rc = write_text(n, wsi, o.buf, o.len);
        free(o.buf);
        if (s->reading_paused && s->out_count <= OUTBOX_RESUME_READING) {
            lws_rx_flow_control(wsi, 1);
            s->reading_paused = false;
        }
        return rc < 0 ? -1 : 1;
    }
    if ((key = first_dirty(s)) >= 0) {
        s->latest_dirty[key / 64] &= ~(1ull << (key % 64));
        if (!c->latest[key].buf) return 1; /* forgotten (the channel was reset): nothing to send */
        return write_text(n, wsi, c->latest[key].buf, c->latest[key].len) < 0 ? -1 : 1;
    }
    if (s->protocol == 2 && s->snap_seq != c->v2_seq) return write_v2(n, s) < 0 ? -1 : 1;
    if (s->protocol == 1 && c->snap_len && s->snap_seq != c->snap_seq) {
        /* Only the newest snapshot is ever sent: one that went out while
         * this client was still busy with an older write is skipped. */
        int written = lws_write(wsi, c->snap, c->snap_len, LWS_WRITE_BINARY);
        if (written < (int)c->snap_len) return -1;
        s->snap_seq = c->snap_seq;
        n->stats.snapshot_frames++;
        n->stats.snapshot_bytes += c->snap_len;
        return 1;
    }
    return 0;
}

/* One write per callback (libwebsockets allows one write each). */
int net_on_writeable(net_t *n, session_t *s, struct lws *wsi)
{
    /* Closing: nothing more goes out but libwebsockets' close frame. */
    if (s->closing || !s->counted) return 0;
    s->last_progress_ms = now_ms(n);
    if (write_next(n, s) < 0) return -1;
    if (s->ping_due || net_has_pending(n, s)) lws_callback_on_writable(wsi);
    return 0;
}

/* Writes what s is owed now, outside any libwebsockets callback (from a
 * timer or the encoder's wake-up), instead of asking for a WRITEABLE
 * callback: with libuv, lws re-arms a socket's poll for each callback
 * (epoll_ctl DEL and ADD to ask, again to stop asking), which at thousands
 * of viewers costs more of the loop thread than the writes themselves.
 * Writes stop as soon as lws holds part of one (the socket's buffer is
 * full); the rest waits for the callback as before, so at most one frame
 * is ever buffered in lws. No direct writes with permessage-deflate (its
 * output drains from the callback), while closing, or once the peer
 * started its close. */
void net_flush_now(net_t *n, session_t *s)
{
    if (n->cfg.deflate || !s->counted || s->closing || s->peer_closing || lws_partial_buffered(s->wsi)) {
        lws_callback_on_writable(s->wsi);
        return;
    }
    int rc;
    while ((rc = write_next(n, s)) > 0 && !lws_partial_buffered(s->wsi)) s->last_progress_ms = now_ms(n);
    if (rc < 0) {
        /* There is no callback to return -1 from: lws closes it, and
         * nothing more is written to it meanwhile. */
        s->closing = true;
        s->close_started_ms = now_ms(n);
        net_cut_off(s);
        return;
    }
    if (rc > 0) s->last_progress_ms = now_ms(n);
    if (s->ping_due || net_has_pending(n, s)) lws_callback_on_writable(s->wsi);
}

void net_wake_v2(net_t *n, size_t slot, uint32_t client_id)
{
    session_t *s = slot < n->cfg.max_clients ? n->slots[slot] : NULL;
    if (!s || s->client_id != client_id || s->closing || s->protocol != 2) return;
    note_pending(n, s);
    s->snap_seq = n->channels[s->channel].v2_seq - 1; /* owed a frame: compose_v2 decides which */
    net_flush_now(n, s);
}

size_t net_backlog(const net_t *n, size_t slot, uint32_t client_id)
{
    const session_t *s = slot < n->cfg.max_clients ? n->slots[slot] : NULL;
    return s && s->client_id == client_id ? s->out_count : 0;
}

void net_send(net_t *n, size_t slot, uint32_t client_id, const char *text)
{
    session_t *s = net_find(n, slot, client_id);
    if (s) net_enqueue(n, s, text);
}

void net_send_latest(net_t *n, size_t channel, unsigned key, const char *text)
{
    if (key >= NET_LATEST_KEYS || channel >= n->cfg.channels) return;
    channel_t *c = &n->channels[channel];
    size_t len;
    uint8_t *buf = NULL;
    if (text_frame(n, text, &buf, &len)) return; /* invalid, or out of memory: the previous news stands */
    free(c->latest[key].buf);
    c->latest[key] = (latest_t){buf, len};
    const uint64_t bit = 1ull << (key % 64);
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (!s || s->closing || s->channel != channel) continue;
        if (s->latest_dirty[key / 64] & bit) {
            n->stats.latest_replaced++;
        } else {
            note_pending(n, s);
            s->latest_dirty[key / 64] |= bit;
        }
        net_flush_now(n, s);
    }
}

void net_channel_reset(net_t *n, size_t channel)
{
    if (channel >= n->cfg.channels) return;
    channel_t *c = &n->channels[channel];
    for (size_t k = 0; k < NET_LATEST_KEYS; k++) free(c->latest[k].buf);
    /* The sequences go on (a session's snap_seq never meets an old value);
     * the frame belonged to the room, which frees it. */
    uint64_t snap_seq = c->snap_seq, v2_seq = c->v2_seq;
    size_t n1 = c->n_protocol[1], n2 = c->n_protocol[2];
    *c = (channel_t){.snap_seq = snap_seq, .v2_seq = v2_seq, .n_protocol = {0, n1, n2}};
}

void net_publish_snapshot(net_t *n, size_t channel, uint8_t *frame, size_t len)
{
    if (channel >= n->cfg.channels) return;
    channel_t *c = &n->channels[channel];
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (!s || s->closing || s->protocol != 1 || s->channel != channel) continue;
        if (c->snap_len && s->snap_seq != c->snap_seq) n->stats.snapshots_skipped++;
        else note_pending(n, s);
    }
    c->snap = frame;
    c->snap_len = len;
    c->snap_seq++;
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (s && !s->closing && s->protocol == 1 && s->channel == channel) lws_callback_on_writable(s->wsi);
    }
}

void net_publish_v2(net_t *n, size_t channel)
{
    if (channel >= n->cfg.channels) return;
    channel_t *c = &n->channels[channel];
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (!s || s->closing || s->protocol != 2 || s->channel != channel) continue;
        if (s->snap_seq != c->v2_seq) n->stats.v2_skipped++;
        else note_pending(n, s);
    }
    c->v2_seq++;
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (s && !s->closing && s->protocol == 2 && s->channel == channel) net_flush_now(n, s);
    }
}

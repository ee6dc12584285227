/* keepalive: the once-a-second sweep over the sessions: pings for quiet
 * clients, and closes for the dead (no pong for the idle timeout), the
 * stuck (output pending for the stall timeout) and the half-sent (a
 * message left incomplete). It is what bounds how long any peer can hold
 * a slot. Loop thread only. */
#include "net/net_internal.h"

/* A close that cannot even be written (the peer reads nothing) is cut off
 * after this long. */
#define CLOSE_GRACE_MS 2000
#define SWEEP_MS 1000

/* Once a second: pings for quiet clients; closes for the dead, the stuck
 * and the half-sent. Whatever a peer does, its slot comes back within
 * stall or idle timeout plus CLOSE_GRACE_MS. */
static void sweep(uv_timer_t *t)
{
    net_t *n = t->data;
    uint64_t now = now_ms(n);
    const uint64_t idle = n->cfg.idle_timeout_ms, stall = n->cfg.stall_timeout_ms, ping_every = idle / 3;
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        session_t *s = n->slots[i];
        if (!s) continue;
        if (s->closing) {
            if (now - s->close_started_ms > CLOSE_GRACE_MS) net_cut_off(s);
            continue;
        }
        if (net_has_pending(n, s) && now - s->last_progress_ms > stall) {
            /* It reads nothing: even a close frame would not get through. */
            n->stats.stalled++;
            s->close_code = LWS_CLOSE_STATUS_POLICY_VIOLATION;
            net_cut_off(s);
        } else if (s->in_message && now - s->message_started_ms > stall) {
            net_begin_close(n, s, LWS_CLOSE_STATUS_POLICY_VIOLATION, "message left incomplete");
        } else if (now - s->last_rx_ms > idle) {
            n->stats.idle++;
            net_begin_close(n, s, LWS_CLOSE_STATUS_GOINGAWAY, "no answer to pings");
        } else if (now - s->last_rx_ms >= ping_every && now - s->last_ping_ms >= ping_every) {
            s->last_ping_ms = now;
            s->ping_due = true;
            net_flush_now(n, s);
        }
    }
}

void net_keepalive_start(net_t *n)
{
    uv_timer_init(n->loop, &n->sweep_timer);
    n->sweep_timer.data = n;
    uv_timer_start(&n->sweep_timer, sweep, SWEEP_MS, SWEEP_MS);
}

void net_keepalive_stop(net_t *n)
{
    uv_timer_stop(&n->sweep_timer);
    uv_close((uv_handle_t *)&n->sweep_timer, NULL);
}

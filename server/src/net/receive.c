/* receive: one message reassembled from its frames and fragments into the
 * session's buffer: refused (1009) as soon as its announced size passes
 * --max-message-bytes, before it is buffered; a text message that is not
 * valid UTF-8 closes with 1007; a whole one goes to the on_message
 * callback. Loop thread only. */
#include <string.h>

#include "net/net_internal.h"
#include "protocol/utf8.h"

int net_on_receive(net_t *n, session_t *s, struct lws *wsi, const void *in, size_t len)
{
    if (!s->counted || s->closing) return 0;
    uint64_t now = now_ms(n);
    s->last_rx_ms = now;
    if (!s->in_message) {
        s->in_message = true;
        s->message_started_ms = now;
        s->rx_binary = lws_frame_is_binary(wsi);
        s->rx_len = 0;
    }
    /* Refuse as soon as the announced size passes the limit, before buffering. */
    size_t announced = s->rx_len + len + lws_remaining_packet_payload(wsi);
    /* Closed the usual way (net_begin_close), not by returning -1 here: that
     * drops the socket with the rest of the frame unread, and the peer's
     * kernel then discards our close frame on the reset. What else it
     * sends is read and dropped (net_on_receive ignores a closing session). */
    if (announced > n->cfg.max_message_bytes) {
        net_begin_close(n, s, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too big");
        return 0;
    }
    memcpy(s->rx + s->rx_len, in, len);
    s->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi)) return 0;
    s->in_message = false;
    if (!s->rx_binary && !utf8_valid((const unsigned char *)s->rx, s->rx_len)) {
        net_begin_close(n, s, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "invalid UTF-8");
        return 0;
    }
    n->cb.on_message(n->cb.user, s->client_id, s->slot, s->rx, s->rx_len, s->rx_binary);
    return 0;
}

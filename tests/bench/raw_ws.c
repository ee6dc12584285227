#include "raw_ws.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define OP_CONTINUATION 0x0
#define OP_BINARY 0x2
#define OP_CLOSE 0x8
#define OP_PING 0x9
#define OP_PONG 0xA

int raw_ws_connect(raw_ws_t *c, const char *host, int port, const char *protocol)
{
    (void)protocol;
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
        (connect(c->fd, (struct sockaddr *)&a, sizeof a) && errno != EINPROGRESS)) {
        close(c->fd);
        c->fd = -1;
        c->state = RAW_WS_CLOSED;
        return -1;
    }
    c->state = RAW_WS_CONNECTING;
    return 0;
}

int raw_ws_on_writable(raw_ws_t *c, const char *host, const char *path, const char *protocol)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) return -1;
    char req[768];
    /* The key is fixed: the probe does not check the accept hash, only 101. */
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: c3dhcm1jYXN0LXByb2JlLQ==\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: %s\r\n\r\n",
                     path, host, protocol);
    if (n < 0 || (size_t)n >= sizeof req) return -1;
    if (send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n) return -1;
    c->state = RAW_WS_UPGRADING;
    return 0;
}

/* A pong echoing the ping's payload; the mask is zero (a client must mask,
 * any key will do). Tiny: a short write is not retried. */
static void send_pong(raw_ws_t *c)
{
    uint8_t f[2 + 4 + sizeof c->control] = {0x80 | OP_PONG, (uint8_t)(0x80 | c->control_len)};
    memcpy(f + 6, c->control, c->control_len);
    (void)!send(c->fd, f, 6 + c->control_len, MSG_NOSIGNAL);
}

/* A frame's payload has been walked. -1 when the server closed. */
static int frame_done(raw_ws_t *c)
{
    uint8_t op = c->opcode;
    if (op == OP_CLOSE) return -1;
    if (op == OP_PING) {
        send_pong(c);
    } else if (op == OP_BINARY || op == OP_CONTINUATION) {
        if (op == OP_BINARY) c->msg_opcode = OP_BINARY;
        if (c->fin && c->msg_opcode == OP_BINARY) c->frames++;
    }
    c->head_len = 0;
    c->control_len = 0;
    return 0;
}

/* Header bytes the frame being gathered needs: 2, then its extended
 * length and mask once the second byte says. */
static size_t head_need(const raw_ws_t *c)
{
    if (c->head_len < 2) return 2;
    uint8_t l7 = c->head[1] & 0x7f;
    return 2 + (l7 == 126 ? 2u : l7 == 127 ? 8u : 0u) + (c->head[1] & 0x80 ? 4u : 0u);
}

/* Walks frame bytes: headers are gathered, payloads skipped. */
static int walk(raw_ws_t *c, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (c->head_len < head_need(c)) {
            c->head[c->head_len++] = p[i++];
            if (c->head_len < head_need(c)) continue;
            uint8_t l7 = c->head[1] & 0x7f;
            uint64_t len = l7;
            if (l7 == 126) len = (uint64_t)c->head[2] << 8 | c->head[3];
            if (l7 == 127)
                for (int k = 0; k < 8; k++) len = (k ? len << 8 : 0) | c->head[2 + k];
            c->fin = c->head[0] & 0x80;
            c->opcode = c->head[0] & 0x0f;
            c->payload_left = len;
            if (c->opcode >= OP_CLOSE && len > sizeof c->control) return -1;
            if (len == 0 && frame_done(c)) return -1;
            continue;
        }
        size_t take = n - i < c->payload_left ? n - i : (size_t)c->payload_left;
        if (c->opcode >= OP_CLOSE) {
            memcpy(c->control + c->control_len, p + i, take);
            c->control_len += take;
        }
        i += take;
        c->payload_left -= take;
        if (c->payload_left == 0 && frame_done(c)) return -1;
    }
    return 0;
}

int raw_ws_on_readable(raw_ws_t *c, uint8_t *buf, size_t cap)
{
    for (;;) {
        ssize_t r = read(c->fd, buf, cap);
        if (r == 0) return -1;
        if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        c->bytes += (uint64_t)r;
        const uint8_t *p = buf;
        size_t n = (size_t)r;
        if (c->state == RAW_WS_UPGRADING) {
            /* Up to the blank line byte by byte (small, once). */
            while (n && c->state == RAW_WS_UPGRADING) {
                if (c->response_len + 1 >= sizeof c->response) return -1;
                c->response[c->response_len++] = (char)*p++;
                n--;
                c->response[c->response_len] = 0;
                if (c->response_len >= 4 && memcmp(c->response + c->response_len - 4, "\r\n\r\n", 4) == 0) {
                    if (strncmp(c->response, "HTTP/1.1 101", 12) != 0) return -1;
                    c->state = RAW_WS_OPEN;
                }
            }
        }
        if (c->state == RAW_WS_OPEN && n && walk(c, p, n)) return -1;
        if ((size_t)r < cap) return 0;
    }
}

void raw_ws_close(raw_ws_t *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->state = RAW_WS_CLOSED;
}

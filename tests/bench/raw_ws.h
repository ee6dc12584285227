/* raw_ws: the fan-out probe's low-overhead WebSocket reader. It opens a
 * connection with a plain HTTP upgrade, then only walks frame headers:
 * payloads are counted and skipped, never copied or parsed, pings are
 * answered (the server closes a viewer that does not), and the cost per
 * frame is one read() and an epoll wake-up, shared by every frame that
 * arrived meanwhile. libwebsockets' client parses payloads byte by byte
 * (~20 µs per 2.6 kB frame on this machine), which made the probe, not the
 * server, the limit of the measurement. Not a general client: no
 * extensions, no TLS, server frames are assumed unmasked (RFC 6455). */
#ifndef SWARMCAST_RAW_WS_H
#define SWARMCAST_RAW_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { RAW_WS_CONNECTING, RAW_WS_UPGRADING, RAW_WS_OPEN, RAW_WS_CLOSED } raw_ws_state_t;

typedef struct raw_ws {
    int fd;
    raw_ws_state_t state;
    uint64_t frames, bytes; /* final binary frames completed, bytes read */
    /* Frame walker. */
    uint8_t head[14];
    size_t head_len;
    uint64_t payload_left;
    uint8_t opcode;      /* of the frame being walked (continuations keep the message's) */
    uint8_t msg_opcode;  /* of the message a continuation belongs to */
    bool fin;
    uint8_t control[125]; /* a ping's payload, to echo */
    size_t control_len;
    /* The upgrade response, until its blank line. */
    char response[512];
    size_t response_len;
} raw_ws_t;

/* Starts a non-blocking connection and sends the upgrade request once
 * connected (raw_ws_on_writable). 0, or -1. */
int raw_ws_connect(raw_ws_t *c, const char *host, int port, const char *protocol);
/* The socket became writable while connecting: sends the upgrade of path
 * ("/ws", "/ws?room=CODE"). 0 or -1. */
int raw_ws_on_writable(raw_ws_t *c, const char *host, const char *path, const char *protocol);
/* Reads what is there (buf is scratch space). 0, or -1 when the connection
 * ended (closed, refused, or not a WebSocket answer). */
int raw_ws_on_readable(raw_ws_t *c, uint8_t *buf, size_t cap);
void raw_ws_close(raw_ws_t *c);

#endif

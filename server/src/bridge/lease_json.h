/* lease_json: the JSON of a relay's view lease (protocol/PROTOCOL.md, "NATS
 * subjects (scaled set-up)"), both ways.
 *
 * Relay → sim on P.lease (a request; the reply subject is the relay's
 * P.reply.<tag>), one per room the relay serves ("room" absent: the
 * default room, whose lease is also the relay's heartbeat):
 *   {"relay":"<name>","tag":N[,"room":"CODE"],"views":[{"m":"d","l":L,"x0":..,"y0":..,"x1":..,"y1":..},...],"clients":n}
 * Sim → relay on that reply subject (plain JSON, no envelope), "to" naming
 * the request's relay (its name#instance) when the request parsed:
 *   {"ok":true,"tag":N,"to":"<relay>"[,"room":"CODE"],"views":[granted rect per asked view, same order],"hello":{...}[,"announce":true]}
 *   ("announce": the simulation holds more of this relay's viewers than it
 *   reports; the relay sends OPEN for each of its viewers again, and those
 *   not announced by the next lease are closed)
 *   {"ok":false,"error":"tag_taken","to":"<relay>"}   (or "bad_request", with no "to")
 *   {"ok":false,"error":"no_room","to":"<relay>","room":"CODE"}  (no such room here)
 *   {"ok":false,"error":"not_joined","to":"<relay>","room":"CODE"}  (a room's lease
 *   before the relay's heartbeat: the relay sends its heartbeat, then the room's)
 * Every relay of a tag hears that tag's answers: one takes only those to
 * itself (or to nobody), so that a live relay is not moved off its tag
 * by the refusal of another that asked for it.
 * Parsers are strict (json_strict first) and return 0, or -1. */
#ifndef SWARMCAST_LEASE_JSON_H
#define SWARMCAST_LEASE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/wire2.h"
#include "rooms/room_code.h"

#define LEASE_MAX_VIEWS 64   /* views one relay may lease */
#define LEASE_NAME_MAX 63    /* bytes of a relay's name */
#define LEASE_TAG_MAX 1023u

typedef struct lease_view {
    wire2_mode_t mode;
    wire2_rect_t rect;
} lease_view_t;

typedef struct lease_request {
    char relay[LEASE_NAME_MAX + 1];
    unsigned tag; /* 1 … LEASE_TAG_MAX */
    char room[ROOM_CODE_LEN + 1]; /* "": the default room */
    lease_view_t views[LEASE_MAX_VIEWS];
    size_t n_views;
    uint32_t clients;
} lease_request_t;

int lease_request_parse(const char *text, size_t len, lease_request_t *out);
/* malloc'd, or NULL. */
char *lease_request_format(const lease_request_t *req);

/* hello: the JSON object of the hello a v2 client would get (inserted as is);
 * to: the request's relay, or NULL; room: the room it leased ("" or NULL:
 * the default room). */
char *lease_reply_format(unsigned tag, const char *to, const char *room, const lease_view_t *granted, size_t n,
                         const char *hello, bool announce);
char *lease_reply_refusal(const char *error, const char *to, const char *room);

typedef struct lease_reply {
    bool ok;
    char error[32];     /* when !ok */
    char to[LEASE_NAME_MAX + 1]; /* the relay it answers, or "" when it names none */
    char room[ROOM_CODE_LEN + 1]; /* the room it answers for ("": the default room) */
    unsigned tag;
    lease_view_t views[LEASE_MAX_VIEWS];
    size_t n_views;
    char *hello;        /* malloc'd JSON text of the hello object (free it), or NULL */
    bool announce;      /* announce every viewer again (OPEN) */
} lease_reply_t;

int lease_reply_parse(const char *text, size_t len, lease_reply_t *out);

#endif

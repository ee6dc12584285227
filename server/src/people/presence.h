/* presence: who is here — each client's name, colour, role, target and
 * pointer — and the activity feed, the last few things people did, as
 * sentences. Loop thread only; plain state and JSON text, no I/O: the app
 * sends what presence_take_* hands it under net's newest-value keys, so a
 * slow reader gets the newest list once, never a backlog. Bounded by the
 * number of slots and PRESENCE_ACTIVITY. */
#ifndef SWARMCAST_PRESENCE_H
#define SWARMCAST_PRESENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/presence_decode.h"

/* Sentences the feed keeps. */
#define PRESENCE_ACTIVITY 20
/* Clients listed (and cursors sent) at most; "count" says how many are here.
 * A list of every one of thousands would cost each join a message of
 * hundreds of kilobytes to everyone. */
#define PRESENCE_LIST_MAX 100
/* The end of a sentence, after its subject's name ("set separation weight
 * to 2.5", "is now Ada"): room for "is now " and the longest name, so a
 * rename is told whole. */
#define PRESENCE_WHAT_BYTES 160
/* A sentence: a name, a space and what it did, NUL-terminated. Nothing a
 * name can be is ever cut; what is longer than this (no sentence the
 * server makes) is cut between characters (protocol/utf8.h). */
#define PRESENCE_SENTENCE_BYTES (PRESENCE_NAME_BYTES + PRESENCE_WHAT_BYTES)
_Static_assert(sizeof "is now " - 1 + PRESENCE_NAME_BYTES <= PRESENCE_WHAT_BYTES, "a rename must fit whole");

typedef struct presence presence_t;

presence_t *presence_new(size_t slots);
void presence_free(presence_t *p);

/* The names presence makes up, which presence_clean_name refuses as a
 * client's own: a client's until its hello ("Guest 7"), and a client no
 * longer here. Shown as they are; tests/fuzz checks a name that is not
 * clean is one of these. */
void presence_guest_name(uint32_t client_id, char out[PRESENCE_NAME_BYTES]);
#define PRESENCE_NOBODY "someone"

/* A client took a slot: a generated name ("Guest 7") and colour until it
 * says hello, and "Guest 7 joined" in the feed. */
void presence_join(presence_t *p, size_t slot, uint32_t client_id, bool operator, double now_s);
/* … and left ("Ada left"). */
void presence_leave(presence_t *p, size_t slot, uint32_t client_id, double now_s);
/* hello: a new name and/or colour (validated by presence_decode). A name
 * change is told in the feed. */
void presence_hello(presence_t *p, size_t slot, uint32_t client_id, const presence_msg_t *m, double now_s);
void presence_set_role(presence_t *p, size_t slot, uint32_t client_id, bool operator);
void presence_set_target(presence_t *p, size_t slot, uint32_t client_id, bool has, float x, float y);
void presence_cursor(presence_t *p, size_t slot, uint32_t client_id, float x, float y);
/* "<name of client_id> <what>" into the feed (what: "set separation
 * weight to 2.5", under PRESENCE_WHAT_BYTES); a client no longer here is
 * PRESENCE_NOBODY. */
void presence_activity(presence_t *p, uint32_t client_id, const char *what, double now_s);

/* The reply to a hello: {"type":"ack","id","cmd":"hello","tick","name","color"}
 * with the name and colour the client now has (malloc'd; NULL when it left). */
char *presence_hello_ack(const presence_t *p, size_t slot, uint32_t client_id, int64_t request_id, uint64_t tick);

/* The messages that changed since they were last taken (malloc'd; NULL
 * when unchanged or out of memory). Cursors are meant to be taken at most
 * ten times a second. */
char *presence_take_list(presence_t *p);
char *presence_take_activity(presence_t *p);
char *presence_take_cursors(presence_t *p);

#endif

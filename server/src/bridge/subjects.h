/* subjects: the NATS subject names of the scaled set-up (protocol/PROTOCOL.md,
 * "NATS subjects (scaled set-up)"), all under one prefix P (--nats-prefix).
 * A room's stream is under its stream prefix S: P for the default room,
 * P.r.<CODE> for room CODE (subject_room_prefix), so that no subject names
 * the process that steps the room:
 *   S.frame                          snapshot, once per bundle (after its views)
 *   S.view.<m>.<L>.<x0>.<y0>.<x1>.<y1>  one view's chunks per seq (m: d or l)
 *   S.news                           latest-key broadcasts
 *   S.shared                         an operator's shared moment (timeline share)
 * and the relays' own subjects, the same for every room (an envelope and a
 * lease name their room):
 *   P.lease.<tag>                    relay → sim lease requests
 *   P.cmd.<tag>                      relay → sim envelopes
 *   P.reply.<tag>                    sim → one relay
 * Every subject a relay publishes on or listens to for itself carries its
 * tag, so that NATS permissions can confine each relay's user to its own
 * (docker/nats.conf), and the simulation believes a relay only about the
 * tag of the subject it wrote on.
 * Each writer returns 0, or -1 when the name does not fit in cap (out is then
 * an empty string). */
#ifndef SWARMCAST_SUBJECTS_H
#define SWARMCAST_SUBJECTS_H

#include <stdbool.h>
#include <stddef.h>

#include "protocol/wire2.h"

#define SUBJECT_DEFAULT_PREFIX "swarmcast"
#define SUBJECT_MAX 256 /* a buffer this long holds any subject of a valid prefix */
#define SUBJECT_PREFIX_MAX 128
#define SUBJECT_TAG_MAX 1023u /* relay tags are 1 … 1023 */

/* A prefix is one or more dot-separated tokens of letters, digits, '-' and
 * '_' (no wildcard, no empty token), at most SUBJECT_PREFIX_MAX bytes. */
bool subject_prefix_valid(const char *prefix);

/* The stream prefix of room code ("" or NULL: the default room, whose is P
 * itself). -1 too for a code that is not one (room_code.h's alphabet). */
int subject_room_prefix(char *out, size_t cap, const char *prefix, const char *code);
/* The room streams' wildcard, P.r.> (for NATS permissions and tools). */
int subject_rooms_any(char *out, size_t cap, const char *prefix);

/* frame, news and view take a stream prefix (P, or a room's). */
int subject_frame(char *out, size_t cap, const char *prefix);
int subject_news(char *out, size_t cap, const char *prefix);
int subject_shared(char *out, size_t cap, const char *prefix);
int subject_lease(char *out, size_t cap, const char *prefix, unsigned tag);
int subject_cmd(char *out, size_t cap, const char *prefix, unsigned tag);
int subject_reply(char *out, size_t cap, const char *prefix, unsigned tag);
/* What the simulation subscribes to: every relay's P.lease.* and P.cmd.*. */
int subject_lease_any(char *out, size_t cap, const char *prefix);
int subject_cmd_any(char *out, size_t cap, const char *prefix);
/* The tag a subject ends with: its last token when that is 1 …
 * SUBJECT_TAG_MAX in decimal (no sign, no leading zero), else 0. */
unsigned subject_tag_of(const char *subject);
/* -1 too for an invalid rect or mode. */
int subject_view(char *out, size_t cap, const char *prefix, wire2_mode_t m, wire2_rect_t r);

#endif

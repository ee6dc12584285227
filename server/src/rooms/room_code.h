/* room_code: the short code a room is joined by, and the long token that
 * makes its operators.
 *
 * A code is 8 characters from an alphabet of 31 that leaves out the ones
 * people confuse when they read a code aloud or type it on a phone (0 and
 * O, 1, I and L): 31^8 ≈ 8.5e11 codes, about 39.6 bits. Case does not
 * matter, and the dashes, spaces and dots people type between groups are
 * ignored. Its canonical form is upper case without a dash ("K7PXM3QD");
 * people see it as two groups of four ("K7PX-M3QD"). PROTOCOL.md ("Rooms")
 * has the arithmetic of guessing one.
 *
 * A token is "r_" and 32 hexadecimal digits from the kernel's random
 * source (128 bits): guessing it is hopeless at any rate, so it needs no
 * per-address backoff that a shared NAT could trip; its prefix keeps it
 * apart from the server's control token.
 *
 * Plain functions; the random ones read getrandom(2). */
#ifndef SWARMCAST_ROOM_CODE_H
#define SWARMCAST_ROOM_CODE_H

#include <stdbool.h>
#include <stddef.h>

#define ROOM_CODE_LEN 8
#define ROOM_CODE_ALPHABET "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#define ROOM_TOKEN_PREFIX "r_"
#define ROOM_TOKEN_BYTES 34 /* the prefix and 32 hex digits */

/* The canonical code of what someone typed (out: ROOM_CODE_LEN + 1
 * bytes): false when it is not one (wrong length, a character outside the
 * alphabet). */
bool room_code_normalize(const char *typed, char *out);
/* A new random code (canonical); -1 when the kernel gives no randomness. */
int room_code_random(char *out);
/* The code as people read it: "K7PX-M3QD" (out: ROOM_CODE_LEN + 2 bytes). */
void room_code_display(const char *code, char *out);

/* A new random token (out: ROOM_TOKEN_BYTES + 1 bytes); -1 without randomness. */
int room_token_random(char *out);
/* Whether a token someone sent is shaped like a room token (its prefix):
 * such a one is compared with the room's token only, never with the
 * server's control token. */
bool room_token_shaped(const char *token);
/* Compares a sent token with the room's in a time that does not depend on
 * where they differ. */
bool room_token_equal(const char *sent, const char *room_token);

#endif

/* presence_name: what a person may be called (hello's "name"), the same in
 * the simulation and in every relay. A name is shown to everyone, in the
 * list, the activity feed and beside targets and pointers on the canvas, so
 * it must be visible, honest and cheap: no invisible characters that make
 * a blank name or two names that look the same, no label the page uses
 * for itself, a bounded size on the wire and on screen. The rule, in
 * protocol/PROTOCOL.md ("Names"):
 *  - refused: text that is not UTF-8; control characters (C0, DEL, C1);
 *    line and paragraph separators; bidirectional embeddings, overrides
 *    and isolates (U+202A–U+202E, U+2066–U+2069: they would reorder what
 *    is drawn after the name); private-use characters, noncharacters and
 *    unassigned code points;
 *  - removed: format and invisible characters (category Cf, the Default
 *    Ignorable Code Points — zero-width spaces and joiners, the soft
 *    hyphen, tags, fillers — and U+2800, the blank braille pattern), a
 *    variation selector not right after the character it varies, a
 *    combining mark with nothing to combine with, and combining marks past
 *    PRESENCE_NAME_MARKS on one character;
 *  - spaces (any Unicode space) become one U+0020 between words, none at
 *    either end; the text is put in Normalization Form C;
 *  - what is left must have a visible character (a letter, digit,
 *    punctuation mark or symbol) and at most PRESENCE_NAME_CHARS
 *    characters (code points): so at most 96 bytes, 48 columns;
 *  - refused as well, compared after NFKC case folding: the labels the
 *    page and the server use for people — "you", "someone", "operator",
 *    "visitor", "Guest N" (the server's generated names) and "#N" (a
 *    client without a name known). */
#ifndef SWARMCAST_PRESENCE_NAME_H
#define SWARMCAST_PRESENCE_NAME_H

#include <stddef.h>

/* A name: 1–24 characters (code points) once cleaned, in UTF-8; the
 * buffer holds 24 four-byte characters. */
#define PRESENCE_NAME_CHARS 24
#define PRESENCE_NAME_BYTES (PRESENCE_NAME_CHARS * 4 + 1)
/* Combining marks kept on one character: enough for Vietnamese, Hebrew
 * points or an Indic syllable, not for a tower of marks ("Zalgo") that
 * would draw over the lines above and below. */
#define PRESENCE_NAME_MARKS 3

/* Cleans a name by the rule above: 0 with out filled (NUL-terminated, at
 * most PRESENCE_NAME_BYTES − 1 bytes), or -1 with why in msg (printable
 * ASCII: it never quotes the name). Cleaning a cleaned name gives it back. */
int presence_clean_name(const char *in, char out[PRESENCE_NAME_BYTES], char *msg, size_t msg_len);

#endif

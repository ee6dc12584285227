/* utf8: whether bytes are well-formed UTF-8 (Unicode 15, table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF). net checks every
 * text message with it, rather than leaving it to libwebsockets, whose own
 * 1007 close leaves the session looking open to us (lws 4.1 then still
 * lets us write snapshots after its close frame). */
#ifndef SWARMCAST_UTF8_H
#define SWARMCAST_UTF8_H

#include <stdbool.h>
#include <stddef.h>

bool utf8_valid(const unsigned char *s, size_t len);

#endif

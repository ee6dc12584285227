/* install_paths: where an installed swarmcast finds its shared files. The
 * binary is PREFIX/bin/swarmcast and they are in PREFIX/share/swarmcast
 * (CMakeLists.txt's install rules), whatever PREFIX is: /usr from the
 * package, /usr/local from `cmake --install`, or a DESTDIR staging tree. */
#ifndef SWARMCAST_INSTALL_PATHS_H
#define SWARMCAST_INSTALL_PATHS_H

#include <stddef.h>

/* PREFIX/share/swarmcast/NAME beside the running binary, when it is a
 * directory: 0 with the path in buf; -1 otherwise (a build tree's binary). */
int install_share_dir(const char *name, char *buf, size_t len);

#endif

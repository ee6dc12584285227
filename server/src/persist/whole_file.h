/* whole_file: a small file read into memory at once. */
#ifndef SWARMCAST_WHOLE_FILE_H
#define SWARMCAST_WHOLE_FILE_H

#include <stddef.h>

/* The whole file, NUL-terminated, its length in *len; NULL with errno set on
 * failure. The caller frees it. */
char *whole_file_read(const char *path, size_t *len);

#endif

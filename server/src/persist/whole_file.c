/* whole_file: a small file (a scenario, an experiment) read into memory at
 * once, for the JSON readers. */
#include "persist/whole_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *whole_file_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            int saved = errno;
            free(buf);
            fclose(f);
            errno = saved ? saved : EIO;
            return NULL;
        }
        if (feof(f)) break;
        char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

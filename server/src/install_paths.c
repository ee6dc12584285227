#include "install_paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int install_share_dir(const char *name, char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0'; /* PREFIX/bin */
    slash = strrchr(exe, '/');
    if (!slash || strcmp(slash, "/bin") != 0) return -1;
    *slash = '\0'; /* PREFIX ("" for /bin) */
    struct stat st;
    if (snprintf(buf, len, "%s/share/swarmcast/%s", exe, name) >= (int)len || stat(buf, &st) || !S_ISDIR(st.st_mode))
        return -1;
    return 0;
}

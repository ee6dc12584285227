#include "machine.h"

#include <stdio.h>
#include <string.h>

const char *machine_instruction_set(void)
{
    /* A build for one level (SWARMCAST_KERNEL_ARCH) runs that level's code,
     * whatever more the CPU could do. */
#if defined(SWARMCAST_ONE_ARCH) && defined(__AVX512F__)
    return "x86-64-v4 (AVX-512), this build's only level";
#elif defined(SWARMCAST_ONE_ARCH) && defined(__AVX2__)
    return "x86-64-v3 (AVX2), this build's only level";
#elif defined(SWARMCAST_ONE_ARCH)
    return "x86-64 baseline (SSE2), this build's only level";
#elif defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return "x86-64-v4 (AVX-512)";
    if (__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3 (AVX2)";
    return "x86-64 baseline (SSE2)";
#else
    return "portable";
#endif
}

void machine_cpu_name(char *out, size_t len)
{
    snprintf(out, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            snprintf(out, len, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

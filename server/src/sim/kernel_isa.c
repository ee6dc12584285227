/* kernel_isa: the clone the loader picks is the highest level both the CPU
 * and the build have (clones.h). */
#include "sim/kernel_isa.h"

#include "sim/clones.h"

const char *kernel_isa(void)
{
#if KERNEL_TOP_LEVEL > 0
    __builtin_cpu_init();
    if (KERNEL_TOP_LEVEL >= 4 && __builtin_cpu_supports("x86-64-v4")) return "x86-64-v4 (AVX-512)";
    if (__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3 (AVX2)";
    return "x86-64 baseline (SSE2)";
#else
    return "the build's target (no clones)";
#endif
}

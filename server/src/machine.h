/* machine: the processor a figure or a result came from (the benchmarks
 * quote it beside every figure; an experiment's manifest records it). */
#ifndef SWARMCAST_MACHINE_H
#define SWARMCAST_MACHINE_H

#include <stddef.h>

/* The widest x86-64 level this processor runs (the kernel's variants are
 * compiled per level): "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2)", … */
const char *machine_instruction_set(void);
/* /proc/cpuinfo's first "model name", or "unknown CPU". */
void machine_cpu_name(char *out, size_t len);

#endif

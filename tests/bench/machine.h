/* machine: what the benchmarks print about the machine they ran on (every
 * figure is quoted with its processor and instruction set). */
#ifndef SWARMCAST_BENCH_MACHINE_H
#define SWARMCAST_BENCH_MACHINE_H

#include <stddef.h>

/* The widest x86-64 level this processor runs (the kernel's variants are
 * compiled per level): "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2)", … */
const char *bench_instruction_set(void);
/* /proc/cpuinfo's first "model name", or "unknown CPU". */
void bench_cpu_name(char *out, size_t len);

#endif

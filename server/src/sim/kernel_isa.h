/* kernel_isa: which build of the kernels (clones.h) this program runs on
 * this CPU, for benchmarks and manifests to name. */
#ifndef SWARMCAST_KERNEL_ISA_H
#define SWARMCAST_KERNEL_ISA_H

/* "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2)", "x86-64 baseline (SSE2)",
 * or, without clones, "the build's target (no clones)". */
const char *kernel_isa(void);

#endif

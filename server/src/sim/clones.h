/* clones: hot functions built once per x86-64 level (AVX-512, AVX2,
 * baseline), the best one the CPU runs picked when the program loads. */
#ifndef SWARMCAST_CLONES_H
#define SWARMCAST_CLONES_H

/* The neighbour kernel is written for 8-lane vectors. Where the compiler can
 * (GCC/Clang on x86-64), functions marked KERNEL_CLONES are built three times — AVX-512,
 * AVX2 and baseline — and the best one the CPU runs is picked at load time.
 * Every version does the same IEEE operations in the same order, so they
 * produce the same bits; only their speed differs. Sanitizer builds keep one
 * version: the clones' resolver runs before the sanitizer runtime is up.
 *
 * SWARMCAST_KERNEL_AVX2 (CMake option of the same name; always for
 * swarmcast-bench-avx2) leaves the AVX-512 version out: on an AVX-512
 * machine the program then runs the kernels an AVX2 machine runs. The
 * pick is made by the loader, before any of the program's code runs, so
 * it is a build's choice, not a run's. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#ifdef SWARMCAST_KERNEL_AVX2
#define KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define KERNEL_TOP_LEVEL 3
#else
#define KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define KERNEL_TOP_LEVEL 4
#endif
#endif
#endif
#ifndef KERNEL_CLONES
#define KERNEL_CLONES
#define KERNEL_TOP_LEVEL 0 /* one version, for the build's own target */
#endif

#endif

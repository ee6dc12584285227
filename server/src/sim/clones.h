/* clones: hot functions built once per x86-64 level (AVX-512, AVX2,
 * baseline), the best one the CPU runs picked when the program loads. */
#ifndef SWARMCAST_CLONES_H
#define SWARMCAST_CLONES_H

/* The neighbour kernel is written for 8-lane vectors. Where the compiler can
 * (GCC/Clang on x86-64), functions marked KERNEL_CLONES are built three times — AVX-512,
 * AVX2 and baseline — and the best one the CPU runs is picked at load time.
 * Every version does the same IEEE operations in the same order, so they
 * produce the same bits; only their speed differs. Sanitizer builds keep one
 * version: the clones' resolver runs before the sanitizer runtime is up. */
#if defined(__x86_64__) && defined(__has_attribute)
/* SWARMCAST_ONE_ARCH (cmake -DSWARMCAST_KERNEL_ARCH=x86-64-v3): one
 * version, built for that level, e.g. to measure the AVX2 kernels on an
 * AVX-512 machine. */
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) &&           \
    !defined(SWARMCAST_ONE_ARCH)
#define KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef KERNEL_CLONES
#define KERNEL_CLONES
#endif

#endif

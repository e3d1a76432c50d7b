#ifndef KB_EXPR_KERNEL_COMPILE_H
#define KB_EXPR_KERNEL_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/kernel_source.h"
#include "kbench/error.h"
#include "kbench/simd.h"

/* Compiled kernels (docs/fusion.md, "Compiled kernels"): a kernel's C source (kb_ck_source)
 * compiled by the C compiler kbench was built with (KB_CC names another) into a shared object
 * in the cache directory (core/cache_dir.h, under kernels/), loaded, and kept for the
 * process. The object's name is a hash of the source, the headers it includes (from the
 * source tree kbench was built from), the level's flags and the compiler, so that a changed
 * header or compiler makes a new one and a cached one is reused by every later process.
 *
 * Whether fused expressions use them, from KB_COMPILE: "0" never, "1" for every kernel they
 * can compute, unset or "auto" for kernels of at least KB_CK_AUTO_MIN elements, where a
 * compilation (a fraction of a second, once per machine) pays for itself within a few calls.
 * Any other value is an error (KB_EINVAL). */
enum { KB_CK_NEVER, KB_CK_ALWAYS, KB_CK_AUTO };
#define KB_CK_AUTO_MIN ((int64_t)1 << 16)
kb_status kb_ck_policy(int *policy);

/* The function of kernel k compiled for level (AVX2, AVX-512 or NEON), from this process's table
 * (without writing its source again), the cache, or the compiler. KB_EUNSUPPORTED with the
 * reason when it cannot be had: a kernel kb_ck_source cannot write, no cache directory, the
 * source tree or the compiler missing, the compiler failing (its first words quoted); a reason
 * that holds for every kernel (no compiler) is given at once thereafter, while KB_CC is the
 * same. */
kb_status kb_ck_compile(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn);

#endif

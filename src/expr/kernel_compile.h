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
 * process. The headers the source includes are this build's, carried in the library and
 * written beside the objects. An object's name is a hash of what it depends on (the source,
 * those headers, the command line, the compiler's and sleef.h's size and time of change), so
 * that a changed header, flag or compiler makes a new one and every later process reuses it.
 * Only an object this user owns and no one else may write is loaded; one that does not load is
 * compiled again, once.
 *
 * Whether fused expressions use them, from KB_COMPILE: "0" never, "1" for every kernel they
 * can compute, unset or "auto" for kernels of at least KB_CK_AUTO_MIN elements, where a
 * compilation (a fraction of a second, once per machine) pays for itself within a few calls.
 * Any other value is an error (KB_EINVAL). */
enum { KB_CK_NEVER, KB_CK_ALWAYS, KB_CK_AUTO };
#define KB_CK_AUTO_MIN ((int64_t)1 << 16)
kb_status kb_ck_policy(int *policy);

/* The function of kernel k compiled for level (AVX2, AVX-512 or NEON), from this process's
 * table (without writing its source again), the cache, or the compiler. KB_EUNSUPPORTED with the
 * reason when it cannot be had: a kernel kb_ck_source cannot write, no cache directory, the
 * compiler missing or failing (its first words quoted), an object that does not load. A failed
 * kernel is remembered, and a compiler that cannot be run, while KB_CC names it: the reason is
 * given at once thereafter, without compiling again. */
kb_status kb_ck_compile(const kb_ck *k, kb_simd_level level, kb_ck_fn *fn);

#endif

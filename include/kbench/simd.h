#ifndef KBENCH_SIMD_H
#define KBENCH_SIMD_H

#include <stdbool.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The instruction-set level kernels dispatch to. It is process-wide: set from the KB_SIMD
 * environment variable (auto, scalar, avx2, avx512, neon, sve) on first use, or with
 * kb_simd_set. Asking for a level that this build did not compile or this CPU cannot run
 * is an error, never a silent fallback. */
typedef enum kb_simd_level {
    KB_SIMD_SCALAR,
    KB_SIMD_AVX2,   /* AVX2 + FMA */
    KB_SIMD_AVX512, /* AVX-512 F, BW, DQ, VL */
    KB_SIMD_NEON,
    KB_SIMD_SVE,
    KB_SIMD_LEVEL_COUNT
} kb_simd_level;

const char *kb_simd_name(kb_simd_level level);

/* Parses a level name; "auto" gives KB_SIMD_AUTO_REQUEST. */
#define KB_SIMD_AUTO_REQUEST (-1)
kb_status kb_simd_parse(const char *name, int *request);

bool kb_simd_compiled(kb_simd_level level);  /* this build has kernels for it */
bool kb_simd_available(kb_simd_level level); /* compiled and the CPU can run it */
kb_simd_level kb_simd_best(void);            /* the best available level */

/* Sets the level; KB_SIMD_AUTO_REQUEST picks kb_simd_best(). */
kb_status kb_simd_set(int request);

/* The level in force, resolving KB_SIMD on first use. Fails when KB_SIMD names an unknown
 * or unavailable level, so that a misspelt setting never falls back silently. */
kb_status kb_simd_current(kb_simd_level *out);

#ifdef __cplusplus
}
#endif

#endif

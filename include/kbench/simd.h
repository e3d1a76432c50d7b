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
 * is an error, never a silent fallback. Each architecture's levels come from narrowest to
 * widest. */
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

/* This build compiles the level: its own kernels, or its fallback's (kb_simd_table_level). */
bool kb_simd_compiled(kb_simd_level level);
bool kb_simd_available(kb_simd_level level); /* compiled and the CPU can run it */
kb_simd_level kb_simd_best(void);            /* the best available level */

/* Sets the level; KB_SIMD_AUTO_REQUEST picks kb_simd_best(). */
kb_status kb_simd_set(int request);

/* The level in force, resolving KB_SIMD on first use. Fails when KB_SIMD names an unknown
 * or unavailable level, so that a misspelt setting never falls back silently. */
kb_status kb_simd_current(kb_simd_level *out);

/* The kernel families that dispatch on the level, each with a table of kernels for some
 * levels. */
typedef enum kb_simd_family {
    KB_SIMD_FAMILY_REDUCE,      /* the float32 and float64 reduction loops (kb_reduce) */
    KB_SIMD_FAMILY_BANDWIDTH,   /* the bandwidth peak sweeps (kb_bw_run) */
    KB_SIMD_FAMILY_FMA,         /* the FLOP peak chains (kb_fma_run) */
    KB_SIMD_FAMILY_ELEMENTWISE, /* the float32 and float64 elementwise loops (expressions) */
    KB_SIMD_FAMILY_COUNT
} kb_simd_family;

/* "reduce", "bandwidth", "fma", "elementwise" */
const char *kb_simd_family_name(kb_simd_family family);

/* The one fallback rule: a family with no table of its own at the level in force runs the
 * table of the level's fallback, and so on down to scalar, which every family has. Every CPU
 * that runs a level runs its fallback: sve falls back to neon, avx512 to avx2, avx2 and neon to
 * scalar, and scalar is its own. SVE has no kernels of its own yet, so every family runs its
 * NEON table at the SVE level. The rule picks tables behind an available level; it never
 * turns a request for a level the build or CPU lacks into another level. */
kb_simd_level kb_simd_fallback(kb_simd_level level);

/* The level whose table the family runs when level is in force: level itself, or the first
 * level down its fallback chain that has one in this build. Scalar for an unknown family or
 * level. */
kb_simd_level kb_simd_table_level(kb_simd_family family, kb_simd_level level);

#ifdef __cplusplus
}
#endif

#endif

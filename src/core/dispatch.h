#ifndef KB_CORE_DISPATCH_H
#define KB_CORE_DISPATCH_H

/* The dispatch registry: every SIMD level, every kernel family that dispatches on it, and
 * the levels each family has a table of kernels for. It is the only place that reads the
 * build's KB_BUILD_<LEVEL> macros (cmake/simd.cmake); core/simd.c derives the kb_simd API
 * from it, and each family fills its array of tables from its list below, so that no other
 * file keeps a switch over levels or an #ifdef of its own.
 *
 * The fallback rule, the same for every family: a family that has no table at the level in
 * force runs the table of the level's fallback, and so on down the chain to scalar, which
 * every family has. A level's fallback is one that every CPU running the level also runs,
 * and that every build compiling the level also compiles (both checked in core/simd.c). At
 * the SVE level the reductions run SVE kernels built for the CPU's vector length
 * (kernels/reduce_sve.c), and the bandwidth and FMA kernels their NEON tables, which reach
 * the same throughput on the SVE cores shipped so far; kb_simd_table_level tells which
 * table runs. The rule never touches the choice of
 * level: asking for a level that the build or the CPU lacks stays an error (kb_simd_set). */

#include <stdatomic.h>
#include <stdbool.h>

#include "kbench/simd.h"

/* The level calls run at once kb_simd_set or KB_SIMD made it known (core/simd.c), -1 before;
 * kb_simd_known reads it without a call, ahead of kb_simd_current, for small calls whose
 * whole cost is a few nanoseconds (kernels/reduce.c). */
extern _Atomic int kb_simd_now;
static inline bool kb_simd_known(kb_simd_level *out) {
    int now = atomic_load_explicit(&kb_simd_now, memory_order_relaxed);
    *out = (kb_simd_level)now;
    return now >= 0;
}

/* One row per level, in kb_simd_level's order:
 *   X(ID, name, built, arch, cpu, fallback)
 * ID: the suffix of KB_SIMD_<ID>; name: as KB_SIMD and the results files spell it; built:
 * 1 when this build compiles the level; arch: the architecture it belongs to (ANY, X86_64,
 * AARCH64); cpu: what the CPU must offer, an expression over the kb_cpu_features *f; fallback:
 * the level whose tables stand in for missing ones. Each architecture's levels come from
 * narrowest to widest, so the best level a machine runs is the last one it can. */
#define KB_SIMD_LEVELS(X)                                                                          \
    X(SCALAR, scalar, 1, ANY, true, SCALAR)                                                        \
    X(AVX2, avx2, KB_SIMD_BUILT_AVX2, X86_64, f->avx2 && f->fma && f->f16c, SCALAR)                \
    X(AVX512, avx512, KB_SIMD_BUILT_AVX512, X86_64,                                                \
      f->avx2 && f->fma && f->f16c && f->avx512f && f->avx512bw && f->avx512dq && f->avx512vl,     \
      AVX2)                                                                                        \
    X(NEON, neon, KB_SIMD_BUILT_NEON, AARCH64, f->neon, SCALAR)                                    \
    X(SVE, sve, KB_SIMD_BUILT_SVE, AARCH64, f->sve, NEON)

#ifdef KB_BUILD_AVX2
#define KB_SIMD_BUILT_AVX2 1
#else
#define KB_SIMD_BUILT_AVX2 0
#endif
#ifdef KB_BUILD_AVX512
#define KB_SIMD_BUILT_AVX512 1
#else
#define KB_SIMD_BUILT_AVX512 0
#endif
#ifdef KB_BUILD_NEON
#define KB_SIMD_BUILT_NEON 1
#else
#define KB_SIMD_BUILT_NEON 0
#endif
#ifdef KB_BUILD_SVE
#define KB_SIMD_BUILT_SVE 1
#else
#define KB_SIMD_BUILT_SVE 0
#endif
#define KB_SIMD_BUILT_SCALAR 1

/* 1 for the architecture this file is compiled for. */
#define KB_SIMD_ARCH_ANY 1
#if defined(__x86_64__) || defined(_M_X64)
#define KB_SIMD_ARCH_X86_64 1
#else
#define KB_SIMD_ARCH_X86_64 0
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define KB_SIMD_ARCH_AARCH64 1
#else
#define KB_SIMD_ARCH_AARCH64 0
#endif

/* One row per family, in kb_simd_family's order: X(ID, name, TABLES), TABLES being the
 * family's list of levels with a table of their own. */
#define KB_SIMD_FAMILIES(X)                                                                        \
    X(REDUCE, reduce, KB_SIMD_REDUCE_TABLES)                                                       \
    X(BANDWIDTH, bandwidth, KB_SIMD_BANDWIDTH_TABLES)                                              \
    X(FMA, fma, KB_SIMD_FMA_TABLES)                                                                \
    X(ELEMENTWISE, elementwise, KB_SIMD_ELEMENTWISE_TABLES)

/* Each family's levels, X(ID, name): the float reduction loops of kernels/reduce_<name>.c,
 * the bandwidth sweeps of machine/peaks/bandwidth_<name>.c, the FMA chains of
 * machine/peaks/fma_<name>.c and the elementwise loops of kernels/ew_float_<name>.c. A level listed
 * here that the build does not compile has no table (KB_SIMD_TABLE_ENTRY leaves it out). */
#define KB_SIMD_REDUCE_TABLES(X)                                                                   \
    X(SCALAR, scalar) X(AVX2, avx2) X(AVX512, avx512) X(NEON, neon) X(SVE, sve)
#define KB_SIMD_BANDWIDTH_TABLES(X) X(SCALAR, scalar) X(AVX2, avx2) X(AVX512, avx512) X(NEON, neon)
#define KB_SIMD_FMA_TABLES(X) X(SCALAR, scalar) X(AVX2, avx2) X(AVX512, avx512) X(NEON, neon)
/* The float elementwise loops of kernels/ew_float_<name>.c; SVE runs NEON's, as SLEEF's SVE
 * functions are built for one vector length and the loops would need one build per length. */
#define KB_SIMD_ELEMENTWISE_TABLES(X)                                                              \
    X(SCALAR, scalar) X(AVX2, avx2) X(AVX512, avx512) X(NEON, neon)

/* `[KB_SIMD_<ID>] = value,` when this build compiles level ID, else nothing: how a family
 * fills its array of tables, indexed by level, from its list:
 *     #define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, &kb_bw_kernels_##name)
 *     static const kb_bw_kernels *const tables[KB_SIMD_LEVEL_COUNT] = {
 *         KB_SIMD_BANDWIDTH_TABLES(TABLE)};
 * and then runs tables[kb_simd_table_level(KB_SIMD_FAMILY_BANDWIDTH, level)]. */
#define KB_SIMD_TABLE_ENTRY(ID, value) KB_SIMD_IF_(KB_SIMD_BUILT_##ID, [KB_SIMD_##ID] = value, )
#define KB_SIMD_IF_(flag, ...) KB_SIMD_IF_EXPANDED_(flag, __VA_ARGS__)
#define KB_SIMD_IF_EXPANDED_(flag, ...) KB_SIMD_IF_##flag##_(__VA_ARGS__)
#define KB_SIMD_IF_0_(...)
#define KB_SIMD_IF_1_(...) __VA_ARGS__

#endif

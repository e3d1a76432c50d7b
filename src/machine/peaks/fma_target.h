#ifndef KB_MACHINE_PEAKS_FMA_TARGET_H
#define KB_MACHINE_PEAKS_FMA_TARGET_H

/* The FMA chains (fma_kernels.h) written once over the vector layer (simd/internal.h); each
 * fma_<target>.c defines KB_VEC_<TARGET>, includes this header under its target's flags and
 * names the table.
 *
 * Every FMA pipe times its latency must have a chain in flight: two pipes of 4 cycles on the
 * x86 cores, four on Neoverse V1/V2 and Apple's cores. Sixteen chains cover both where the
 * target has 32 vector registers; with 16 registers (AVX2), twelve, with two registers left for
 * the constants. The chains are an array, which the fully unrolled loops keep in registers as
 * named variables would be. */

#include <stdint.h>

#include "simd/internal.h"
#include "machine/peaks/fma_kernels.h"

#define FMA_ACCUMULATORS (KB_VEC_REGISTERS >= 32 ? 16 : 12)

#define DEFINE_FMA_CHAIN(S, T)                                                                     \
    static double chain_##S(int64_t iterations, const kb_fma_params *p) {                          \
        enum { W = (int)(sizeof(v##S) / sizeof(T)), N = FMA_ACCUMULATORS };                        \
        const v##S a = v##S##_set1((T)p->a), b = v##S##_set1((T)p->b);                             \
        T v[N * W];                                                                                \
        for (int k = 0; k < N * W; k++)                                                            \
            v[k] = (T)(p->init + k * p->step);                                                     \
        v##S x[N];                                                                                 \
        _Pragma("GCC unroll 16") for (int k = 0; k < N; k++) x[k] = v##S##_load(v + W * k);        \
        for (int64_t it = 0; it < iterations; it++)                                                \
            _Pragma("GCC unroll 16") for (int k = 0; k < N; k++) x[k] = v##S##_fma(x[k], a, b);    \
        _Pragma("GCC unroll 16") for (int k = 0; k < N; k++) v##S##_store(v + W * k, x[k]);        \
        double sum = 0;                                                                            \
        for (int k = 0; k < N * W; k++)                                                            \
            sum += (double)v[k];                                                                   \
        return sum;                                                                                \
    }

DEFINE_FMA_CHAIN(f32, float)
DEFINE_FMA_CHAIN(f64, double)

#define KB_FMA_KERNELS_TABLE                                                                       \
    { chain_f32, chain_f64, VF32_LANES, VF64_LANES, FMA_ACCUMULATORS }

#endif

#ifndef KB_MACHINE_PEAKS_FMA_KERNELS_H
#define KB_MACHINE_PEAKS_FMA_KERNELS_H

#include <stdint.h>

/* The FMA chains, one set per instruction set (fma_<isa>.c). The parameters come in at run
 * time, through a pointer to another translation unit, so the compiler cannot fold the chain;
 * the chain's result is returned and checked by the tests, so it cannot drop it either. */
typedef struct kb_fma_params {
    double a, b, init, step; /* x = x * a + b from lane k's init + k * step */
} kb_fma_params;

/* Runs the chains and returns the sum of every lane's final value. */
typedef double (*kb_fma_chain_fn)(int64_t iterations, const kb_fma_params *params);

typedef struct kb_fma_kernels {
    kb_fma_chain_fn f32, f64;
    int lanes_f32, lanes_f64; /* per vector */
    int accumulators;         /* independent vectors */
} kb_fma_kernels;

/* One table per level, defined in its file when the level is compiled; the levels with a
 * table are listed in the dispatch registry (core/dispatch.h). */
extern const kb_fma_kernels kb_fma_kernels_scalar;
extern const kb_fma_kernels kb_fma_kernels_avx2;
extern const kb_fma_kernels kb_fma_kernels_avx512;
extern const kb_fma_kernels kb_fma_kernels_neon;

/* Spells out an operation for each accumulator, so that each is a named variable the compiler
 * keeps in a register rather than an array it might leave in memory. */
#define KB_FMA_EACH12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define KB_FMA_EACH16(X) KB_FMA_EACH12(X) X(12) X(13) X(14) X(15)

#endif

#ifndef KB_MACHINE_PEAKS_BANDWIDTH_KERNELS_H
#define KB_MACHINE_PEAKS_BANDWIDTH_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cache_size.h"

/* The inner loops of the bandwidth kernels, one set per instruction set (bandwidth_<isa>.c,
 * each compiled with its own flags). One call is one sweep over n elements; the driver
 * (bandwidth.c) repeats them. The numbers are those of the code kernels are written as, which
 * treats memory by where the working set is (reach, core/cache_size.h), and so do these: plain
 * loads and stores in the caches; from memory (far) prefetches KB_FAR_AHEAD_BYTES ahead of each
 * line read or written; beyond the last-level cache, non-temporal stores for the written array
 * and prefetches KB_NT_AHEAD_BYTES ahead of the lines read. Without them, kbench's own sums and
 * elementwise loops stream memory faster than the peaks they are held against
 * (docs/roofline.md). */
typedef struct kb_bw_kernels {
    /* streams > 1: a read as that many parts at once, a step of each in turn, as the
     * reductions read long rows (KB_VEC_STREAMS, simd/internal.h) */
    double (*load)(const double *a, int64_t n, kb_reach reach, int streams);
    void (*copy)(double *a, const double *b, int64_t n, kb_reach reach);
    void (*triad)(double *a, const double *b, const double *c, double s, int64_t n, kb_reach reach);
    bool nt_stores; /* whether copy and triad store non-temporally beyond the last level */
    int streams;    /* the parts load reads at once in its second layout; 1: one layout only */
} kb_bw_kernels;

/* One table per level, defined in its file when the level is compiled; the levels with a
 * table are listed in the dispatch registry (core/dispatch.h). */
extern const kb_bw_kernels kb_bw_kernels_scalar;
extern const kb_bw_kernels kb_bw_kernels_avx2;
extern const kb_bw_kernels kb_bw_kernels_avx512;
extern const kb_bw_kernels kb_bw_kernels_neon;

#endif

#ifndef KB_MACHINE_PEAKS_BANDWIDTH_KERNELS_H
#define KB_MACHINE_PEAKS_BANDWIDTH_KERNELS_H

#include <stdint.h>

/* The inner loops of the bandwidth kernels, one set per instruction set (bandwidth_<isa>.c,
 * each compiled with its own flags). One call is one sweep over n elements; the driver
 * (bandwidth.c) repeats them. Plain loads and stores: no non-temporal stores and no software
 * prefetch, so that the numbers are those of the code kernels are written as. */
typedef struct kb_bw_kernels {
    double (*load)(const double *a, int64_t n);
    void (*copy)(double *a, const double *b, int64_t n);
    void (*triad)(double *a, const double *b, const double *c, double s, int64_t n);
} kb_bw_kernels;

/* One table per level, defined in its file when the level is compiled; the levels with a
 * table are listed in the dispatch registry (core/dispatch.h). */
extern const kb_bw_kernels kb_bw_kernels_scalar;
extern const kb_bw_kernels kb_bw_kernels_avx2;
extern const kb_bw_kernels kb_bw_kernels_avx512;
extern const kb_bw_kernels kb_bw_kernels_neon;

#endif

#ifndef KB_MACHINE_PEAKS_BANDWIDTH_TARGET_H
#define KB_MACHINE_PEAKS_BANDWIDTH_TARGET_H

/* The bandwidth kernels (bandwidth_kernels.h) written once over the vector layer
 * (simd/internal.h); each bandwidth_<target>.c defines KB_VEC_<TARGET>, includes this header
 * under its target's flags and names the table.
 *
 * An iteration reads BW_VECTORS vectors, at least four and at least 128 bytes: four 512-bit
 * vectors (four cache lines) as likwid-bench's load_avx512 does, four 256-bit vectors as its
 * load_avx does, eight 128-bit vectors on NEON, whose server cores load three vectors per
 * cycle. load keeps as many independent sums, so that no add waits on the one before it. */

#include <stdbool.h>
#include <stdint.h>

#include "simd/internal.h"
#include "machine/peaks/bandwidth_kernels.h"

enum {
    BW_VECTORS = VF64_LANES * 8 * 4 >= 128 ? 4 : 128 / (VF64_LANES * 8),
    BW_STEP = BW_VECTORS * VF64_LANES, /* elements per iteration */
    BW_LINE = 64,                      /* bytes a prefetch brings, at least */
    /* load's independent sums: two per vector an iteration reads. With four, an add's latency
     * (3 to 4 cycles) let at most four vectors start in that time, fewer than two load ports
     * take (Zen 4, one thread, 16 KiB: 183-200 GB/s with four, where reductions read 205). */
    BW_SUMS = 2 * BW_VECTORS,
};

/* streams > 1: the array as that many parts of whole iterations, read an iteration of each in
 * turn (what is left after them, alone), into the same sums, without the prefetches, as the
 * reductions read several rows (reduce_sum.h). */
static double load(const double *a, int64_t n, kb_reach reach, int streams) {
    enum { STEP = BW_SUMS * VF64_LANES };
    bool far = reach != KB_REACH_CACHE;
    vf64 s[BW_SUMS];
    for (int k = 0; k < BW_SUMS; k++)
        s[k] = vf64_zero();
    int64_t part = n / streams / STEP * STEP, i = 0;
    for (; i < part; i += STEP)
        for (int q = 0; q < streams; q++) {
            const double *p = a + q * part + i;
            if (far && streams == 1)
                for (int b = 0; b < STEP * (int)sizeof(double); b += BW_LINE)
                    __builtin_prefetch((const char *)p + b + KB_FAR_AHEAD_BYTES, 0, 2);
            for (int k = 0; k < BW_SUMS; k++)
                s[k] = vf64_add(s[k], vf64_load(p + k * VF64_LANES));
        }
    for (i = streams * part; i + STEP <= n; i += STEP)
        for (int k = 0; k < BW_SUMS; k++)
            s[k] = vf64_add(s[k], vf64_load(a + i + k * VF64_LANES));
    for (int h = BW_SUMS / 2; h > 0; h /= 2)
        for (int k = 0; k < h; k++)
            s[k] = vf64_add(s[k], s[k + h]);
    double total = vf64_hsum(s[0]);
    for (; i < n; i++)
        total += a[i];
    return total;
}

/* With far, an iteration prefetches the lines KB_FAR_AHEAD_BYTES past those it reads, for
 * reading, and past those it writes, for writing: a loop of plain 512-bit loads and stores
 * streamed memory at 23-26 GB/s where the same loop with these prefetches did at 33-34
 * (Zen 4, one thread, a + b into a third array of 64 MiB each). */
static inline void prefetch_step(const double *p, int write) {
    for (int b = 0; b < BW_STEP * (int)sizeof(double); b += BW_LINE)
        if (write)
            __builtin_prefetch((const char *)p + b + KB_FAR_AHEAD_BYTES, 1, 2);
        else
            __builtin_prefetch((const char *)p + b + KB_FAR_AHEAD_BYTES, 0, 2);
}

/* Beyond the last-level cache, elementwise loops write with non-temporal stores and prefetch
 * their reads KB_NT_AHEAD_BYTES ahead (kernels/ew_float_target.h), and so do copy and triad
 * there, where a is aligned for them. */
static inline bool nt_stores(const double *a, kb_reach reach) {
    return reach == KB_REACH_BEYOND && (uintptr_t)a % KB_NT_ALIGN == 0;
}
static inline void prefetch_nt_step(const double *p) {
    for (int b = 0; b < BW_STEP * (int)sizeof(double); b += BW_LINE)
        __builtin_prefetch((const char *)p + b + KB_NT_AHEAD_BYTES, 0, 0);
}

static void copy(double *restrict a, const double *restrict b, int64_t n, kb_reach reach) {
    int64_t i = 0;
    if (nt_stores(a, reach)) {
        for (; i + BW_STEP <= n; i += BW_STEP) {
            prefetch_nt_step(b + i);
            for (int k = 0; k < BW_VECTORS; k++)
                vf64_store_nt(a + i + k * VF64_LANES, vf64_load(b + i + k * VF64_LANES));
        }
        kb_nt_fence();
    }
    bool far = reach != KB_REACH_CACHE;
    for (; i + BW_STEP <= n; i += BW_STEP) {
        if (far) {
            prefetch_step(b + i, 0);
            prefetch_step(a + i, 1);
        }
        vf64 v[BW_VECTORS];
        for (int k = 0; k < BW_VECTORS; k++)
            v[k] = vf64_load(b + i + k * VF64_LANES);
        for (int k = 0; k < BW_VECTORS; k++)
            vf64_store(a + i + k * VF64_LANES, v[k]);
    }
    for (; i < n; i++)
        a[i] = b[i];
}

static void triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                  int64_t n, kb_reach reach) {
    vf64 vs = vf64_set1(s);
    int64_t i = 0;
    if (nt_stores(a, reach)) {
        for (; i + BW_STEP <= n; i += BW_STEP) {
            prefetch_nt_step(b + i);
            prefetch_nt_step(c + i);
            for (int k = 0; k < BW_VECTORS; k++)
                vf64_store_nt(a + i + k * VF64_LANES,
                              vf64_fma(vs, vf64_load(c + i + k * VF64_LANES),
                                       vf64_load(b + i + k * VF64_LANES)));
        }
        kb_nt_fence();
    }
    bool far = reach != KB_REACH_CACHE;
    for (; i + BW_STEP <= n; i += BW_STEP) {
        if (far) {
            prefetch_step(b + i, 0);
            prefetch_step(c + i, 0);
            prefetch_step(a + i, 1);
        }
        for (int k = 0; k < BW_VECTORS; k++)
            vf64_store(a + i + k * VF64_LANES, vf64_fma(vs, vf64_load(c + i + k * VF64_LANES),
                                                        vf64_load(b + i + k * VF64_LANES)));
    }
    for (; i < n; i++)
        a[i] = b[i] + s * c[i];
}

#define KB_BW_KERNELS_TABLE                                                                        \
    { load, copy, triad, KB_VEC_NT_STORES, KB_VEC_STREAMS }

#endif

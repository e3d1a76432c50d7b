#ifndef KB_KERNELS_REDUCE_SUM_H
#define KB_KERNELS_REDUCE_SUM_H

/* The sum kernels of the float reductions (run and cols, see reduce_kernels.h), written once
 * over the vector layer (simd/internal.h) and compiled by each per-target file
 * (reduce_avx2.c, reduce_avx512.c, reduce_neon.c), which includes this header after the layer.
 *
 * Accuracy at the speed of the input type. Each lane adds at most KB_SUM_DEPTH (16) elements
 * in the input's own type before its partial sum is folded into double accumulators, so
 * float32 is read at float32 speed (no widening per element) and the error is that of 16
 * float32 additions per partial, far below the sequential float32 sums NumPy does along
 * outer axes, and no worse than the 16-element leaves of its pairwise sum along the inner
 * one (docs/reductions.md). float64 folds the same way, which costs one add per 16 vectors.
 *
 * Why the loops have the shape they have:
 *  - a run keeps four vector accumulators in flight, so an add's latency never stalls the
 *    loads;
 *  - cols walks KB_SUM_DEPTH rows at a time across every column tile before moving on, so
 *    memory sees that many sequential streams (what DRAM prefetchers follow) and each tile's
 *    accumulators stay in registers for the 16 rows, then fold into the double accumulators
 *    in memory once;
 *  - adjacent narrow rows (an (N, m) array with m smaller than a few vectors) are one run in
 *    which a lane always holds the same column (narrow_acc, reduce_lanes.h), so they stream
 *    as a run.
 * The includer has included reduce_lanes.h (narrow blocks) and the vector layer first. */

#include <stdint.h>
#include <string.h>

#include "kernels/reduce_kernels.h"
#include "kernels/reduce_lanes.h"

#define KB_SUM_DEPTH 16
#define KB_SUM_NACC 4  /* accumulators of a run */
#define KB_SUM_NTILE 8 /* vectors of a cols tile */

#define SUM_ROW(T, x, i, stride) ((const T *)(const void *)((x) + (i) * (stride)))
#define SUM_UNROLL _Pragma("GCC unroll 16")

/* The element vector of each input type, and how its lanes fold into double. */
typedef vf32 vsum_f32;
typedef vf64 vsum_f64;
#define SUM_LANES_f32 VF32_LANES
#define SUM_LANES_f64 VF64_LANES

static inline vf32 sum_load_f32(const float *p) {
    return vf32_load(p);
}
static inline vf64 sum_load_f64(const double *p) {
    return vf64_load(p);
}
static inline vf32 sum_load_till_f32(const float *p, int64_t n) {
    return vf32_load_till(p, n);
}
static inline vf64 sum_load_till_f64(const double *p, int64_t n) {
    return vf64_load_till(p, n);
}
static inline vf32 sum_zero_f32(void) {
    return vf32_zero();
}
static inline vf64 sum_zero_f64(void) {
    return vf64_zero();
}
static inline vf32 sum_add_f32(vf32 a, vf32 b) {
    return vf32_add(a, b);
}
static inline vf64 sum_add_f64(vf64 a, vf64 b) {
    return vf64_add(a, b);
}
/* acc (two double vectors) += a */
static inline void sum_fold_f32(vf64 acc[2], vf32 a) {
    acc[0] = vf64_add(acc[0], vf64_widen_lo(a));
    acc[1] = vf64_add(acc[1], vf64_widen_hi(a));
}
static inline void sum_fold_f64(vf64 acc[2], vf64 a) {
    acc[0] = vf64_add(acc[0], a);
}
/* d[0 .. lanes) += a, d being doubles in memory */
static inline void sum_fold_mem_f32(double *d, vf32 a) {
    vf64_store(d, vf64_add(vf64_load(d), vf64_widen_lo(a)));
    vf64_store(d + VF64_LANES, vf64_add(vf64_load(d + VF64_LANES), vf64_widen_hi(a)));
}
static inline void sum_fold_mem_f64(double *d, vf64 a) {
    vf64_store(d, vf64_add(vf64_load(d), a));
}

#define DEFINE_SUM_KERNELS(S, T)                                                                   \
    static double sum_##S(const T *x, int64_t n) {                                                 \
        enum { W = SUM_LANES_##S };                                                                \
        vf64 acc[2] = {vf64_zero(), vf64_zero()};                                                  \
        int64_t i = 0;                                                                             \
        while (i + KB_SUM_NACC * W <= n) {                                                         \
            int64_t steps = (n - i) / (KB_SUM_NACC * W);                                           \
            if (steps > KB_SUM_DEPTH)                                                              \
                steps = KB_SUM_DEPTH;                                                              \
            vsum_##S a[KB_SUM_NACC];                                                               \
            SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) a[k] = sum_zero_##S();                \
            for (int64_t s = 0; s < steps; s++, i += KB_SUM_NACC * W)                              \
                SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) a[k] =                            \
                    sum_add_##S(a[k], sum_load_##S(x + i + k * W));                                \
            SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) sum_fold_##S(acc, a[k]);              \
        }                                                                                          \
        if (i < n) {                                                                               \
            vsum_##S a = sum_zero_##S();                                                           \
            for (; i + W <= n; i += W)                                                             \
                a = sum_add_##S(a, sum_load_##S(x + i));                                           \
            if (i < n)                                                                             \
                a = sum_add_##S(a, sum_load_till_##S(x + i, n - i));                               \
            sum_fold_##S(acc, a);                                                                  \
        }                                                                                          \
        return vf64_hsum(vf64_add(acc[0], acc[1]));                                                \
    }                                                                                              \
                                                                                                   \
    /* A narrow block with A accumulators: rounds of A vectors, folded every KB_SUM_DEPTH          \
     * rounds into lane partials in double, which go to their columns at the end. */               \
    static inline __attribute__((always_inline)) void sum_narrow_##S(                              \
        int A, const char *bytes, int64_t rows, int64_t m, double *out) {                          \
        enum { W = SUM_LANES_##S };                                                                \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m, i = 0;                                                               \
        double lane[NARROW_MAX * W];                                                               \
        memset(lane, 0, sizeof lane);                                                              \
        while (i < n) {                                                                            \
            vsum_##S a[NARROW_MAX];                                                                \
            SUM_UNROLL for (int k = 0; k < NARROW_MAX; k++) a[k] = sum_zero_##S();                 \
            int64_t end = n - i > KB_SUM_DEPTH * A * W ? i + KB_SUM_DEPTH * A * W : n;             \
            for (; i + A * W <= end; i += A * W)                                                   \
                SUM_UNROLL for (int k = 0; k < A; k++) a[k] =                                      \
                    sum_add_##S(a[k], sum_load_##S(x + i + k * W));                                \
            for (int k = 0; i + k * W < end; k++) {                                                \
                int64_t left = end - i - k * W;                                                    \
                a[k] = sum_add_##S(a[k], left >= W ? sum_load_##S(x + i + k * W)                   \
                                                   : sum_load_till_##S(x + i + k * W, left));      \
            }                                                                                      \
            i = end;                                                                               \
            SUM_UNROLL for (int k = 0; k < A; k++) sum_fold_mem_##S(lane + k * W, a[k]);           \
        }                                                                                          \
        for (int64_t q = 0, c = 0; q < A * W; q++, c = next_col(c, m))                             \
            out[c] += lane[q];                                                                     \
    }                                                                                              \
                                                                                                   \
    /* nv vectors of columns from j (the last one cut to the columns left when partial), over      \
     * nr rows; the rows' partial sums fold into out[j ..]. */                                     \
    static inline __attribute__((always_inline)) void sum_tile_##S(                                \
        int nv, int partial, const char *x, int64_t nr, int64_t stride, int64_t j, int64_t m,      \
        double *out) {                                                                             \
        enum { W = SUM_LANES_##S };                                                                \
        vsum_##S a[KB_SUM_NTILE], b[KB_SUM_NTILE];                                                 \
        SUM_UNROLL for (int k = 0; k < KB_SUM_NTILE; k++) a[k] = b[k] = sum_zero_##S();            \
        int64_t last = m - j - (nv - 1) * W; /* columns of the last vector */                      \
        /* Fewer than four vectors: odd rows go to a second set of accumulators, so that           \
         * there are enough independent adds in flight. */                                         \
        int64_t i = 0;                                                                             \
        if (nv < 4)                                                                                \
            for (; i + 2 <= nr; i += 2) {                                                          \
                const T *r0 = SUM_ROW(T, x, i, stride) + j,                                        \
                        *r1 = SUM_ROW(T, x, i + 1, stride) + j;                                    \
                SUM_UNROLL for (int k = 0; k < nv; k++) {                                          \
                    int tail = partial && k == nv - 1;                                             \
                    a[k] = sum_add_##S(a[k], tail ? sum_load_till_##S(r0 + k * W, last)            \
                                                  : sum_load_##S(r0 + k * W));                     \
                    b[k] = sum_add_##S(b[k], tail ? sum_load_till_##S(r1 + k * W, last)            \
                                                  : sum_load_##S(r1 + k * W));                     \
                }                                                                                  \
            }                                                                                      \
        for (; i < nr; i++) {                                                                      \
            const T *r = SUM_ROW(T, x, i, stride) + j;                                             \
            SUM_UNROLL for (int k = 0; k < nv; k++) {                                              \
                int tail = partial && k == nv - 1;                                                 \
                a[k] = sum_add_##S(a[k], tail ? sum_load_till_##S(r + k * W, last)                 \
                                              : sum_load_##S(r + k * W));                          \
            }                                                                                      \
        }                                                                                          \
        SUM_UNROLL for (int k = 0; k < nv; k++) {                                                  \
            vsum_##S s = nv < 4 ? sum_add_##S(a[k], b[k]) : a[k];                                  \
            if (partial && k == nv - 1) {                                                          \
                double d[W];                                                                       \
                memset(d, 0, sizeof d);                                                            \
                sum_fold_mem_##S(d, s);                                                            \
                for (int64_t c = 0; c < last; c++)                                                 \
                    out[j + k * W + c] += d[c];                                                    \
            } else {                                                                               \
                sum_fold_mem_##S(out + j + k * W, s);                                              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Short rows (at most four vectors) take no run kernel call each: two accumulators, the       \
     * tail loaded with the first, then one fold. */                                               \
    static void sum_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n,               \
                             double *out) {                                                        \
        enum { W = SUM_LANES_##S };                                                                \
        if (n > 4 * W) {                                                                           \
            for (int64_t i = 0; i < rows; i++)                                                     \
                out[i] = sum_##S(SUM_ROW(T, x, i, stride), n);                                     \
            return;                                                                                \
        }                                                                                          \
        int64_t full = n / W, tail = n % W;                                                        \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = SUM_ROW(T, x, i, stride);                                                 \
            vsum_##S a = tail ? sum_load_till_##S(r + full * W, tail) : sum_zero_##S();            \
            vsum_##S b = sum_zero_##S();                                                           \
            int64_t k = 0;                                                                         \
            for (; k + 2 <= full; k += 2) {                                                        \
                a = sum_add_##S(a, sum_load_##S(r + k * W));                                       \
                b = sum_add_##S(b, sum_load_##S(r + (k + 1) * W));                                 \
            }                                                                                      \
            if (k < full)                                                                          \
                a = sum_add_##S(a, sum_load_##S(r + k * W));                                       \
            vf64 acc[2] = {vf64_zero(), vf64_zero()};                                              \
            sum_fold_##S(acc, sum_add_##S(a, b));                                                  \
            out[i] = vf64_hsum(vf64_add(acc[0], acc[1]));                                          \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sum_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,               \
                             double *out) {                                                        \
        enum { W = SUM_LANES_##S };                                                                \
        int A = narrow_acc(stride, m, sizeof(T), W);                                               \
        if (A) {                                                                                   \
            switch (A) {                                                                           \
                case 4:                                                                            \
                    sum_narrow_##S(4, x, rows, m, out);                                            \
                    return;                                                                        \
                case 6:                                                                            \
                    sum_narrow_##S(6, x, rows, m, out);                                            \
                    return;                                                                        \
                default:                                                                           \
                    sum_narrow_##S(A, x, rows, m, out);                                            \
                    return;                                                                        \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i0 = 0; i0 < rows; i0 += KB_SUM_DEPTH) {                                      \
            int64_t nr = rows - i0 < KB_SUM_DEPTH ? rows - i0 : KB_SUM_DEPTH;                      \
            const char *xi = x + i0 * stride;                                                      \
            int64_t j = 0;                                                                         \
            for (; j + KB_SUM_NTILE * W <= m; j += KB_SUM_NTILE * W)                               \
                sum_tile_##S(KB_SUM_NTILE, 0, xi, nr, stride, j, m, out);                          \
            int64_t left = m - j, nv = (left + W - 1) / W;                                         \
            switch (nv) {                                                                          \
                case 0:                                                                            \
                    break;                                                                         \
                case 1:                                                                            \
                    sum_tile_##S(1, left % W != 0, xi, nr, stride, j, m, out);                     \
                    break;                                                                         \
                case 2:                                                                            \
                    sum_tile_##S(2, left % W != 0, xi, nr, stride, j, m, out);                     \
                    break;                                                                         \
                case 3:                                                                            \
                    sum_tile_##S(3, left % W != 0, xi, nr, stride, j, m, out);                     \
                    break;                                                                         \
                case 4:                                                                            \
                    sum_tile_##S(4, left % W != 0, xi, nr, stride, j, m, out);                     \
                    break;                                                                         \
                default:                                                                           \
                    sum_tile_##S((int)nv, left % W != 0, xi, nr, stride, j, m, out);               \
                    break;                                                                         \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_SUM_KERNELS(f32, float)
DEFINE_SUM_KERNELS(f64, double)

#endif

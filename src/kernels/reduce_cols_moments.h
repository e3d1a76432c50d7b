#ifndef KB_KERNELS_REDUCE_COLS_MOMENTS_H
#define KB_KERNELS_REDUCE_COLS_MOMENTS_H

/* The column forms of var and std's two passes (sumd_cols and sqdev_cols, see
 * reduce_kernels.h) on double lanes, written once over the vector layer (simd/internal.h) and
 * compiled by each per-target file after the layer, with the constants and macros that
 * reduce_lanes.h asks of its includers and NTILE, ROW and INLINE.
 *
 * Why the loops have the shape they have:
 *  - strided rows are walked in chunks of RCHUNK rows (FOR_CHUNKS), every tile of NTILE
 *    column vectors of a chunk before the next chunk, the tile's sums held in
 *    registers: memory sees a few sequential streams, and each sum goes back to L1 once per
 *    chunk;
 *  - adjacent narrow rows (an (N, m) array with m smaller than a few vectors) are one run in
 *    which a lane always holds the same column (narrow_acc, reduce_lanes.h);
 *  - columns short of a whole vector, and a narrow run's last elements, are added one by one:
 *    at most a vector's worth per row, and the same on every target. */

#include <stdint.h>

#include "kernels/reduce_lanes.h"

/* VF64_LANES elements as doubles. */
static inline vf64 cols_dload_f32(const float *p) {
    return vf64_load_f32(p);
}
static inline vf64 cols_dload_f64(const double *p) {
    return vf64_load(p);
}

#define DEFINE_COLS_MOMENTS(S, T)                                                                  \
    INLINE void sumd_narrow_##S(int A, const char *bytes, int64_t rows, int64_t m, double *acc) {  \
        enum { W = VF64_LANES };                                                                   \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m;                                                                      \
        vf64 a[NARROW_MAX];                                                                        \
        UNROLL for (int k = 0; k < A; k++) a[k] = vf64_zero();                                     \
        int64_t i = 0;                                                                             \
        for (; i + A * W <= n; i += A * W)                                                         \
            UNROLL for (int k = 0; k < A; k++) a[k] =                                              \
                vf64_add(a[k], cols_dload_##S(x + i + k * W));                                     \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W <= n) a[k] =                        \
            vf64_add(a[k], cols_dload_##S(x + i + k * W));                                         \
        double lane[NARROW_MAX * W];                                                               \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, W), live, vf64_add);                                   \
        UNROLL for (int k = 0; k < A; k++) vf64_store(lane + k * W, a[k]);                         \
        for (int64_t q = 0, c = 0; q < live * W; q++, c = next_col(c, m))                          \
            acc[c] += lane[q];                                                                     \
        for (int64_t e = i + (n - i) / W * W, c = e % m; e < n; e++, c = next_col(c, m))           \
            acc[c] += x[e];                                                                        \
    }                                                                                              \
                                                                                                   \
    INLINE void sumd_tile_##S(int nv, const char *x, int64_t rows, int64_t stride, double *acc) {  \
        enum { W = VF64_LANES };                                                                   \
        vf64 a[NTILE];                                                                             \
        UNROLL for (int k = 0; k < nv; k++) a[k] = vf64_load(acc + k * W);                         \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) a[k] = vf64_add(a[k], cols_dload_##S(r + k * W));  \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) vf64_store(acc + k * W, a[k]);                         \
    }                                                                                              \
                                                                                                   \
    static void sumd_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,           \
                                 double *acc) {                                                    \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, VF64_LANES, NTILE, sumd_tile_##S, x + j * (int64_t)sizeof(T), rows,        \
                  stride, acc + j);                                                                \
        for (int64_t i = 0; i < rows && j < m; i++) {                                              \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t c = j; c < m; c++)                                                        \
                acc[c] += r[c];                                                                    \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sumd_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,              \
                              double *acc) {                                                       \
        int A = narrow_acc_sums(stride, m, sizeof(T), VF64_LANES);                                 \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, sumd_narrow_##S, x, rows, m, acc);                                  \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, sumd_strided_##S, stride, m, acc);                             \
    }                                                                                              \
                                                                                                   \
    INLINE void sqdev_narrow_##S(int A, const char *bytes, int64_t rows, int64_t m,                \
                                 const double *center, double *acc) {                              \
        enum { W = VF64_LANES };                                                                   \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m;                                                                      \
        double lane[NARROW_MAX * W];                                                               \
        for (int64_t q = 0, c = 0; q < A * W; q++, c = next_col(c, m))                             \
            lane[q] = center[c];                                                                   \
        vf64 a[NARROW_MAX], cen[NARROW_MAX];                                                       \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            a[k] = vf64_zero();                                                                    \
            cen[k] = vf64_load(lane + k * W);                                                      \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + A * W <= n; i += A * W)                                                         \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                vf64 d = vf64_sub(cols_dload_##S(x + i + k * W), cen[k]);                          \
                a[k] = vf64_fma(d, d, a[k]);                                                       \
            }                                                                                      \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W <= n) {                             \
            vf64 d = vf64_sub(cols_dload_##S(x + i + k * W), cen[k]);                              \
            a[k] = vf64_fma(d, d, a[k]);                                                           \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, W), live, vf64_add);                                   \
        UNROLL for (int k = 0; k < A; k++) vf64_store(lane + k * W, a[k]);                         \
        for (int64_t q = 0, c = 0; q < live * W; q++, c = next_col(c, m))                          \
            acc[c] += lane[q];                                                                     \
        for (int64_t e = i + (n - i) / W * W, c = e % m; e < n; e++, c = next_col(c, m)) {         \
            double d = x[e] - center[c];                                                           \
            acc[c] += d * d;                                                                       \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    INLINE void sqdev_tile_##S(int nv, const char *x, int64_t rows, int64_t stride,                \
                               const double *center, double *acc) {                                \
        enum { W = VF64_LANES };                                                                   \
        vf64 a[NTILE], cen[NTILE];                                                                 \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            a[k] = vf64_load(acc + k * W);                                                         \
            cen[k] = vf64_load(center + k * W);                                                    \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                vf64 d = vf64_sub(cols_dload_##S(r + k * W), cen[k]);                              \
                a[k] = vf64_fma(d, d, a[k]);                                                       \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) vf64_store(acc + k * W, a[k]);                         \
    }                                                                                              \
                                                                                                   \
    static void sqdev_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,          \
                                  const double *center, double *acc) {                             \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, VF64_LANES, NTILE, sqdev_tile_##S, x + j * (int64_t)sizeof(T), rows,       \
                  stride, center + j, acc + j);                                                    \
        for (int64_t i = 0; i < rows && j < m; i++) {                                              \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t c = j; c < m; c++) {                                                      \
                double d = r[c] - center[c];                                                       \
                acc[c] += d * d;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sqdev_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,             \
                               const double *center, double *acc) {                                \
        int A = narrow_acc_sums(stride, m, sizeof(T), VF64_LANES);                                 \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, sqdev_narrow_##S, x, rows, m, center, acc);                         \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, sqdev_strided_##S, stride, m, center, acc);                    \
    }

DEFINE_COLS_MOMENTS(f32, float)
DEFINE_COLS_MOMENTS(f64, double)

#endif

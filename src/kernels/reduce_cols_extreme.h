#ifndef KB_KERNELS_REDUCE_COLS_EXTREME_H
#define KB_KERNELS_REDUCE_COLS_EXTREME_H

/* Column minima and maxima of rows too wide for the narrow blocks (the min_cols and max_cols
 * kernels, reduce_kernels.h), written once over the vector layer (simd/internal.h) and
 * compiled by each per-target file after the layer and reduce_sum.h.
 *
 * Why this shape: rows stream KB_EXTREME_ROWS (4) at a time across a chunk of columns whose
 * running extremes (the caller's acc) take half of L1 (sum_chunk_columns), and every chunk of
 * a group of KB_EXTREME_GROUP (16) rows is done before the next group, as the column sums do:
 * memory sees four sequential streams over whole rows, and each running extreme is loaded and
 * stored once per four rows; from an input of at least half the last-level cache each vector
 * also prefetches the rows that come next (kb_cache_far), and rows of at least
 * KB_EXTREME_WIDE_ROW bytes stream KB_EXTREME_ROWS_FAR (8) at once, as the column sums do: with
 * four, 4096 x 4096 float64 along axis 0 from DRAM read at 79% of the load bound, where the
 * sums' eight read at 95% (Zen 4, one thread). Narrow rows keep four: (100000, 32) float64 took
 * twice as long with eight.
 * Tiles of 8 vectors held in registers, which
 * this replaced, read each row in 512- or 256-byte pieces and ran at 40 GB/s from L3 where the
 * sums ran at 68 (1024 x 1024 float32, Zen 4, one thread).
 *
 * NaN: the vector min and max of some instruction sets drop a NaN operand, so the lanes read
 * (the incoming extremes once, then every element) feed a detector (vfS_nan_or); a group of
 * rows that holds a NaN is redone by the scalar reference, which propagates it. Redoing is
 * exact because an extreme is idempotent: folding the same rows in again changes nothing but
 * the NaN lanes. Tail columns (fewer than a vector) are folded one by one, NaN-propagating. */

#define KB_EXTREME_ROWS 4
#define KB_EXTREME_ROWS_FAR 8
#define KB_EXTREME_WIDE_ROW 1024
#define KB_EXTREME_GROUP 16

/* acc = the extreme of acc and v, a NaN in either one kept. */
#define KB_EXTREME_FOLD(CMP, acc, v)                                                               \
    do {                                                                                           \
        if ((acc) == (acc) && ((v) != (v) || (v)CMP(acc)))                                         \
            (acc) = (v);                                                                           \
    } while (0)

/* OP: min or max; CMP: the strict comparison by which v replaces the running extreme. A NaN
 * sends only its group of rows and chunk of columns to the scalar reference; incoming extremes
 * that hold a NaN send the whole call there. */
#define DEFINE_EXTREME_ROWWISE(S, T, OP, CMP)                                                      \
    static inline __attribute__((always_inline)) void OP##_colrows_##S(                            \
        int PF, int R, const char *x, int64_t rows, int64_t stride, int64_t cw, T *a) {            \
        enum { W = (int)(sizeof(v##S) / sizeof(T)) };                                              \
        int64_t nv = cw / W, i = 0;                                                                \
        v##S nan = v##S##_zero(), nan2 = v##S##_zero();                                            \
        for (; i + R <= rows; i += R) {                                                            \
            /* named rows and vectors, not arrays: GCC kept arrays of them on the stack */         \
            const T *r0 = SUM_ROW(T, x, i, stride), *r1 = SUM_ROW(T, x, i + 1, stride);            \
            const T *r2 = SUM_ROW(T, x, i + 2, stride), *r3 = SUM_ROW(T, x, i + 3, stride);        \
            const T *r4 = r0, *r5 = r0, *r6 = r0, *r7 = r0;                                        \
            if (R == KB_EXTREME_ROWS_FAR) {                                                        \
                r4 = SUM_ROW(T, x, i + 4, stride), r5 = SUM_ROW(T, x, i + 5, stride);              \
                r6 = SUM_ROW(T, x, i + 6, stride), r7 = SUM_ROW(T, x, i + 7, stride);              \
            }                                                                                      \
            for (int64_t v = 0; v < nv; v++) {                                                     \
                if (PF) {                                                                          \
                    const char *ahead = (const char *)(r0 + v * W) + R * stride;                   \
                    SUM_UNROLL for (int q = 0; q < R; q++)                                         \
                        __builtin_prefetch(ahead + q * stride, 0, 2);                              \
                }                                                                                  \
                v##S p0 = v##S##_load(r0 + v * W), p1 = v##S##_load(r1 + v * W);                   \
                v##S p2 = v##S##_load(r2 + v * W), p3 = v##S##_load(r3 + v * W);                   \
                nan = v##S##_nan_or(nan, p0, p1);                                                  \
                nan2 = v##S##_nan_or(nan2, p2, p3);                                                \
                v##S e = v##S##_##OP(v##S##_##OP(p0, p1), v##S##_##OP(p2, p3));                    \
                if (R == KB_EXTREME_ROWS_FAR) {                                                    \
                    v##S p4 = v##S##_load(r4 + v * W), p5 = v##S##_load(r5 + v * W);               \
                    v##S p6 = v##S##_load(r6 + v * W), p7 = v##S##_load(r7 + v * W);               \
                    nan = v##S##_nan_or(nan, p4, p5);                                              \
                    nan2 = v##S##_nan_or(nan2, p6, p7);                                            \
                    e = v##S##_##OP(e, v##S##_##OP(v##S##_##OP(p4, p5), v##S##_##OP(p6, p7)));     \
                }                                                                                  \
                v##S##_store(a + v * W, v##S##_##OP(e, v##S##_load(a + v * W)));                   \
            }                                                                                      \
            for (int64_t c = nv * W; c < cw; c++) {                                                \
                KB_EXTREME_FOLD(CMP, a[c], r0[c]);                                                 \
                KB_EXTREME_FOLD(CMP, a[c], r1[c]);                                                 \
                KB_EXTREME_FOLD(CMP, a[c], r2[c]);                                                 \
                KB_EXTREME_FOLD(CMP, a[c], r3[c]);                                                 \
                if (R == KB_EXTREME_ROWS_FAR) {                                                    \
                    KB_EXTREME_FOLD(CMP, a[c], r4[c]);                                             \
                    KB_EXTREME_FOLD(CMP, a[c], r5[c]);                                             \
                    KB_EXTREME_FOLD(CMP, a[c], r6[c]);                                             \
                    KB_EXTREME_FOLD(CMP, a[c], r7[c]);                                             \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (; i < rows; i++) {                                                                    \
            const T *r = SUM_ROW(T, x, i, stride);                                                 \
            for (int64_t v = 0; v < nv; v++) {                                                     \
                v##S p = v##S##_load(r + v * W);                                                   \
                nan = v##S##_nan_or(nan, p, p);                                                    \
                v##S##_store(a + v * W, v##S##_##OP(p, v##S##_load(a + v * W)));                   \
            }                                                                                      \
            for (int64_t c = nv * W; c < cw; c++)                                                  \
                KB_EXTREME_FOLD(CMP, a[c], r[c]);                                                  \
        }                                                                                          \
        if (v##S##_any_nan(nan) || v##S##_any_nan(nan2))                                           \
            kb_reduce_kernels_scalar()->OP##_cols_##S(x, rows, stride, cw, a);                     \
    }                                                                                              \
                                                                                                   \
    /* The eight-row form in a function of its own: inlined beside the four-row ones, it made GCC  \
     * spill their row pointers, and (100000, 32) float64 took 1.5 times as long. */               \
    static __attribute__((noinline)) void OP##_colrows8_##S(const char *x, int64_t rows,           \
                                                            int64_t stride, int64_t cw, T *a) {    \
        if (kb_reduce_prefetch_rows())                                                             \
            OP##_colrows_##S(1, KB_EXTREME_ROWS_FAR, x, rows, stride, cw, a);                      \
        else                                                                                       \
            OP##_colrows_##S(0, KB_EXTREME_ROWS_FAR, x, rows, stride, cw, a);                      \
    }                                                                                              \
                                                                                                   \
    static void OP##_rowwise_##S(const char *x, int64_t rows, int64_t stride, int64_t m, T *acc) { \
        enum { W = (int)(sizeof(v##S) / sizeof(T)) };                                              \
        v##S nan = v##S##_zero();                                                                  \
        for (int64_t v = 0; v + W <= m; v += W) {                                                  \
            v##S cur = v##S##_load(acc + v);                                                       \
            nan = v##S##_nan_or(nan, cur, cur);                                                    \
        }                                                                                          \
        if (v##S##_any_nan(nan)) {                                                                 \
            kb_reduce_kernels_scalar()->OP##_cols_##S(x, rows, stride, m, acc);                    \
            return;                                                                                \
        }                                                                                          \
        int64_t chunk = sum_chunk_columns(sizeof(T), W);                                           \
        bool far = rows > KB_EXTREME_ROWS && kb_cache_far(rows * stride);                          \
        bool wide = rows > KB_EXTREME_ROWS_FAR && stride >= KB_EXTREME_WIDE_ROW;                   \
        for (int64_t i0 = 0; i0 < rows; i0 += KB_EXTREME_GROUP)                                    \
            for (int64_t j0 = 0; j0 < m; j0 += chunk) {                                            \
                const char *xi = x + i0 * stride + j0 * (int64_t)sizeof(T);                        \
                int64_t nr = rows - i0 < KB_EXTREME_GROUP ? rows - i0 : KB_EXTREME_GROUP;          \
                int64_t cw = m - j0 < chunk ? m - j0 : chunk;                                      \
                if (far && wide)                                                                   \
                    OP##_colrows8_##S(xi, nr, stride, cw, acc + j0);                               \
                else if (far)                                                                      \
                    OP##_colrows_##S(1, KB_EXTREME_ROWS, xi, nr, stride, cw, acc + j0);            \
                else                                                                               \
                    OP##_colrows_##S(0, KB_EXTREME_ROWS, xi, nr, stride, cw, acc + j0);            \
            }                                                                                      \
    }

DEFINE_EXTREME_ROWWISE(f32, float, min, <)
DEFINE_EXTREME_ROWWISE(f32, float, max, >)
DEFINE_EXTREME_ROWWISE(f64, double, min, <)
DEFINE_EXTREME_ROWWISE(f64, double, max, >)

#endif

#ifndef KB_KERNELS_REDUCE_ROWS_H
#define KB_KERNELS_REDUCE_ROWS_H

/* The min and max of many short rows (shape (N, 32) along axis 1; reduce_kernels.h), written
 * once over the vector layer (simd/internal.h) and compiled by each per-target file after its
 * run kernels (min_f32, max_f32, min_f64, max_f64), which take longer rows and rows that hold
 * a NaN. A row of at most four vectors is loaded whole and folded lane-wise: no accumulators to
 * set up, no masks, no call per row. Measured on (100000, 32) float32 (Zen 4, one thread): a run
 * kernel call per row spent about 7 ns a row, most of it outside the loads. */

#include <stdint.h>
#include <string.h>

/* Row r's extreme as one vector (its lanes to be folded across), when the row is at most four
 * vectors: loaded whole, its tail filled with the row's first element (which cannot change a min
 * or a max), folded in order; *bad gets NaN lanes where the row holds a NaN, two vectors to a
 * check (vfS_nan_or tests both operands), which halves the checks' share of a short row's work. */
#define DEFINE_EXTREME_ROW_VECTOR(S, T, OP)                                                        \
    static inline v##S OP##_row_vector_##S(const T *r, int64_t full, int64_t tail, v##S *bad) {    \
        enum { W = sizeof(v##S) / sizeof(T) };                                                     \
        v##S a = tail ? v##S##_load_till_or(r + full * W, tail, r[0]) : v##S##_load(r);            \
        int64_t k = tail ? 0 : 1;                                                                  \
        if (k < full) {                                                                            \
            v##S v = v##S##_load(r + k * W);                                                       \
            *bad = v##S##_nan_or(*bad, a, v);                                                      \
            a = v##S##_##OP(a, v);                                                                 \
            k++;                                                                                   \
        } else {                                                                                   \
            *bad = v##S##_nan_or(*bad, a, a);                                                      \
        }                                                                                          \
        for (; k + 1 < full; k += 2) {                                                             \
            v##S v = v##S##_load(r + k * W), u = v##S##_load(r + (k + 1) * W);                     \
            *bad = v##S##_nan_or(*bad, v, u);                                                      \
            a = v##S##_##OP(v##S##_##OP(a, v), u);                                                 \
        }                                                                                          \
        if (k < full) {                                                                            \
            v##S v = v##S##_load(r + k * W);                                                       \
            *bad = v##S##_nan_or(*bad, v, v);                                                      \
            a = v##S##_##OP(a, v);                                                                 \
        }                                                                                          \
        return a;                                                                                  \
    }

/* Rows of at most four vectors go a group of W (the lanes of a vector) at a time: each row's
 * vectors fold lane-wise into one, and the group's W row vectors fold across into one vector of
 * their extremes (vfS_hmax_many), stored at once where the results are adjacent, rather than one
 * horizontal fold and one store per row, which had been most of the time of (100000, 32) float32.
 * A group that holds a NaN is redone row by row by the run kernel, whose NaN rules hold. */
#define DEFINE_EXTREME_ROWS(S, T, OP)                                                              \
    DEFINE_EXTREME_ROW_VECTOR(S, T, OP)                                                            \
    static void OP##_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,   \
                              int64_t out_stride, bool far) {                                      \
        enum { W = sizeof(v##S) / sizeof(T) };                                                     \
        int64_t full = n / W, tail = n % W, i = 0;                                                 \
        if (n > 4 * W) {                                                                           \
            /* from memory, NSTREAMS ranges of rows, a row of each at once: several streams        \
             * however short the rows */                                                           \
            int64_t part = far && kb_reduce_streams() ? rows / NSTREAMS : 0;                       \
            for (int64_t k = 0; k < part; k++) {                                                   \
                T values[NSTREAMS];                                                                \
                if (OP##_body_##S(NSTREAMS, x + k * stride, part * stride, n, values))             \
                    for (int q = 0; q < NSTREAMS; q++)                                             \
                        values[q] =                                                                \
                            OP##_##S((const T *)(const void *)(x + (k + q * part) * stride), n);   \
                for (int q = 0; q < NSTREAMS; q++)                                                 \
                    memcpy(out + (k + q * part) * out_stride, &values[q], sizeof(T));              \
            }                                                                                      \
            i = NSTREAMS * part;                                                                   \
            for (; i < rows; i++) {                                                                \
                T value = OP##_##S((const T *)(const void *)(x + i * stride), n);                  \
                memcpy(out + i * out_stride, &value, sizeof value);                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (; i + W <= rows; i += W) {                                                            \
            v##S a[W], bad = v##S##_zero();                                                        \
            for (int q = 0; q < W; q++)                                                            \
                a[q] = OP##_row_vector_##S((const T *)(const void *)(x + (i + q) * stride), full,  \
                                           tail, &bad);                                            \
            if (v##S##_any_nan(bad)) {                                                             \
                for (int q = 0; q < W; q++) {                                                      \
                    T value = OP##_##S((const T *)(const void *)(x + (i + q) * stride), n);        \
                    memcpy(out + (i + q) * out_stride, &value, sizeof value);                      \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            v##S m = v##S##_h##OP##_many(a);                                                       \
            if (out_stride == (int64_t)sizeof(T)) {                                                \
                v##S##_store((T *)(void *)(out + i * out_stride), m);                              \
            } else {                                                                               \
                T values[W];                                                                       \
                v##S##_store(values, m);                                                           \
                for (int q = 0; q < W; q++)                                                        \
                    memcpy(out + (i + q) * out_stride, &values[q], sizeof(T));                     \
            }                                                                                      \
        }                                                                                          \
        for (; i < rows; i++) {                                                                    \
            const T *r = (const T *)(const void *)(x + i * stride);                                \
            v##S bad = v##S##_zero();                                                              \
            v##S a = OP##_row_vector_##S(r, full, tail, &bad);                                     \
            T value = v##S##_any_nan(bad) ? OP##_##S(r, n) : v##S##_h##OP(a);                      \
            memcpy(out + i * out_stride, &value, sizeof value);                                    \
        }                                                                                          \
    }

DEFINE_EXTREME_ROWS(f32, float, min)
DEFINE_EXTREME_ROWS(f32, float, max)
DEFINE_EXTREME_ROWS(f64, double, min)
DEFINE_EXTREME_ROWS(f64, double, max)

#endif

#ifndef KB_KERNELS_REDUCE_EXTREME_H
#define KB_KERNELS_REDUCE_EXTREME_H

/* The minima and maxima of runs and of narrow column blocks (min_S, max_S and the narrow half
 * of min_cols_S, max_cols_S; reduce_kernels.h), written once over the vector layer
 * (simd/internal.h) and compiled by each per-target file after the layer, reduce_lanes.h and
 * reduce_cols_extreme.h (the column kernel for rows too wide to be a narrow block).
 *
 * A run keeps NACC vector accumulators in flight, so that a min's latency never stalls the
 * loads; its tail is loaded with the operation's identity (+-infinity) in the lanes past n.
 * A narrow block streams as a run whose lanes each hold one column (narrow_acc).
 *
 * NaN: the vector min and max of some instruction sets drop a NaN operand, so every lane read
 * (and a narrow block's incoming extremes) feeds a detector (vfS_nan_or), and a call that saw
 * a NaN is redone by the scalar reference, which returns the first NaN itself, payload and
 * sign included, and lets a NaN already in a column's extreme stick. */

#include <stdint.h>

#include "kernels/reduce_lanes.h"

/* OP: min or max; CMP: the strict comparison by which a value replaces the running extreme;
 * INIT: OP's identity. */
#define DEFINE_EXTREME(S, T, OP, CMP, INIT)                                                        \
    /* R rows of n elements, stride bytes apart, a step of NACC vectors of each in turn (memory    \
     * sees R streams): their extremes into out[0 .. R), or nonzero, out unset, if one holds a     \
     * NaN. */                                                                                     \
    INLINE int OP##_body_##S(int R, const char *xv, int64_t stride, int64_t n, T *out) {           \
        enum { W = (int)(sizeof(v##S) / sizeof(T)) };                                              \
        const T *x[NSTREAMS];                                                                      \
        v##S a[NSTREAMS][NACC], nan = v##S##_zero();                                               \
        UNROLL for (int q = 0; q < R; q++) {                                                       \
            x[q] = ROW(T, xv, q, stride);                                                          \
            UNROLL for (int k = 0; k < NACC; k++) a[q][k] = v##S##_set1(INIT);                     \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W <= n; i += NACC * W)                                                   \
            UNROLL for (int q = 0; q < R; q++) {                                                   \
                v##S v[NACC];                                                                      \
                UNROLL for (int k = 0; k < NACC; k++) v[k] = v##S##_load(x[q] + i + k * W);        \
                UNROLL for (int k = 0; k < NACC; k += 2) nan = v##S##_nan_or(nan, v[k], v[k + 1]); \
                UNROLL for (int k = 0; k < NACC; k++) a[q][k] = v##S##_##OP(v[k], a[q][k]);        \
            }                                                                                      \
        UNROLL for (int q = 0; q < R; q++) {                                                       \
            for (int64_t j = i; j < n; j += W) {                                                   \
                v##S v = n - j >= W ? v##S##_load(x[q] + j)                                        \
                                    : v##S##_load_till_or(x[q] + j, n - j, INIT);                  \
                nan = v##S##_nan_or(nan, v, v);                                                    \
                a[q][0] = v##S##_##OP(v, a[q][0]);                                                 \
            }                                                                                      \
        }                                                                                          \
        if (v##S##_any_nan(nan))                                                                   \
            return 1;                                                                              \
        UNROLL for (int q = 0; q < R; q++) {                                                       \
            UNROLL for (int k = 1; k < NACC; k++) a[q][0] = v##S##_##OP(a[q][k], a[q][0]);         \
            out[q] = v##S##_h##OP(a[q][0]);                                                        \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static T OP##_##S(const T *x, int64_t n) {                                                     \
        T out;                                                                                     \
        if (OP##_body_##S(1, (const char *)x, 0, n, &out))                                         \
            return kb_reduce_kernels_scalar()->OP##_##S(x, n);                                     \
        return out;                                                                                \
    }                                                                                              \
                                                                                                   \
    INLINE void OP##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, T *acc) {           \
        enum { W = (int)(sizeof(v##S) / sizeof(T)) };                                              \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lane[NARROW_MAX * W];                                                                    \
        for (int64_t q = 0, c = 0; q < A * W; q++, c = next_col(c, m))                             \
            lane[q] = acc[c];                                                                      \
        v##S a[NARROW_MAX], nan = v##S##_zero();                                                   \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            a[k] = v##S##_load(lane + k * W);                                                      \
            nan = v##S##_nan_or(nan, a[k], a[k]);                                                  \
        }                                                                                          \
        for (; i + A * W <= n; i += A * W) {                                                       \
            v##S v[NARROW_MAX];                                                                    \
            UNROLL for (int k = 0; k < A; k++) v[k] = v##S##_load(p + i + k * W);                  \
            UNROLL for (int k = 0; k < A; k += 2) nan =                                            \
                v##S##_nan_or(nan, v[k], v[k + 1 < A ? k + 1 : k]);                                \
            UNROLL for (int k = 0; k < A; k++) a[k] = v##S##_##OP(v[k], a[k]);                     \
        }                                                                                          \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            int64_t left = n - i - k * W;                                                          \
            if (left <= 0)                                                                         \
                break;                                                                             \
            v##S v = left >= W ? v##S##_load(p + i + k * W)                                        \
                               : v##S##_load_till_or(p + i + k * W, left, INIT);                   \
            nan = v##S##_nan_or(nan, v, v);                                                        \
            a[k] = v##S##_##OP(v, a[k]);                                                           \
        }                                                                                          \
        if (v##S##_any_nan(nan)) {                                                                 \
            kb_reduce_kernels_scalar()->OP##_cols_##S(x, rows, (int64_t)sizeof(T) * m, m, acc);    \
            return;                                                                                \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, W), live, v##S##_##OP);                                \
        UNROLL for (int k = 0; k < A; k++) v##S##_store(lane + k * W, a[k]);                       \
        for (int64_t q = 0, c = 0; q < live * W; q++, c = next_col(c, m))                          \
            if (lane[q] CMP acc[c])                                                                \
                acc[c] = lane[q];                                                                  \
    }                                                                                              \
                                                                                                   \
    static void OP##_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, T *acc) {    \
        int A = narrow_acc(stride, m, sizeof(T), (int)(sizeof(v##S) / sizeof(T)));                 \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, OP##_narrow_##S, x, rows, m, acc);                                  \
            return;                                                                                \
        }                                                                                          \
        OP##_rowwise_##S(x, rows, stride, m, acc);                                                 \
    }

DEFINE_EXTREME(f32, float, min, <, INFINITY)
DEFINE_EXTREME(f32, float, max, >, -INFINITY)
DEFINE_EXTREME(f64, double, min, <, INFINITY)
DEFINE_EXTREME(f64, double, max, >, -INFINITY)

#endif

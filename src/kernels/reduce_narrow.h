#ifndef KB_KERNELS_REDUCE_NARROW_H
#define KB_KERNELS_REDUCE_NARROW_H

/* Reductions of many narrow adjacent rows (shape (N, n) along axis 1, 2 <= n <= 16), written
 * once in plain C and compiled by every level's kernel file (reduce_target.h, reduce_scalar.c)
 * under its own flags. Each row length is its own instance, so that n is a constant and the
 * compiler vectorizes across rows: a vector holds one element of each of several rows, loaded
 * through the target's interleaving permutes (x86) or ld2/ld3/ld4 (NEON). One row per loop
 * trip with n read at run time does not vectorize, and cost 2.6 to 4.6 ns a row of 4 float32
 * against 0.8 to 0.9 ns with n constant (Zen 4, one thread, 1000000 rows).
 *
 * The results are those of the row-at-a-time reference (reduce_float.c's narrow mode): sums
 * add in double from the first element, in order; var and std take the mean of that sum and
 * then the squared deviations, in order. min, max, argmin and argmax compare without NaN
 * rules and report whether a row held a NaN; the caller then redoes those rows by the
 * reference, which returns the first NaN (or its index) as the run kernels do. */

#include <stdint.h>

#include "kbench/reduce.h"

/* Row r's extreme under CMP (< or >) into m, without NaN rules; f = whether the row held a NaN. */
#define NARROW_FOLD(T, N, CMP)                                                                     \
    T m = r[0];                                                                                    \
    int f = r[0] != r[0];                                                                          \
    for (int j = 1; j < N; j++) {                                                                  \
        T v = r[j];                                                                                \
        f |= v != v;                                                                               \
        m = v CMP m ? v : m;                                                                       \
    }

/* The rows' extremes into val; nan |= whether a row held a NaN. */
#define NARROW_EXTREME(T, N, CMP)                                                                  \
    for (int64_t i = 0; i < rows; i++) {                                                           \
        const T *r = x + i * N;                                                                    \
        NARROW_FOLD(T, N, CMP)                                                                     \
        val[i] = m;                                                                                \
        nan |= f;                                                                                  \
    }

/* The first index of each row's extreme into idx: the extreme first, then a select chain from
 * the back, which vectorizes where a running (value, index) pair did not. */
#define NARROW_ARG(T, N, CMP)                                                                      \
    for (int64_t i = 0; i < rows; i++) {                                                           \
        const T *r = x + i * N;                                                                    \
        NARROW_FOLD(T, N, CMP)                                                                     \
        int64_t k = N - 1;                                                                         \
        for (int j = N - 2; j >= 0; j--)                                                           \
            k = r[j] == m ? j : k;                                                                 \
        idx[i] = k;                                                                                \
        nan |= f;                                                                                  \
    }

/* One row length N of type T: the rows' sums, extremes or squared deviations into val (as
 * double), or argmin/argmax indices into idx. Returns nonzero when min, max, argmin or argmax
 * met a NaN in any row (and for an op it does not take). */
#define DEFINE_NARROW_ROWS_N(T, S, N)                                                              \
    static int narrow_##S##_##N(kb_reduce_op op, const T *restrict x, int64_t rows,                \
                                double *restrict val, int64_t *restrict idx) {                     \
        int nan = 0;                                                                               \
        switch (op) {                                                                              \
            case KB_REDUCE_SUM:                                                                    \
            case KB_REDUCE_MEAN:                                                                   \
                for (int64_t i = 0; i < rows; i++) {                                               \
                    const T *r = x + i * N;                                                        \
                    double s = r[0];                                                               \
                    for (int j = 1; j < N; j++)                                                    \
                        s += r[j];                                                                 \
                    val[i] = s;                                                                    \
                }                                                                                  \
                return 0;                                                                          \
            case KB_REDUCE_VAR:                                                                    \
            case KB_REDUCE_STD:                                                                    \
                for (int64_t i = 0; i < rows; i++) {                                               \
                    const T *r = x + i * N;                                                        \
                    double s = r[0];                                                               \
                    for (int j = 1; j < N; j++)                                                    \
                        s += r[j];                                                                 \
                    double mean = s / N, dev = 0;                                                  \
                    for (int j = 0; j < N; j++) {                                                  \
                        double d = r[j] - mean;                                                    \
                        dev += d * d;                                                              \
                    }                                                                              \
                    val[i] = dev;                                                                  \
                }                                                                                  \
                return 0;                                                                          \
            case KB_REDUCE_MIN:                                                                    \
                NARROW_EXTREME(T, N, <)                                                            \
                return nan;                                                                        \
            case KB_REDUCE_MAX:                                                                    \
                NARROW_EXTREME(T, N, >)                                                            \
                return nan;                                                                        \
            case KB_REDUCE_ARGMIN:                                                                 \
                NARROW_ARG(T, N, <)                                                                \
                return nan;                                                                        \
            case KB_REDUCE_ARGMAX:                                                                 \
                NARROW_ARG(T, N, >)                                                                \
                return nan;                                                                        \
            default:                                                                               \
                return 1;                                                                          \
        }                                                                                          \
    }

#define DEFINE_NARROW_ROWS(T, S)                                                                   \
    DEFINE_NARROW_ROWS_N(T, S, 2)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 3)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 4)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 5)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 6)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 7)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 8)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 9)                                                                  \
    DEFINE_NARROW_ROWS_N(T, S, 10)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 11)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 12)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 13)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 14)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 15)                                                                 \
    DEFINE_NARROW_ROWS_N(T, S, 16)                                                                 \
    static int narrow_rows_##S(kb_reduce_op op, const T *x, int64_t rows, int64_t n, double *val,  \
                               int64_t *idx) {                                                     \
        switch (n) {                                                                               \
            case 2:                                                                                \
                return narrow_##S##_2(op, x, rows, val, idx);                                      \
            case 3:                                                                                \
                return narrow_##S##_3(op, x, rows, val, idx);                                      \
            case 4:                                                                                \
                return narrow_##S##_4(op, x, rows, val, idx);                                      \
            case 5:                                                                                \
                return narrow_##S##_5(op, x, rows, val, idx);                                      \
            case 6:                                                                                \
                return narrow_##S##_6(op, x, rows, val, idx);                                      \
            case 7:                                                                                \
                return narrow_##S##_7(op, x, rows, val, idx);                                      \
            case 8:                                                                                \
                return narrow_##S##_8(op, x, rows, val, idx);                                      \
            case 9:                                                                                \
                return narrow_##S##_9(op, x, rows, val, idx);                                      \
            case 10:                                                                               \
                return narrow_##S##_10(op, x, rows, val, idx);                                     \
            case 11:                                                                               \
                return narrow_##S##_11(op, x, rows, val, idx);                                     \
            case 12:                                                                               \
                return narrow_##S##_12(op, x, rows, val, idx);                                     \
            case 13:                                                                               \
                return narrow_##S##_13(op, x, rows, val, idx);                                     \
            case 14:                                                                               \
                return narrow_##S##_14(op, x, rows, val, idx);                                     \
            case 15:                                                                               \
                return narrow_##S##_15(op, x, rows, val, idx);                                     \
            case 16:                                                                               \
                return narrow_##S##_16(op, x, rows, val, idx);                                     \
            default:                                                                               \
                return 1;                                                                          \
        }                                                                                          \
    }

DEFINE_NARROW_ROWS(float, f32)
DEFINE_NARROW_ROWS(double, f64)

#endif

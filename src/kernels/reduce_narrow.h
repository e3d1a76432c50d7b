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
 * The results are those of the row-at-a-time reference (reduce_float.c's narrow mode), but for
 * the sums of the vector levels: var and std take the mean in double, in order (float64 as
 * x0 + sum(x - x0) / n, NARROW_SHIFT), and then the squared deviations from it, in order. min, max,
 * argmin and argmax compare without NaN rules and report whether a row held a NaN; the caller then
 * redoes those rows by the reference, which returns the first NaN (or its index) as the run kernels
 * do.
 *
 * At the vector levels, sums, means, min and max of rows whose length is a power of two no
 * longer than a vector are folded across a vector's worth of rows in registers (narrow_folded,
 * below), and sums and means of other lengths (narrow_sums) go a group of VF64_LANES rows at a
 * time: each row's vectors added lane-wise in the input's type (a lane adds at most
 * KB_REDUCE_NARROW / lanes elements, within the sum kernels' 16), and the group's row vectors
 * across into one vector of their sums in double (vf64_hsum_many, _f32), as the rows of the
 * sum kernels go (reduce_sum.h). The interleaving permutes the compiler writes for a loop
 * across rows, and a widening per element, had cost 1.45 ns a row of 4 float32 (Zen 3, one
 * thread, 1000000 rows). */

#include <stdint.h>

#include "kbench/reduce.h"

#ifdef VF64_LANES
/* Row r of N elements as one vector of partial sums: its vectors added lane-wise, the last
 * part of a vector either loaded whole and its lanes past the row cleared (keep, whole: the
 * vector lies within the caller's rows), or loaded up to the row's end (a masked load, which
 * reads nothing past it, and costs more). */
#define DEFINE_NARROW_ROW_VECTOR(S, T, W)                                                          \
    static inline __attribute__((always_inline))                                                   \
    v##S narrow_part_##S(const T *p, int n, bool whole, vm##S keep) {                              \
        return whole ? v##S##_select(v##S##_zero(), keep, v##S##_load(p))                          \
                     : v##S##_load_till(p, n);                                                     \
    }                                                                                              \
    static inline __attribute__((always_inline))                                                   \
    v##S narrow_row_##S(const T *r, int N, bool whole, vm##S keep) {                               \
        v##S a = N >= W ? v##S##_load(r) : narrow_part_##S(r, N, whole, keep);                     \
        for (int j = W; j < N; j += W)                                                             \
            a = v##S##_add(a, N - j >= W ? v##S##_load(r + j)                                      \
                                         : narrow_part_##S(r + j, N - j, whole, keep));            \
        return a;                                                                                  \
    }
DEFINE_NARROW_ROW_VECTOR(f32, float, VF32_LANES)
DEFINE_NARROW_ROW_VECTOR(f64, double, VF64_LANES)

static inline vf64 narrow_across_f32(const vf32 v[VF64_LANES], int N) {
    return vf64_hsum_many_f32(v, (N + VF32_LANES - 1) / VF32_LANES);
}
static inline vf64 narrow_across_f64(const vf64 v[VF64_LANES], int N) {
    (void)N;
    return vf64_hsum_many(v);
}

/* The sums of rows rows of N elements into val, a group of VF64_LANES rows at a time; the last
 * group repeats its first row in the lanes past the end, so that a row's sum does not depend
 * on where it falls. */
#define DEFINE_NARROW_SUMS(S, T, W)                                                                \
    static inline __attribute__((always_inline)) void narrow_sums_##S(const T *x, int64_t rows,    \
                                                                      int N, double *val) {        \
        enum { G = VF64_LANES };                                                                   \
        vm##S keep = vi##S##_lt(vi##S##_iota(), vi##S##_set1(N % W));                              \
        int64_t i = 0;                                                                             \
        for (; i + G <= rows; i += G) {                                                            \
            bool whole = (i + G) * N + W <= rows * N;                                              \
            v##S v[G];                                                                             \
            for (int q = 0; q < G; q++)                                                            \
                v[q] = narrow_row_##S(x + (i + q) * N, N, whole, keep);                            \
            vf64_store(val + i, narrow_across_##S(v, N));                                          \
        }                                                                                          \
        if (i < rows) {                                                                            \
            v##S v[G];                                                                             \
            double last[G];                                                                        \
            for (int q = 0; q < G; q++)                                                            \
                v[q] = narrow_row_##S(x + (i + q < rows ? i + q : i) * N, N, false, keep);         \
            vf64_store(last, narrow_across_##S(v, N));                                             \
            for (int q = 0; i + q < rows; q++)                                                     \
                val[i + q] = last[q];                                                              \
        }                                                                                          \
    }
DEFINE_NARROW_SUMS(f32, float, VF32_LANES)
DEFINE_NARROW_SUMS(f64, double, VF64_LANES)

/* Rows whose length N is a power of two no longer than a vector: W rows at a time from N
 * vectors, folded log2(N) times, each time the even lanes of two vectors combined by OP (add,
 * min, max) with their odd ones (vfS_evens, vfS_odds), which leaves one vector of the W rows'
 * results, in order; a row's elements add as a tree of neighbouring pairs in the input's type.
 * A step widens two vectors where narrow_row would widen one a row. min and max feed each
 * vector loaded to a NaN detector and set *nan when it saw one (the caller then redoes the
 * rows). The last rows, fewer than W, go through a block padded with copies of the first of
 * them, so that a row's result does not depend on where it falls. */
static inline void narrow_store_results_f32(double *val, vf32 a) {
    vf64_store(val, vf64_widen_lo(a));
    vf64_store(val + VF64_LANES, vf64_widen_hi(a));
}
static inline void narrow_store_results_f64(double *val, vf64 a) {
    vf64_store(val, a);
}
/* Whether OP's fold feeds the NaN detector. */
enum { DETECT_add = 0, DETECT_min = 1, DETECT_max = 1 };
#define DEFINE_NARROW_FOLDED(S, T, W, OP)                                                          \
    static inline __attribute__((always_inline)) void narrow_fold_##OP##_##S(                      \
        const T *x, int N, double *val, int detect, v##S *seen) {                                  \
        v##S v[W];                                                                                 \
        for (int q = 0; q < N; q++) {                                                              \
            v[q] = v##S##_load(x + q * W);                                                         \
            if (detect)                                                                            \
                *seen = v##S##_nan_or(*seen, v[q], v[q]);                                          \
        }                                                                                          \
        for (int n = N; n > 1; n /= 2)                                                             \
            for (int q = 0; q < n / 2; q++)                                                        \
                v[q] = v##S##_##OP(v##S##_evens(v[2 * q], v[2 * q + 1]),                           \
                                   v##S##_odds(v[2 * q], v[2 * q + 1]));                           \
        narrow_store_results_##S(val, v[0]);                                                       \
    }                                                                                              \
    static inline __attribute__((always_inline)) void narrow_folded_##OP##_##S(                    \
        const T *x, int64_t rows, int N, double *val, int *nan) {                                  \
        v##S seen = v##S##_zero();                                                                 \
        int64_t i = 0;                                                                             \
        for (; i + W <= rows; i += W)                                                              \
            narrow_fold_##OP##_##S(x + i * N, N, val + i, DETECT_##OP, &seen);                     \
        if (i < rows) {                                                                            \
            T block[W * W];                                                                        \
            double last[W];                                                                        \
            for (int q = 0; q < W; q++)                                                            \
                for (int j = 0; j < N; j++)                                                        \
                    block[q * N + j] = x[(i + q < rows ? i + q : i) * N + j];                      \
            narrow_fold_##OP##_##S(block, N, last, DETECT_##OP, &seen);                            \
            for (int q = 0; i + q < rows; q++)                                                     \
                val[i + q] = last[q];                                                              \
        }                                                                                          \
        if (DETECT_##OP)                                                                           \
            *nan |= v##S##_any_nan(seen);                                                          \
    }
DEFINE_NARROW_FOLDED(f32, float, VF32_LANES, add)
DEFINE_NARROW_FOLDED(f32, float, VF32_LANES, min)
DEFINE_NARROW_FOLDED(f32, float, VF32_LANES, max)
DEFINE_NARROW_FOLDED(f64, double, VF64_LANES, add)
DEFINE_NARROW_FOLDED(f64, double, VF64_LANES, min)
DEFINE_NARROW_FOLDED(f64, double, VF64_LANES, max)
#define NARROW_FOLDS(S, N) ((N & (N - 1)) == 0 && N <= W_##S)

/* min or max (OP, CMP) of the rows: folded where that applies, else row by row. */
#define NARROW_EXTREMES(T, S, N, OP, CMP)                                                          \
    if (NARROW_FOLDS(S, N))                                                                        \
        narrow_folded_##OP##_##S(x, rows, N, val, &nan);                                           \
    else {                                                                                         \
        NARROW_EXTREME(T, N, CMP)                                                                  \
    }                                                                                              \
    return nan;

#define NARROW_SUMS(T, S, N)                                                                       \
    if (NARROW_FOLDS(S, N))                                                                        \
        narrow_folded_add_##S(x, rows, N, val, NULL);                                              \
    else                                                                                           \
        narrow_sums_##S(x, rows, N, val);                                                          \
    return 0;
#else
#define NARROW_EXTREMES(T, S, N, OP, CMP)                                                          \
    NARROW_EXTREME(T, N, CMP)                                                                      \
    return nan;
#define NARROW_SUMS(T, S, N)                                                                       \
    for (int64_t i = 0; i < rows; i++) {                                                           \
        const T *r = x + i * N;                                                                    \
        double s = r[0];                                                                           \
        for (int j = 1; j < N; j++)                                                                \
            s += r[j];                                                                             \
        val[i] = s;                                                                                \
    }                                                                                              \
    return 0;
#endif

/* What a narrow row's mean is summed around: float64 its first element, so that the mean is
 * x0 + sum(x - x0) / n, exact for a constant row; float32 nothing (16 floats add exactly in
 * double where their exponents lie within 25 of each other, a constant row always), which
 * the compiler drops: the subtractions had cost float32 (1000000, 4) var 7-10% more. */
#define NARROW_SHIFT(T, r) (sizeof(T) == sizeof(double) ? (double)(r)[0] : 0.0)

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
                NARROW_SUMS(T, S, N)                                                               \
            case KB_REDUCE_VAR:                                                                    \
            case KB_REDUCE_STD:                                                                    \
                for (int64_t i = 0; i < rows; i++) {                                               \
                    const T *r = x + i * N;                                                        \
                    double x0 = NARROW_SHIFT(T, r), s = r[0] - x0;                                 \
                    for (int j = 1; j < N; j++)                                                    \
                        s += r[j] - x0;                                                            \
                    double mean = x0 + s / N, dev = 0;                                             \
                    for (int j = 0; j < N; j++) {                                                  \
                        double d = r[j] - mean;                                                    \
                        dev += d * d;                                                              \
                    }                                                                              \
                    val[i] = dev;                                                                  \
                }                                                                                  \
                return 0;                                                                          \
            case KB_REDUCE_MIN:                                                                    \
                NARROW_EXTREMES(T, S, N, min, <)                                                   \
            case KB_REDUCE_MAX:                                                                    \
                NARROW_EXTREMES(T, S, N, max, >)                                                   \
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

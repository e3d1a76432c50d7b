/* Portable C inner loops: the reference every SIMD level is tested against, and the level
 * KB_SIMD=scalar selects. Four independent accumulators keep the adds pipelined without
 * depending on the compiler's vectorizer (which the build does not ask for here). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kbench/half.h"
#include "kernels/reduce_kernels.h"
#include "kernels/reduce_narrow.h"

#define ROW(T, x, i, stride) ((const T *)(const void *)((x) + (i) * (stride)))

#define DEFINE_SCALAR_KERNELS(T, S)                                                                \
    static T min_##S(const T *x, int64_t n) {                                                      \
        T m = x[0];                                                                                \
        for (int64_t i = 1; i < n; i++) {                                                          \
            if (isnan(x[i]))                                                                       \
                return x[i];                                                                       \
            if (x[i] < m)                                                                          \
                m = x[i];                                                                          \
        }                                                                                          \
        return m;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static T max_##S(const T *x, int64_t n) {                                                      \
        T m = x[0];                                                                                \
        for (int64_t i = 1; i < n; i++) {                                                          \
            if (isnan(x[i]))                                                                       \
                return x[i];                                                                       \
            if (x[i] > m)                                                                          \
                m = x[i];                                                                          \
        }                                                                                          \
        return m;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static int64_t argmin_##S(const T *x, int64_t n) {                                             \
        int64_t best = 0;                                                                          \
        if (isnan(x[0]))                                                                           \
            return 0;                                                                              \
        for (int64_t i = 1; i < n; i++) {                                                          \
            if (isnan(x[i]))                                                                       \
                return i;                                                                          \
            if (x[i] < x[best])                                                                    \
                best = i;                                                                          \
        }                                                                                          \
        return best;                                                                               \
    }                                                                                              \
                                                                                                   \
    static int64_t argmax_##S(const T *x, int64_t n) {                                             \
        int64_t best = 0;                                                                          \
        if (isnan(x[0]))                                                                           \
            return 0;                                                                              \
        for (int64_t i = 1; i < n; i++) {                                                          \
            if (isnan(x[i]))                                                                       \
                return i;                                                                          \
            if (x[i] > x[best])                                                                    \
                best = i;                                                                          \
        }                                                                                          \
        return best;                                                                               \
    }                                                                                              \
                                                                                                   \
    static void argmin_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n,            \
                                int64_t *out, bool far) {                                          \
        (void)far; /* one row at a time */                                                         \
        for (int64_t i = 0; i < rows; i++)                                                         \
            out[i] = argmin_##S(ROW(T, x, i, stride), n);                                          \
    }                                                                                              \
                                                                                                   \
    static void argmax_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n,            \
                                int64_t *out, bool far) {                                          \
        (void)far; /* one row at a time */                                                         \
        for (int64_t i = 0; i < rows; i++)                                                         \
            out[i] = argmax_##S(ROW(T, x, i, stride), n);                                          \
    }                                                                                              \
                                                                                                   \
    static void sqdev_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,             \
                               const double *c, double *acc) {                                     \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++) {                                                      \
                double d = r[j] - c[j];                                                            \
                acc[j] += d * d;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void min_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, T *acc) {     \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++)                                                        \
                if (r[j] < acc[j] || isnan(r[j]))                                                  \
                    acc[j] = isnan(acc[j]) ? acc[j] : r[j];                                        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void max_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, T *acc) {     \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++)                                                        \
                if (r[j] > acc[j] || isnan(r[j]))                                                  \
                    acc[j] = isnan(acc[j]) ? acc[j] : r[j];                                        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void argmin_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++)                                                        \
                if (!isnan(best[j]) && (r[j] < best[j] || isnan(r[j]))) {                          \
                    best[j] = r[j];                                                                \
                    index[j] = first + i;                                                          \
                }                                                                                  \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void argmax_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++)                                                        \
                if (!isnan(best[j]) && (r[j] > best[j] || isnan(r[j]))) {                          \
                    best[j] = r[j];                                                                \
                    index[j] = first + i;                                                          \
                }                                                                                  \
        }                                                                                          \
    }

DEFINE_SCALAR_KERNELS(float, f32)
DEFINE_SCALAR_KERNELS(double, f64)

/* The sums of every type the table serves, in double from the first element, each element
 * converted by LOAD. */
#define DEFINE_SCALAR_SUMS(S, T, LOAD)                                                             \
    static double sum_##S(const void *xv, int64_t n, bool far) {                                   \
        (void)far; /* the plain loop: no prefetching */                                            \
        const T *x = xv;                                                                           \
        double a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                     \
        int64_t i = 0;                                                                             \
        for (; i + 4 <= n; i += 4) {                                                               \
            a0 += LOAD(x[i]);                                                                      \
            a1 += LOAD(x[i + 1]);                                                                  \
            a2 += LOAD(x[i + 2]);                                                                  \
            a3 += LOAD(x[i + 3]);                                                                  \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            a0 += LOAD(x[i]);                                                                      \
        return (a0 + a1) + (a2 + a3);                                                              \
    }                                                                                              \
                                                                                                   \
    static void sum_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc,  \
                             bool far) {                                                           \
        (void)far; /* the plain loop: no prefetching */                                            \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++)                                                        \
                acc[j] += LOAD(r[j]);                                                              \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sum_cols_ranges_##S(const char *x, int64_t ranges, int64_t range, int64_t rows,    \
                                    int64_t stride, int64_t m, double *out, int64_t out_step) {    \
        for (int64_t q = 0; q < ranges; q++)                                                       \
            sum_cols_##S(x + q * range, rows, stride, m, out + q * out_step, true);                \
    }                                                                                              \
                                                                                                   \
    static void sum_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n, double *out,  \
                             bool far) {                                                           \
        for (int64_t i = 0; i < rows; i++)                                                         \
            out[i] = sum_##S(x + i * stride, n, far);                                              \
    }

/* cols then the store, in one loop: each column's rows added in double from a zero, in
 * order, divided once and narrowed by NARROW. */
#define DEFINE_SCALAR_COLS_STORE(S, T, LOAD, NARROW)                                               \
    static bool sum_cols_store_##S(const char *x, int64_t rows, int64_t stride, int64_t m,         \
                                   double scale, void *out) {                                      \
        if (rows < 1 || rows > KB_SUM_STORE_ROWS)                                                  \
            return false;                                                                          \
        T *o = out;                                                                                \
        for (int64_t j = 0; j < m; j++) {                                                          \
            double s = 0;                                                                          \
            for (int64_t i = 0; i < rows; i++)                                                     \
                s += LOAD(ROW(T, x, i, stride)[j]);                                                \
            o[j] = NARROW(s / scale);                                                              \
        }                                                                                          \
        return true;                                                                               \
    }

#define AS_DOUBLE(v) ((double)(v))
#define AS_FLOAT(v) ((float)(v))
DEFINE_SCALAR_COLS_STORE(f32, float, AS_DOUBLE, AS_FLOAT)
DEFINE_SCALAR_COLS_STORE(f64, double, AS_DOUBLE, AS_DOUBLE)
DEFINE_SCALAR_SUMS(f32, float, AS_DOUBLE)
DEFINE_SCALAR_SUMS(f64, double, AS_DOUBLE)
DEFINE_SCALAR_SUMS(f16, uint16_t, kb_f16_to_f32)
DEFINE_SCALAR_SUMS(bf16, uint16_t, kb_bf16_to_f32)
DEFINE_SCALAR_SUMS(i32, int32_t, AS_DOUBLE)

#define DEFINE_SCALAR_EXTREME_ROWS(S, T, OP)                                                       \
    static void OP##_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,   \
                              int64_t out_stride, bool far) {                                      \
        (void)far;                                                                                 \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            T value = OP##_##S(ROW(T, x, i, stride), n);                                           \
            memcpy(out + i * out_stride, &value, sizeof value);                                    \
        }                                                                                          \
    }
DEFINE_SCALAR_EXTREME_ROWS(f32, float, min)
DEFINE_SCALAR_EXTREME_ROWS(f32, float, max)
DEFINE_SCALAR_EXTREME_ROWS(f64, double, min)
DEFINE_SCALAR_EXTREME_ROWS(f64, double, max)

static void store_f16(const double *sums, int64_t n, double scale, uint16_t *out) {
    for (int64_t j = 0; j < n; j++)
        out[j] = kb_f64_to_f16(sums[j] / scale);
}
static void store_f32(const double *sums, int64_t n, double scale, float *out) {
    for (int64_t j = 0; j < n; j++)
        out[j] = (float)(sums[j] / scale);
}
static void store_f64(const double *sums, int64_t n, double scale, double *out) {
    for (int64_t j = 0; j < n; j++)
        out[j] = sums[j] / scale;
}
static void store_sqrt_f32(const double *sums, int64_t n, double scale, float *out) {
    for (int64_t j = 0; j < n; j++)
        out[j] = (float)sqrt(sums[j] / scale);
}
static void store_sqrt_f64(const double *sums, int64_t n, double scale, double *out) {
    for (int64_t j = 0; j < n; j++)
        out[j] = sqrt(sums[j] / scale);
}

/* float64 var and std of a run, by the contract of the vector levels' kernel
 * (reduce_moments.h): the center is the mean of the first KB_MOMENTS_PILOT elements, formed
 * as x0 + their deviations from x0 / their count; then the deviations from it, summed and
 * squared, in one pass. */
static void moments_f64(const double *x, int64_t n, double *center, double *sum, double *sq) {
    int64_t m = n < KB_MOMENTS_PILOT ? n : KB_MOMENTS_PILOT;
    double p0 = 0, p1 = 0;
    int64_t i = 0;
    for (; i + 2 <= m; i += 2) {
        p0 += x[i] - x[0];
        p1 += x[i + 1] - x[0];
    }
    if (i < m)
        p0 += x[i] - x[0];
    double c = x[0] + (p0 + p1) / (double)m;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (i = 0; i + 4 <= n; i += 4) {
        double d0 = x[i] - c, d1 = x[i + 1] - c, d2 = x[i + 2] - c, d3 = x[i + 3] - c;
        s0 += d0;
        s1 += d1;
        s2 += d2;
        s3 += d3;
        a0 += d0 * d0;
        a1 += d1 * d1;
        a2 += d2 * d2;
        a3 += d3 * d3;
    }
    for (; i < n; i++) {
        double d = x[i] - c;
        s0 += d;
        a0 += d * d;
    }
    *center = c;
    *sum = (s0 + s1) + (s2 + s3);
    *sq = (a0 + a1) + (a2 + a3);
}

/* float32 var and std, by the contract of the vector levels' one-pass kernel
 * (reduce_moments.h), in two passes: without vectors, a pass of plain sums and one of squared
 * deviations take fewer operations per element than subtracting, adding and squaring in one
 * (59 against 75 us for 131072 elements on Zen 4). n x[i] and n center are exact in double
 * (24-bit values, n at most 4096), so a constant run still gives 0 and 0 exactly. */
static void moments_f32(const float *x, int64_t n, float center, double *sum, double *sq) {
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 += x[i];
        a1 += x[i + 1];
        a2 += x[i + 2];
        a3 += x[i + 3];
    }
    for (; i < n; i++)
        a0 += x[i];
    *sum = ((a0 + a1) + (a2 + a3)) - (double)n * center;
    double q0 = 0, q1 = 0, q2 = 0, q3 = 0;
    for (i = 0; i + 4 <= n; i += 4) {
        double d0 = x[i] - (double)center, d1 = x[i + 1] - (double)center;
        double d2 = x[i + 2] - (double)center, d3 = x[i + 3] - (double)center;
        q0 += d0 * d0;
        q1 += d1 * d1;
        q2 += d2 * d2;
        q3 += d3 * d3;
    }
    for (; i < n; i++) {
        double d = x[i] - (double)center;
        q0 += d * d;
    }
    *sq = (q0 + q1) + (q2 + q3);
}

#define DEFINE_MOMENTS_COLS(S, T)                                                                  \
    static void moments_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,           \
                                 const T *center, double *sum, double *sq, bool far) {             \
        (void)far;                                                                                 \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            for (int64_t j = 0; j < m; j++) {                                                      \
                double d = (double)r[j] - (double)center[j];                                       \
                sum[j] += d;                                                                       \
                sq[j] += d * d;                                                                    \
            }                                                                                      \
        }                                                                                          \
    }
DEFINE_MOMENTS_COLS(f32, float)
DEFINE_MOMENTS_COLS(f64, double)

/* Without vectors there are no float32 lanes to keep: the widened form serves any center. */
static void moments_cols_near_f32(const char *x, int64_t rows, int64_t stride, int64_t m,
                                  const float *center, double *sum, double *sq, bool far) {
    moments_cols_f32(x, rows, stride, m, center, sum, sq, far);
}

/* Row by row, as the run's kernels and their callers do it (reduce_moments.h). */
static void moments_rows_f32(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far) {
    (void)far;
    for (int64_t i = 0; i < rows; i++) {
        const float *r = ROW(float, x, i, stride);
        double s1, s2;
        moments_f32(r, n, r[0], &s1, &s2);
        kb_moments_row_out_f32(i, r[0], s1, s2, n, dev, sums);
    }
}
static void moments_rows_f64(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far) {
    (void)far;
    for (int64_t i = 0; i < rows; i++) {
        double c, s1, s2;
        moments_f64(ROW(double, x, i, stride), n, &c, &s1, &s2);
        kb_moments_row_out_f64(i, c, s1, s2, n, dev, sums);
    }
}
static void sumd_cols_f32(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc) {
    sum_cols_f32(x, rows, stride, m, acc, false);
}
static void sumd_cols_f64(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc) {
    sum_cols_f64(x, rows, stride, m, acc, false);
}

static const kb_reduce_kernels scalar_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_scalar(void) {
    return &scalar_kernels;
}

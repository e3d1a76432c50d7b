#ifndef KB_KERNELS_REDUCE_KERNELS_H
#define KB_KERNELS_REDUCE_KERNELS_H

/* The inner loops of the float reductions, one table per instruction set
 * (reduce_scalar.c, reduce_avx2.c, reduce_avx512.c, reduce_neon.c). The driver in reduce.c
 * handles axes, strides, blocking, threads and the pairwise combination of partial results;
 * the kernels see only two shapes of work:
 *
 *   run:  n contiguous elements, 1 <= n <= KB_REDUCE_BLOCK, reduced to one value (sums also
 *         come for many such rows in one call, for short rows);
 *   cols: `rows` rows of m contiguous elements, row i starting at x + i*stride bytes
 *         (stride > 0; rows may be adjacent, as in a narrow (N, 2) array), reduced
 *         column by column into m accumulators that the call updates.
 *
 * Contracts every level keeps, so that levels agree with the scalar reference:
 *   - sums: each lane adds at most 16 elements in its partial type (float32 for float32,
 *     float16 and bfloat16; float64 for float64 and int32) before its partial sum is folded
 *     into double (float32 at float32 speed, reduce_sum.h); the moments of var and std
 *     (moments_f32, moments_f64, the column sums and squared deviations) accumulate in
 *     double, but for moments_cols_near_f32, which adds float32 deviations and squares over
 *     a few rows first (as the sums do their partials; the scalar level widens instead),
 *     around a center that a constant run or column gives exactly (its first element, its
 *     first row, x0 + sum(x - x0) / m, or the mean of the rows before), so that data exact in
 *     double, such as a constant column, gives an exact mean and a zero deviation;
 *   - min/max return NaN if any element is NaN (NumPy's propagation);
 *   - arg kernels return the first index of the extreme, or of the first NaN; the cols
 *     forms update (best, index) only on a strict improvement, or on the first NaN while
 *     best is not yet NaN, so the earliest row wins ties. */

#include <stdbool.h>
#include <stdint.h>

#include "core/cache_size.h"
#include "kbench/reduce.h"
#include "kbench/simd.h"

#define KB_REDUCE_BLOCK 4096

/* The input types that sums and means read at vector speed: float32 and float64 as they are,
 * and, converted in registers as they are loaded, float16 and bfloat16 (into float32 lanes)
 * and int32 (into float64 lanes, exact). */
typedef enum kb_sum_type {
    KB_SUM_F32,
    KB_SUM_F64,
    KB_SUM_F16,
    KB_SUM_BF16,
    KB_SUM_I32,
    KB_SUM_TYPES
} kb_sum_type;

/* The sum kernels of one input type; every sum is returned or accumulated in double. */
typedef struct kb_sum_kernels {
    /* the sum of n contiguous elements; far: the input is at least half the last-level cache
     * (kb_cache_far), and the kernel prefetches ahead of its loads (reduce_sum.h) */
    double (*run)(const void *x, int64_t n, bool far);
    /* acc[j] += sum over rows of x[i][j]; far: the rows come from beyond the last-level
     * cache, and the kernel prefetches the rows ahead of the ones it reads (reduce_sum.h) */
    void (*cols)(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc, bool far);
    /* cols from memory over ranges blocks of rows rows each, range bytes apart, block q adding
     * into out + q * out_step with the bits cols gives it alone: blocks of narrow rows read
     * several at once (reduce_sum.h) */
    void (*cols_ranges)(const char *x, int64_t ranges, int64_t range, int64_t rows, int64_t stride,
                        int64_t m, double *out, int64_t out_step);
    /* out[i] = sum of row i's n elements (n <= KB_REDUCE_BLOCK), rows stride bytes apart; far:
     * from memory (or rows of a page or more from L3, rows_together in reduce_float.c), long
     * rows read several at once where kb_reduce_streams says so, each row with the bits the
     * run kernel gives it */
    void (*rows)(const char *x, int64_t rows, int64_t stride, int64_t n, double *out, bool far);
    /* few rows (1 to KB_SUM_STORE_ROWS) summed down their m columns straight into a contiguous
     * output of the input's type: out[j] = (sum over rows of x[i][j]) / scale, with the bits
     * cols into zeroed sums and then the store kernel give it; false, having written nothing,
     * for rows narrow enough to go by lanes (reduce_lanes.h). float32 and float64 only: a
     * float16 store's rounding is a dozen operations a vector, and between the loads of the
     * rows it made (4, 1000000) float16 along axis 0 6% slower than in a loop of its own (Zen
     * 3, one thread); int32's results are not int32 */
    bool (*cols_store)(const char *x, int64_t rows, int64_t stride, int64_t m, double scale,
                       void *out);
} kb_sum_kernels;

/* The most rows cols_store takes: one partial's depth (reduce_sum.h), few enough that their
 * rows go as separate streams. */
#define KB_SUM_STORE_ROWS 16

typedef struct kb_reduce_kernels {
    kb_sum_kernels sum[KB_SUM_TYPES];
    /* out[j] = sums[j] / scale in the output type, rounded once (float16 as kb_f64_to_f16
     * rounds, raw bits): the contiguous results of sums and means, whose divisions would
     * otherwise cost as much as reading a few rows */
    void (*store_f16)(const double *sums, int64_t n, double scale, uint16_t *out);
    void (*store_f32)(const double *sums, int64_t n, double scale, float *out);
    void (*store_f64)(const double *sums, int64_t n, double scale, double *out);
    /* out[j] = sqrt(sums[j] / scale), rounded to the type once the root is taken: std */
    void (*store_sqrt_f32)(const double *sums, int64_t n, double scale, float *out);
    void (*store_sqrt_f64)(const double *sums, int64_t n, double scale, double *out);
    /* float32 var and std of a run, in one pass: *sum = sum of (x[i] - center) and
     * *sq = sum of (x[i] - center)^2, both in double from the first element; the driver
     * passes a value of the run as the center, so that a constant run gives 0 and 0 exactly
     * (reduce_moments.h) */
    void (*moments_f32)(const float *x, int64_t n, float center, double *sum, double *sq);
    /* the same by columns: sum[j] += sum over rows of (x[i][j] - center[j]), sq[j] += the sum
     * of their squares, in double; the driver passes a block's first row as float32's centers
     * and the mean of the rows before the block as float64's (moments_chunk, reduce_float.c);
     * far: the input comes from memory, prefetch the rows that follow */
    void (*moments_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m,
                             const float *center, double *sum, double *sq, bool far);
    /* float32's the same with d, d * d and their sums over a few rows in float32 lanes first
     * (reduce_moments.h), for centers near the mean: the driver passes the mean of the rows
     * before the block, rounded to float32 */
    void (*moments_cols_near_f32)(const char *x, int64_t rows, int64_t stride, int64_t m,
                                  const float *center, double *sum, double *sq, bool far);
    void (*moments_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m,
                             const double *center, double *sum, double *sq, bool far);
    /* M2, the sum of squared deviations from the mean, of each of rows rows of n elements
     * (n <= KB_REDUCE_BLOCK), stride bytes apart, or, where sums is not NULL, the sums a
     * partial is made of (kb_moments_row_out_f32, _f64): float32 as moments_f32 with the row's
     * first element as the center, float64 as moments_f64, each row with the bits those give it,
     * but for rows whose M2 alone is asked for and that are at most four vectors long (float32)
     * or KB_MOMENTS_PILOT elements (float64), which take another order of the same sums (far:
     * from memory, long rows several at once where kb_reduce_streams says so) */
    void (*moments_rows_f32)(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far);
    void (*moments_rows_f64)(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far);
    /* float64 var and std of a run, in one pass: *center = the mean of its first elements
     * (x0 + their deviations from x0 / their count, so that a constant run centers on its
     * value), *sum = sum of (x[i] - center) and *sq = sum of (x[i] - center)^2 (reduce_moments.h)
     */
    void (*moments_f64)(const double *x, int64_t n, double *center, double *sum, double *sq);
    float (*min_f32)(const float *x, int64_t n);
    float (*max_f32)(const float *x, int64_t n);
    double (*min_f64)(const double *x, int64_t n);
    double (*max_f64)(const double *x, int64_t n);
    int64_t (*argmin_f32)(const float *x, int64_t n);
    int64_t (*argmax_f32)(const float *x, int64_t n);
    int64_t (*argmin_f64)(const double *x, int64_t n);
    int64_t (*argmax_f64)(const double *x, int64_t n);

    /* acc[j] += sum over rows of (x[i][j] - center[j])^2 */
    void (*sqdev_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m,
                           const double *center, double *acc);
    void (*sqdev_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m,
                           const double *center, double *acc);
    /* acc[j] = min(acc[j], x[i][j]) over rows, NaN propagating */
    void (*min_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m, float *acc);
    void (*max_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m, float *acc);
    void (*min_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc);
    void (*max_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc);
    /* Row i has index first_row + i; best/index hold the running extreme per column. */
    void (*argmin_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m,
                            int64_t first_row, float *best, int64_t *index);
    void (*argmax_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m,
                            int64_t first_row, float *best, int64_t *index);
    void (*argmin_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m,
                            int64_t first_row, double *best, int64_t *index);
    void (*argmax_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m,
                            int64_t first_row, double *best, int64_t *index);

    /* out[i * out_stride] = min or max of row i's n elements (n <= KB_REDUCE_BLOCK), as the
     * run kernels give it (NaN rules included); far: the rows come from memory, and long ones
     * are read several at once where kb_reduce_streams says so */
    void (*min_rows_f32)(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,
                         int64_t out_stride, bool far);
    void (*max_rows_f32)(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,
                         int64_t out_stride, bool far);
    void (*min_rows_f64)(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,
                         int64_t out_stride, bool far);
    void (*max_rows_f64)(const char *x, int64_t rows, int64_t stride, int64_t n, char *out,
                         int64_t out_stride, bool far);

    /* out[i] = argmin or argmax of row i's n elements (n <= KB_REDUCE_BLOCK), as the run kernels
     * give it (the first NaN's index included); far: from memory, long rows are read several at
     * once where kb_reduce_streams says so */
    void (*argmin_rows_f32)(const char *x, int64_t rows, int64_t stride, int64_t n, int64_t *out,
                            bool far);
    void (*argmax_rows_f32)(const char *x, int64_t rows, int64_t stride, int64_t n, int64_t *out,
                            bool far);
    void (*argmin_rows_f64)(const char *x, int64_t rows, int64_t stride, int64_t n, int64_t *out,
                            bool far);
    void (*argmax_rows_f64)(const char *x, int64_t rows, int64_t stride, int64_t n, int64_t *out,
                            bool far);

    /* Rows of n adjacent elements (2 <= n <= KB_REDUCE_NARROW; row i at x + i * n), as the
     * narrow mode's reference gives them, but for the vector levels' sums, whose lanes add in
     * the input's type first (reduce_narrow.h): sums (sum, mean), extremes (min,
     * max) or squared deviations about the row mean (var, std) into val, indices (argmin,
     * argmax) into idx. Nonzero when min, max or an arg op met a NaN, or op is not one of
     * these: the caller redoes the rows by the reference. */
    int (*narrow_rows_f32)(kb_reduce_op op, const float *x, int64_t rows, int64_t n, double *val,
                           int64_t *idx);
    int (*narrow_rows_f64)(kb_reduce_op op, const double *x, int64_t rows, int64_t n, double *val,
                           int64_t *idx);

    /* acc[j] += the sum over rows of x[i][j], in double from the first row: the means of the
     * first block of var and std by columns (reduce_float.c) */
    void (*sumd_cols_f32)(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc);
    void (*sumd_cols_f64)(const char *x, int64_t rows, int64_t stride, int64_t m, double *acc);
} kb_reduce_kernels;

/* The table of a per-target file, from its functions of these names (static in each file). */
#define KB_SUM_ENTRY(S, COLS_STORE)                                                                \
    {                                                                                              \
        .run = sum_##S, .cols = sum_cols_##S, .cols_ranges = sum_cols_ranges_##S,                  \
        .rows = sum_rows_##S, .cols_store = COLS_STORE                                             \
    }
#define KB_REDUCE_KERNELS_TABLE                                                                    \
    {                                                                                              \
        .sum = {[KB_SUM_F32] = KB_SUM_ENTRY(f32, sum_cols_store_f32),                              \
                [KB_SUM_F64] = KB_SUM_ENTRY(f64, sum_cols_store_f64),                              \
                [KB_SUM_F16] = KB_SUM_ENTRY(f16, NULL),                                            \
                [KB_SUM_BF16] = KB_SUM_ENTRY(bf16, NULL),                                          \
                [KB_SUM_I32] = KB_SUM_ENTRY(i32, NULL)},                                           \
        .store_f16 = store_f16, .min_rows_f32 = min_rows_f32, .max_rows_f32 = max_rows_f32,        \
        .min_rows_f64 = min_rows_f64, .max_rows_f64 = max_rows_f64, .store_f32 = store_f32,        \
        .store_f64 = store_f64, .store_sqrt_f32 = store_sqrt_f32,                                  \
        .store_sqrt_f64 = store_sqrt_f64, .moments_f32 = moments_f32,                              \
        .moments_cols_f32 = moments_cols_f32, .moments_cols_near_f32 = moments_cols_near_f32,      \
        .moments_cols_f64 = moments_cols_f64, .moments_rows_f32 = moments_rows_f32,                \
        .moments_rows_f64 = moments_rows_f64, .moments_f64 = moments_f64, .min_f32 = min_f32,      \
        .max_f32 = max_f32, .min_f64 = min_f64, .max_f64 = max_f64, .argmin_f32 = argmin_f32,      \
        .argmax_f32 = argmax_f32, .argmin_f64 = argmin_f64, .argmax_f64 = argmax_f64,              \
        .sqdev_cols_f32 = sqdev_cols_f32, .sqdev_cols_f64 = sqdev_cols_f64,                        \
        .min_cols_f32 = min_cols_f32, .max_cols_f32 = max_cols_f32, .min_cols_f64 = min_cols_f64,  \
        .max_cols_f64 = max_cols_f64, .argmin_cols_f32 = argmin_cols_f32,                          \
        .argmax_cols_f32 = argmax_cols_f32, .argmin_cols_f64 = argmin_cols_f64,                    \
        .argmax_cols_f64 = argmax_cols_f64, .sumd_cols_f32 = sumd_cols_f32,                        \
        .sumd_cols_f64 = sumd_cols_f64, .narrow_rows_f32 = narrow_rows_f32,                        \
        .narrow_rows_f64 = narrow_rows_f64, .argmin_rows_f32 = argmin_rows_f32,                    \
        .argmax_rows_f32 = argmax_rows_f32, .argmin_rows_f64 = argmin_rows_f64,                    \
        .argmax_rows_f64 = argmax_rows_f64,                                                        \
    }

/* Each returns its level's table; a level that is not compiled has no definition. The
 * levels with a table are listed in the dispatch registry (KB_SIMD_REDUCE_TABLES). */
const kb_reduce_kernels *kb_reduce_kernels_scalar(void);
const kb_reduce_kernels *kb_reduce_kernels_avx2(void);
const kb_reduce_kernels *kb_reduce_kernels_avx512(void);
const kb_reduce_kernels *kb_reduce_kernels_neon(void);
const kb_reduce_kernels *kb_reduce_kernels_sve(void);
/* SVE's tables, one per vector length compiled; kb_reduce_kernels_sve picks one. */
const kb_reduce_kernels *kb_reduce_kernels_sve128(void);
const kb_reduce_kernels *kb_reduce_kernels_sve256(void);
const kb_reduce_kernels *kb_reduce_kernels_sve512(void);

/* How this machine's memory is best read, measured once per process the first time either is
 * asked (reduce_memory.c); neither changes a bit of any result:
 *   kb_reduce_streams:       long rows from memory several at once (NSTREAMS, reduce_target.h),
 *                            not one at a time;
 *   kb_reduce_prefetch_rows: column kernels reading from memory prefetch the rows ahead of
 *                            those they read. */
bool kb_reduce_streams(void);
bool kb_reduce_prefetch_rows(void);
/* Sets both instead, before or between reductions (the tests take every way). */
void kb_reduce_memory_set(bool several, bool ahead);

/* The elements whose mean centers a float64 run of var and std (moments_f64, reduce_moments.h). */
#define KB_MOMENTS_PILOT 256

/* What moments_rows_f32 and _f64 leave for row i from its center c and its sums of deviations
 * from it, s1, and of their squares, s2: its M2 in dev[i], or, where sums is not NULL, the sums
 * for the caller's kb_moments_partial (float32: s1 and s2 in sums[2 i] and sums[2 i + 1], the
 * center being the row's first element; float64: c, s1 and s2 in sums[3 i] to sums[3 i + 2]), so
 * that a block's M2 is formed where run_block forms it, whatever a compiler contracts in a
 * target's file. */
static inline void kb_moments_row_m2(int64_t i, double s1, double s2, int64_t n, double *dev) {
    double m2 = s2 - s1 * (s1 / (double)n);
    dev[i] = m2 < 0 ? 0 : m2; /* rounding; a NaN stays */
}
static inline void kb_moments_row_out_f32(int64_t i, double c, double s1, double s2, int64_t n,
                                          double *dev, double *sums) {
    (void)c;
    if (!sums)
        kb_moments_row_m2(i, s1, s2, n, dev);
    else {
        sums[2 * i] = s1;
        sums[2 * i + 1] = s2;
    }
}
static inline void kb_moments_row_out_f64(int64_t i, double c, double s1, double s2, int64_t n,
                                          double *dev, double *sums) {
    if (!sums)
        kb_moments_row_m2(i, s1, s2, n, dev);
    else {
        sums[3 * i] = c;
        sums[3 * i + 1] = s1;
        sums[3 * i + 2] = s2;
    }
}

/* The table that runs at a level: its own, or the one the registry's fallback rule gives
 * (kb_simd_table_level). The caller has checked that the level is available. */
const kb_reduce_kernels *kb_reduce_kernels_for(kb_simd_level level);

#endif

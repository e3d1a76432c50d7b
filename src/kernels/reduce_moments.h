#ifndef KB_KERNELS_REDUCE_MOMENTS_H
#define KB_KERNELS_REDUCE_MOMENTS_H

/* The moments of var and std: one pass over a run (moments_f32, moments_f64, see
 * reduce_kernels.h), by rows and by columns, written once over the vector layer
 * (simd/internal.h) and compiled by each per-target file after the layer.
 *
 * Why one pass, shifted by a center near the run's values. Two passes (the mean, then the
 * squared deviations around it) read a block twice and spend an add a vector on the first:
 * float32 widened every element twice, and was bounded by the widening, not memory (26 GB/s
 * from L2 on Zen 4, where a float32 sum reads at 90); float64's two passes held its var from L3
 * to 39 GB/s and from memory to 23 (Zen 3, one thread; the sum: 56 and 31). One pass sums
 * d = x - center and d * d together, and the driver finishes with mean = center + S1 / n and
 * M2 = S2 - S1^2 / n ("shifted data", kb_moments_partial).
 *
 * What the shift costs is the cancellation in M2 = S2 - S1^2 / n, where S1^2 / n = n (mean -
 * center)^2: relative to M2, S2 carries its rounding errors amplified by 1 + k^2, k the
 * distance of the center from the mean in standard deviations.
 *  - float32: the center is the run's first element, a float, so each d is exact in double
 *    and a constant run gives S1 = S2 = 0; k^2 <= n - 1 (a value lies within sqrt(n - 1)
 *    standard deviations of the mean), so M2 keeps within about n * 4096 double roundings, far
 *    below the float32 the result is rounded to.
 *  - float64: a first element could lie 64 standard deviations off a block of 4096, which would
 *    cost twelve of float64's bits. The center is the mean of the run's first KB_MOMENTS_PILOT
 *    elements instead (moments_center_f64, formed as x0 + sum(x - x0) / m so that a constant run
 *    still centers on its value exactly and gives 0): a mean of m of the n values lies within
 *    sqrt(n / m - 1) standard deviations of the mean of all n, so k^2 <= 15 for a block of
 *    4096, and on data in no particular order k^2 is about 1 / m. The bound is
 *    docs/reductions.md's; tests/kernels/test_reduce.c holds blocks whose first 256 values sit
 *    far from the rest.
 *
 * The deviations are subtracted on the adders and summed half on the adders, half by fused
 * multiply-adds (d * 1 + s rounds as d + s does), so that both kinds of floating-point unit
 * share the work; float32's widening takes the adders' share of its sums.
 *
 * The tail is loaded with the center in the lanes past n, which adds 0 to both sums. */

#define KB_MOMENTS_NACC 4  /* double accumulators of each sum */
#define KB_MOMENTS_LINE 64 /* bytes a prefetch brings; every target's line is at least this */

static inline vf64 moments_load_f32(const float *p) {
    return vf64_load_f32(p);
}
static inline vf64 moments_load_f64(const double *p) {
    return vf64_load(p);
}
/* Whether a run's sum of deviations goes half on the adders (float64) or all by fused
 * multiply-adds (float32, whose widening keeps the adders busy). */
#define MOMENTS_SPLIT_f32 0
#define MOMENTS_SPLIT_f64 1

/* The tail of a run from i: whole vectors of the type, the last loaded with the center past
 * n, into s[0] and s[1], q[0] and q[1]; then the fold of the accumulators. */
static inline __attribute__((always_inline)) void
moments_tail_f32(const float *x, int64_t i, int64_t n, double center, vf64 c, vf64 *s, vf64 *q) {
    vf64 one = vf64_set1(1);
    for (; i < n; i += VF32_LANES) {
        vf32 a =
            n - i >= VF32_LANES ? vf32_load(x + i) : vf32_load_till_or(x + i, n - i, (float)center);
        vf64 lo = vf64_sub(vf64_widen_lo(a), c), hi = vf64_sub(vf64_widen_hi(a), c);
        s[0] = vf64_fma(lo, one, s[0]);
        s[1] = vf64_fma(hi, one, s[1]);
        q[0] = vf64_fma(lo, lo, q[0]);
        q[1] = vf64_fma(hi, hi, q[1]);
    }
}
static inline __attribute__((always_inline)) void
moments_tail_f64(const double *x, int64_t i, int64_t n, double center, vf64 c, vf64 *s, vf64 *q) {
    for (; i < n; i += VF64_LANES) {
        vf64 d = vf64_sub(
            n - i >= VF64_LANES ? vf64_load(x + i) : vf64_load_till_or(x + i, n - i, center), c);
        s[0] = vf64_add(s[0], d);
        q[0] = vf64_fma(d, d, q[0]);
    }
}

/* A step of a run: NACC vectors from i, each into accumulators of its own; its end: the tail
 * and the fold; the run; and nr (at most NSTREAMS) runs of n elements at once, each around its
 * own center, a segment of KB_MOMENTS_SEGMENT steps of each run in turn, each step prefetching
 * KB_FAR_AHEAD_BYTES ahead: memory sees nr streams, where one row at a time read float32 4096 x
 * 4096 var from memory at the speed of a single stream (17 GB/s against 29 for the load probe,
 * Zen 3, one thread; 21.8 GB/s this way without the prefetches, 23.4 with; segments of 4 KiB or
 * more a row fell back to 15-17). Each run keeps the accumulators, and so the bits, it has
 * alone. */
#define KB_MOMENTS_SEGMENT 16
#define DEFINE_MOMENTS_RUN(S, T)                                                                   \
    static inline __attribute__((always_inline)) void moments_step_##S(                            \
        const T *x, int64_t i, vf64 c, vf64 s[KB_MOMENTS_NACC], vf64 q[KB_MOMENTS_NACC]) {         \
        vf64 one = vf64_set1(1);                                                                   \
        for (int k = 0; k < KB_MOMENTS_NACC; k++) {                                                \
            vf64 d = vf64_sub(moments_load_##S(x + i + k * VF64_LANES), c);                        \
            s[k] = MOMENTS_SPLIT_##S && k % 2 == 0 ? vf64_add(s[k], d) : vf64_fma(d, one, s[k]);   \
            q[k] = vf64_fma(d, d, q[k]);                                                           \
        }                                                                                          \
    }                                                                                              \
    static inline __attribute__((always_inline)) void moments_end_##S(                             \
        const T *x, int64_t i, int64_t n, double center, vf64 s[KB_MOMENTS_NACC],                  \
        vf64 q[KB_MOMENTS_NACC], double *sum, double *sq) {                                        \
        moments_tail_##S(x, i, n, center, vf64_set1(center), s, q);                                \
        *sum = vf64_hsum(vf64_add(vf64_add(s[0], s[1]), vf64_add(s[2], s[3])));                    \
        *sq = vf64_hsum(vf64_add(vf64_add(q[0], q[1]), vf64_add(q[2], q[3])));                     \
    }                                                                                              \
    static void moments_run_##S(const T *x, int64_t n, double center, double *sum, double *sq) {   \
        vf64 c = vf64_set1(center), s[KB_MOMENTS_NACC], q[KB_MOMENTS_NACC];                        \
        for (int k = 0; k < KB_MOMENTS_NACC; k++)                                                  \
            s[k] = q[k] = vf64_zero();                                                             \
        int64_t i = 0;                                                                             \
        for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES)           \
            moments_step_##S(x, i, c, s, q);                                                       \
        moments_end_##S(x, i, n, center, s, q, sum, sq);                                           \
    }                                                                                              \
    static void moments_together_##S(const T *const *r, int nr, int64_t n, const double *center,   \
                                     double *sum, double *sq) {                                    \
        enum { STEP = KB_MOMENTS_NACC * VF64_LANES, SEGMENT = KB_MOMENTS_SEGMENT * STEP };         \
        vf64 s[NSTREAMS][KB_MOMENTS_NACC], q[NSTREAMS][KB_MOMENTS_NACC];                           \
        for (int g = 0; g < nr; g++)                                                               \
            for (int k = 0; k < KB_MOMENTS_NACC; k++)                                              \
                s[g][k] = q[g][k] = vf64_zero();                                                   \
        int64_t whole = n / STEP * STEP;                                                           \
        for (int64_t i0 = 0; i0 < whole; i0 += SEGMENT) {                                          \
            int64_t end = whole - i0 < SEGMENT ? whole : i0 + SEGMENT;                             \
            for (int g = 0; g < nr; g++) {                                                         \
                vf64 c = vf64_set1(center[g]), a[KB_MOMENTS_NACC], b[KB_MOMENTS_NACC];             \
                for (int k = 0; k < KB_MOMENTS_NACC; k++) {                                        \
                    a[k] = s[g][k];                                                                \
                    b[k] = q[g][k];                                                                \
                }                                                                                  \
                for (int64_t i = i0; i < end; i += STEP) {                                         \
                    for (int line = 0; line < STEP * (int)sizeof(T); line += KB_MOMENTS_LINE)      \
                        __builtin_prefetch((const char *)(r[g] + i) + KB_FAR_AHEAD_BYTES + line,   \
                                           0, 2);                                                  \
                    moments_step_##S(r[g], i, c, a, b);                                            \
                }                                                                                  \
                for (int k = 0; k < KB_MOMENTS_NACC; k++) {                                        \
                    s[g][k] = a[k];                                                                \
                    q[g][k] = b[k];                                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (int g = 0; g < nr; g++)                                                               \
            moments_end_##S(r[g], whole, n, center[g], s[g], q[g], &sum[g], &sq[g]);               \
    }
DEFINE_MOMENTS_RUN(f32, float)
DEFINE_MOMENTS_RUN(f64, double)

static void moments_f32(const float *x, int64_t n, float center, double *sum, double *sq) {
    moments_run_f32(x, n, center, sum, sq);
}

/* The center of a float64 run: x0 + sum(x - x0) / m over its first m = min(n,
 * KB_MOMENTS_PILOT) elements, in NACC accumulators (the lanes past m load x0, adding 0). */
static inline __attribute__((always_inline)) double moments_center_f64(const double *x, int64_t n) {
    int64_t m = n < KB_MOMENTS_PILOT ? n : KB_MOMENTS_PILOT;
    double x0 = x[0];
    /* x - x0 as x * 1 - x0 (the same rounding) on the multiply pipes, the sums on the adders: a
     * subtraction there too had made (64, 64) float64 var along axis 1 1.2 times as long */
    vf64 nc = vf64_set1(-x0), one = vf64_set1(1), a[KB_MOMENTS_NACC];
    for (int k = 0; k < KB_MOMENTS_NACC; k++)
        a[k] = vf64_zero();
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= m; i += KB_MOMENTS_NACC * VF64_LANES)
        for (int k = 0; k < KB_MOMENTS_NACC; k++)
            a[k] = vf64_add(a[k], vf64_fma(vf64_load(x + i + k * VF64_LANES), one, nc));
    for (; i < m; i += VF64_LANES)
        a[0] = vf64_add(a[0], vf64_fma(m - i >= VF64_LANES ? vf64_load(x + i)
                                                           : vf64_load_till_or(x + i, m - i, x0),
                                       one, nc));
    return x0 + vf64_hsum(vf64_add(vf64_add(a[0], a[1]), vf64_add(a[2], a[3]))) / (double)m;
}

static void moments_f64(const double *x, int64_t n, double *center, double *sum, double *sq) {
    *center = moments_center_f64(x, n);
    moments_run_f64(x, n, *center, sum, sq);
}

/* M2 (the sum of squared deviations from the mean) of each of rows rows of n elements, stride
 * bytes apart, into dev, or, where sums is not NULL, the sums a partial is made of
 * (kb_moments_row_out_f32/_f64): the run's forms above whenever the sums are asked for, and for
 * rows longer than four vectors of the input's type (float32) or than KB_MOMENTS_PILOT elements
 * (float64, whose shorter rows take two passes, moments_rows_f64), else VF64_LANES rows at a time,
 * each row's elements added into one vector (float32: its deviations from its first element and
 * their squares, in one pass, finished as moments_f32's callers finish; float64: the deviations
 * from its first element, then the squared deviations from the mean they give, re-reading the
 * row from L1), and the group's vectors
 * across into one vector of their sums (vf64_hsum_many): one horizontal sum a row, and a kernel
 * call and a division a row, had taken most of the time of a (100000, 32) float32 std along
 * axis 1 (23% of the L3 load bandwidth, one thread, Zen 4). The lanes past n load the center,
 * deviating by nothing, or zero, adding nothing. The last group is padded with copies of its
 * first row, so that a row's result has the same bits wherever it falls. From memory (far), long
 * rows go as NSTREAMS ranges, a row of each at once, where the memory probe says so
 * (moments_together), each with the bits it has alone; else one at a time, without prefetching:
 * one pass keeps asking memory for the next lines, where the second of two passes over a block,
 * from cache, had left memory idle unless the next block was prefetched. */
#define KB_MOMENTS_SHORT_VECTORS 4

/* The short rows r[0 ..) of a float32 group: each row's deviations from its first element and
 * their squares, added into s[q] and t[q], the rows' steps interleaved so that their chains of
 * additions overlap (one row after another, each waited on its own: 32 cycles a row of 32). */
static inline __attribute__((always_inline)) void
moments_group_dev_f32(const float *const *r, int64_t n, vf64 *s, vf64 *t) {
    enum { W = VF32_LANES, G = VF64_LANES };
    vf64 c[G];
    for (int q = 0; q < G; q++) {
        c[q] = vf64_set1(r[q][0]);
        s[q] = t[q] = vf64_zero();
    }
    for (int64_t j = 0; j < n; j += W)
        for (int q = 0; q < G; q++) {
            vf32 a = n - j >= W ? vf32_load(r[q] + j) : vf32_load_till_or(r[q] + j, n - j, r[q][0]);
            vf64 lo = vf64_sub(vf64_widen_lo(a), c[q]), hi = vf64_sub(vf64_widen_hi(a), c[q]);
            s[q] = vf64_add(s[q], vf64_add(lo, hi));
            t[q] = vf64_add(t[q], vf64_fma(lo, lo, vf64_mul(hi, hi)));
        }
}

/* The long rows of moments_rows_f32 and moments_rows_f64: each around its center (float32: its
 * first element; float64: moments_center_f64), one at a time or NSTREAMS at once. */
static inline double moments_center_of_f32(const float *r, int64_t n) {
    (void)n;
    return r[0];
}
static inline double moments_center_of_f64(const double *r, int64_t n) {
    return moments_center_f64(r, n);
}
#define DEFINE_MOMENTS_LONG_ROWS(S, T)                                                             \
    static inline __attribute__((always_inline)) void moments_long_group_##S(                      \
        const char *x, int64_t first, int64_t step, int nr, int64_t stride, int64_t n,             \
        double *dev, double *sums) {                                                               \
        const T *r[NSTREAMS];                                                                      \
        double c[NSTREAMS], s1[NSTREAMS], s2[NSTREAMS];                                            \
        for (int g = 0; g < nr; g++) {                                                             \
            r[g] = (const T *)(const void *)(x + (first + g * step) * stride);                     \
            c[g] = moments_center_of_##S(r[g], n);                                                 \
        }                                                                                          \
        moments_together_##S(r, nr, n, c, s1, s2);                                                 \
        for (int g = 0; g < nr; g++)                                                               \
            kb_moments_row_out_##S(first + g * step, c[g], s1[g], s2[g], n, dev, sums);            \
    }                                                                                              \
    static void moments_long_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n,      \
                                      double *dev, double *sums, bool far) {                       \
        int64_t part = far && kb_reduce_streams() ? rows / NSTREAMS : 0;                           \
        for (int64_t k = 0; k < part; k++)                                                         \
            moments_long_group_##S(x, k, part, NSTREAMS, stride, n, dev, sums);                    \
        for (int64_t i = NSTREAMS * part; i < rows; i++) {                                         \
            const T *r = (const T *)(const void *)(x + i * stride);                                \
            double c = moments_center_of_##S(r, n), s1, s2;                                        \
            moments_run_##S(r, n, c, &s1, &s2);                                                    \
            kb_moments_row_out_##S(i, c, s1, s2, n, dev, sums);                                    \
        }                                                                                          \
    }
DEFINE_MOMENTS_LONG_ROWS(f32, float)
DEFINE_MOMENTS_LONG_ROWS(f64, double)

static void moments_rows_f32(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far) {
    enum { G = VF64_LANES };
    if (n > KB_MOMENTS_SHORT_VECTORS * VF32_LANES) {
        moments_long_rows_f32(x, rows, stride, n, dev, sums, far);
        return;
    }
    for (int64_t i = 0; i < rows; i += G) {
        vf64 s[G], t[G];
        const float *r[G];
        for (int q = 0; q < G; q++)
            r[q] = (const float *)(const void *)(x + (i + q < rows ? i + q : i) * stride);
        moments_group_dev_f32(r, n, s, t);
        double s1[G], s2[G];
        vf64_store(s1, vf64_hsum_many(s));
        vf64_store(s2, vf64_hsum_many(t));
        for (int q = 0; q < G && i + q < rows; q++)
            kb_moments_row_out_f32(i + q, 0, s1[q], s2[q], n, dev, sums);
    }
}

/* A short float64 row's deviations from its first element, added into one vector (the lanes
 * past n load that element, adding 0): its mean is then r[0] + their sum / n, which a constant
 * row gives exactly. */
static inline vf64 moments_row_dev_sum_f64(const double *r, int64_t n) {
    enum { W = VF64_LANES };
    vf64 nc = vf64_set1(-r[0]), one = vf64_set1(1), s = vf64_zero();
    int64_t j = 0;
    for (; j + W <= n; j += W)
        s = vf64_add(s, vf64_fma(vf64_load(r + j), one, nc));
    return j < n ? vf64_add(s, vf64_fma(vf64_load_till_or(r + j, n - j, r[0]), one, nc)) : s;
}

static inline vf64 moments_row_sqdev_f64(const double *r, int64_t n, double mean) {
    enum { W = VF64_LANES };
    vf64 c = vf64_set1(mean), t = vf64_zero();
    int64_t j = 0;
    for (; j + W <= n; j += W) {
        vf64 d = vf64_sub(vf64_load(r + j), c);
        t = vf64_fma(d, d, t);
    }
    if (j < n) {
        vf64 d = vf64_sub(vf64_load_till_or(r + j, n - j, mean), c);
        t = vf64_fma(d, d, t);
    }
    return t;
}

/* A row's squared deviations from c, in NACC accumulators. */
static inline __attribute__((always_inline)) double moments_sqdev_f64(const double *x, int64_t n,
                                                                      double c) {
    vf64 vc = vf64_set1(c), a[KB_MOMENTS_NACC];
    for (int k = 0; k < KB_MOMENTS_NACC; k++)
        a[k] = vf64_zero();
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES)
        for (int k = 0; k < KB_MOMENTS_NACC; k++) {
            vf64 d = vf64_sub(vf64_load(x + i + k * VF64_LANES), vc);
            a[k] = vf64_fma(d, d, a[k]);
        }
    for (; i < n; i += VF64_LANES) {
        vf64 d = vf64_sub(
            n - i >= VF64_LANES ? vf64_load(x + i) : vf64_load_till_or(x + i, n - i, c), vc);
        a[0] = vf64_fma(d, d, a[0]);
    }
    return vf64_hsum(vf64_add(vf64_add(a[0], a[1]), vf64_add(a[2], a[3])));
}

/* float64 rows: a row no longer than the center's KB_MOMENTS_PILOT elements, whose M2 alone is
 * asked for, takes two passes from L1 instead, its center (then its mean) and the squared
 * deviations from it, as (100000, 32) and (64, 64) along axis 1 took 1.5 times as long in one
 * pass around that center (Zen 3, one thread). */
static void moments_rows_f64(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far) {
    enum { G = VF64_LANES };
    if (n > KB_MOMENTS_PILOT || sums) {
        moments_long_rows_f64(x, rows, stride, n, dev, sums, far);
        return;
    }
    if (n > KB_MOMENTS_SHORT_VECTORS * VF64_LANES) {
        /* from memory, NSTREAMS ranges of rows, a row of each in turn; the centers of
         * NSTREAMS rows before their deviations, so that one row's passes overlap the waits on
         * another's division (one row after another: 1.14 times as long for (64, 64)) */
        int64_t part = far && kb_reduce_streams() ? rows / NSTREAMS : 0;
        for (int64_t t0 = 0; t0 < rows; t0 += NSTREAMS) {
            int64_t i[NSTREAMS];
            double c[NSTREAMS];
            int g = rows - t0 < NSTREAMS ? (int)(rows - t0) : NSTREAMS;
            for (int q = 0; q < g; q++) {
                int64_t t = t0 + q;
                i[q] = t < NSTREAMS * part ? t / NSTREAMS + t % NSTREAMS * part : t;
                c[q] = moments_center_f64((const double *)(const void *)(x + i[q] * stride), n);
            }
            for (int q = 0; q < g; q++)
                dev[i[q]] =
                    moments_sqdev_f64((const double *)(const void *)(x + i[q] * stride), n, c[q]);
        }
        return;
    }
    for (int64_t i = 0; i < rows; i += G) {
        const double *r[G];
        for (int q = 0; q < G; q++)
            r[q] = (const double *)(const void *)(x + (i + q < rows ? i + q : i) * stride);
        vf64 v[G];
        for (int q = 0; q < G; q++)
            v[q] = moments_row_dev_sum_f64(r[q], n);
        double means[G], m2[G], first[G];
        for (int q = 0; q < G; q++)
            first[q] = r[q][0];
        vf64_store(means,
                   vf64_add(vf64_load(first), vf64_div(vf64_hsum_many(v), vf64_set1((double)n))));
        for (int q = 0; q < G; q++)
            v[q] = moments_row_sqdev_f64(r[q], n, means[q]);
        vf64_store(m2, vf64_hsum_many(v));
        for (int q = 0; q < G && i + q < rows; q++)
            dev[i + q] = m2[q];
    }
}

/* The cols form: for each of m columns, sum[j] += the sum over rows of (x[i][j] - center[j])
 * and sq[j] += the sum of its squares, in one pass, R rows at a time (each pair of sums is
 * loaded and stored once per R rows) across all m columns; tail columns (fewer than a vector)
 * one by one in double. The columns are not cut into chunks whose sums stay in L1, as the
 * column sums' float partials are: these sums are loaded and stored once per R rows, which L2
 * serves while the rows stream in, and the driver's span (reduce_float.c, a quarter of what L2
 * would hold of these sums) already bounds m. Whole rows of the span are sequential pages, which
 * the prefetchers follow; chunks of 1024 columns (half of a 32 KiB L1) had read a 4096-column
 * span in four passes over its rows: float32 4096 x 4096 var along axis 0 from memory took
 * 0.86-0.89 of that time without them (one and two threads, Zen 3, docs/performance.md).
 *  - moments_cols_f32 and _f64 widen each element to double: from the caches R is 4; from
 *    memory (far) it is 8, and each vector prefetches the same columns of the R rows that
 *    follow, as the column sums do (reduce_sum.h): without, a float32 4096 x 4096 std along
 *    axis 0 read DRAM at 28% of the load bandwidth (one thread, Zen 4), the hardware
 *    prefetchers losing the rows at each jump to the next ones. Eight rows add as two
 *    groups of four, and the rows left over go as they would with four, so the bits do not
 *    depend on R.
 *    float32's d is exact in double, so any center will do: the driver passes a block's first
 *    row.
 *  - moments_cols_near_f32 keeps float32 in float32 lanes, as the column sums do: d = x - c,
 *    d * d and their sums over KB_MOMENTS_COLS_F32 rows (a tree of neighbouring pairs) in
 *    float, then added to the double sums; rows left over one at a time. Widening every
 *    element had bounded the columns by the conversions: a float32 1024 x 1024 var along axis
 *    0 read L3 at 25 GB/s, 0.4 of its sum's speed (Zen 3). Its float32 roundings of d * d grow
 *    with n (c - mean)^2 / M2, so it wants a center near the mean: the driver passes the
 *    running mean of the rows before the block (reduce_float.c), which bounds the error
 *    (docs/reductions.md). */
#define KB_MOMENTS_ROWS 4
#define KB_MOMENTS_ROWS_FAR 8

#define DEFINE_MOMENTS_COLS(S, T)                                                                  \
    /* Rows [i, i + R) (R a multiple of KB_MOMENTS_ROWS) over nv whole vectors and tail columns    \
     * more; with PF, each vector prefetches the same columns of the R rows that follow. */        \
    static inline __attribute__((always_inline)) void moments_cols_step_##S(                       \
        int R, int PF, const char *x, int64_t i, int64_t stride, int64_t nv, int64_t m,            \
        const T *center, double *sum, double *sq) {                                                \
        enum { W = VF64_LANES };                                                                   \
        const T *r[KB_MOMENTS_ROWS_FAR];                                                           \
        UNROLL for (int q = 0; q < R; q++) r[q] = (const T *)(const void *)(x + (i + q) * stride); \
        for (int64_t v = 0; v < nv; v++) {                                                         \
            int64_t j = v * W;                                                                     \
            if (PF)                                                                                \
                UNROLL for (int q = 0; q < R; q++)                                                 \
                    __builtin_prefetch((const char *)(r[q] + j) + R * stride, 0, 2);               \
            vf64 nc = vf64_neg(moments_load_##S(center + j)), one = vf64_set1(1);                  \
            vf64 s = vf64_load(sum + j), t = vf64_load(sq + j);                                    \
            UNROLL for (int g = 0; g < R; g += KB_MOMENTS_ROWS) {                                  \
                vf64 d[KB_MOMENTS_ROWS];                                                           \
                /* x - c as x * 1 - c: the same rounding, on the multiply pipes (the adds' pipes   \
                 * were the busy ones) */                                                          \
                UNROLL for (int q = 0; q < KB_MOMENTS_ROWS; q++) d[q] =                            \
                    vf64_fma(moments_load_##S(r[g + q] + j), one, nc);                             \
                /* as trees, so that the four rows do not wait on each other */                    \
                s = vf64_add(s, vf64_add(vf64_add(d[0], d[1]), vf64_add(d[2], d[3])));             \
                t = vf64_add(t, vf64_add(vf64_fma(d[0], d[0], vf64_mul(d[1], d[1])),               \
                                         vf64_fma(d[2], d[2], vf64_mul(d[3], d[3]))));             \
            }                                                                                      \
            vf64_store(sum + j, s);                                                                \
            vf64_store(sq + j, t);                                                                 \
        }                                                                                          \
        for (int64_t j = nv * W; j < m; j++)                                                       \
            for (int q = 0; q < R; q++) {                                                          \
                double d = (double)r[q][j] - (double)center[j];                                    \
                sum[j] += d;                                                                       \
                sq[j] += d * d;                                                                    \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    static inline __attribute__((always_inline)) void moments_cols_body_##S(                       \
        int R, int PF, const char *x, int64_t rows, int64_t stride, int64_t m, const T *center,    \
        double *sum, double *sq) {                                                                 \
        enum { W = VF64_LANES };                                                                   \
        int64_t nv = m / W, i = 0;                                                                 \
        for (; i + R <= rows; i += R)                                                              \
            moments_cols_step_##S(R, PF, x, i, stride, nv, m, center, sum, sq);                    \
        for (; i + KB_MOMENTS_ROWS <= rows; i += KB_MOMENTS_ROWS)                                  \
            moments_cols_step_##S(KB_MOMENTS_ROWS, 0, x, i, stride, nv, m, center, sum, sq);       \
        for (; i < rows; i++) {                                                                    \
            const T *r = (const T *)(const void *)(x + i * stride);                                \
            for (int64_t v = 0; v < nv; v++) {                                                     \
                int64_t j = v * W;                                                                 \
                vf64 d = vf64_sub(moments_load_##S(r + j), moments_load_##S(center + j));          \
                vf64_store(sum + j, vf64_add(vf64_load(sum + j), d));                              \
                vf64_store(sq + j, vf64_fma(d, d, vf64_load(sq + j)));                             \
            }                                                                                      \
            for (int64_t j = nv * W; j < m; j++) {                                                 \
                double d = (double)r[j] - (double)center[j];                                       \
                sum[j] += d;                                                                       \
                sq[j] += d * d;                                                                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void moments_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,           \
                                 const T *center, double *sum, double *sq, bool far) {             \
        if (far && rows > KB_MOMENTS_ROWS_FAR && kb_reduce_prefetch_rows())                        \
            moments_cols_body_##S(KB_MOMENTS_ROWS_FAR, 1, x, rows, stride, m, center, sum, sq);    \
        else if (far && rows > KB_MOMENTS_ROWS_FAR) /* with no rows ahead, no prefetch */          \
            moments_cols_body_##S(KB_MOMENTS_ROWS_FAR, 0, x, rows, stride, m, center, sum, sq);    \
        else                                                                                       \
            moments_cols_body_##S(KB_MOMENTS_ROWS, 0, x, rows, stride, m, center, sum, sq);        \
    }

DEFINE_MOMENTS_COLS(f32, float)
DEFINE_MOMENTS_COLS(f64, double)

#define KB_MOMENTS_COLS_F32 8

/* Rows [i, i + R) (R at most KB_MOMENTS_COLS_F32) over nv whole float32 vectors and tail
 * columns more into the double sums; with PF, each vector prefetches the same columns of the R
 * rows that follow. */
static inline __attribute__((always_inline)) void
moments_cols_near_step_f32(int R, int PF, const char *x, int64_t i, int64_t stride, int64_t nv,
                           int64_t m, const float *center, double *sum, double *sq) {
    enum { W = VF32_LANES };
    const float *r[KB_MOMENTS_COLS_F32];
    UNROLL for (int q = 0; q < R; q++) r[q] = (const float *)(const void *)(x + (i + q) * stride);
    for (int64_t v = 0; v < nv; v++) {
        int64_t j = v * W;
        if (PF)
            UNROLL for (int q = 0; q < R; q++)
                __builtin_prefetch((const char *)(r[q] + j) + R * stride, 0, 2);
        vf32 nc = vf32_neg(vf32_load(center + j)), one = vf32_set1(1);
        vf32 d[KB_MOMENTS_COLS_F32], e[KB_MOMENTS_COLS_F32];
        /* x - c as x * 1 - c, on the multiply pipes: the adders have the sums and the fold */
        UNROLL for (int q = 0; q < R; q++) d[q] = vf32_fma(vf32_load(r[q] + j), one, nc);
        /* squares a pair at a time, then both sums as trees of neighbouring pairs */
        UNROLL for (int q = 0; q < R; q += 2) e[q] =
            q + 1 < R ? vf32_fma(d[q], d[q], vf32_mul(d[q + 1], d[q + 1])) : vf32_mul(d[q], d[q]);
        UNROLL for (int w = 1; w < R; w *= 2) UNROLL for (int q = 0; q + w < R; q += 2 * w) d[q] =
            vf32_add(d[q], d[q + w]);
        UNROLL for (int w = 2; w < R; w *= 2) UNROLL for (int q = 0; q + w < R; q += 2 * w) e[q] =
            vf32_add(e[q], e[q + w]);
        sum_fold_mem_f32(sum + j, d[0]);
        sum_fold_mem_f32(sq + j, e[0]);
    }
    for (int64_t j = nv * W; j < m; j++)
        for (int q = 0; q < R; q++) {
            double d = (double)r[q][j] - (double)center[j];
            sum[j] += d;
            sq[j] += d * d;
        }
}

static inline __attribute__((always_inline)) void
moments_cols_near_body_f32(int PF, const char *x, int64_t rows, int64_t stride, int64_t m,
                           const float *center, double *sum, double *sq) {
    enum { R = KB_MOMENTS_COLS_F32 };
    int64_t nv = m / VF32_LANES, i = 0;
    for (; i + 2 * R <= rows; i += R)
        moments_cols_near_step_f32(R, PF, x, i, stride, nv, m, center, sum, sq);
    for (; i + R <= rows; i += R)
        moments_cols_near_step_f32(R, 0, x, i, stride, nv, m, center, sum, sq);
    for (; i < rows; i++)
        moments_cols_near_step_f32(1, 0, x, i, stride, nv, m, center, sum, sq);
}

static void moments_cols_near_f32(const char *x, int64_t rows, int64_t stride, int64_t m,
                                  const float *center, double *sum, double *sq, bool far) {
    if (far && rows > 2 * KB_MOMENTS_COLS_F32 && kb_reduce_prefetch_rows())
        moments_cols_near_body_f32(1, x, rows, stride, m, center, sum, sq);
    else
        moments_cols_near_body_f32(0, x, rows, stride, m, center, sum, sq);
}

#endif

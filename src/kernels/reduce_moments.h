#ifndef KB_KERNELS_REDUCE_MOMENTS_H
#define KB_KERNELS_REDUCE_MOMENTS_H

/* The moments of var and std: one pass for a float32 run (moments_f32, see reduce_kernels.h),
 * two for a float64 one (sumd_f64, sqdev_f64), written once over the vector layer
 * (simd/internal.h) and compiled by each per-target file after the layer.
 *
 * Why one pass, shifted by a value of the run. Two passes (the mean, then the squared
 * deviations around it) widen every float32 to double twice, and the widening, not memory,
 * bounded float32 var and std (26 GB/s from L2 on Zen 4, where a float32 sum reads at 90).
 * One pass widens once and sums d = x - center and d * d together. The driver takes the
 * run's first element as the center and finishes with mean = center + S1 / n and
 * M2 = S2 - S1^2 / n ("shifted data"): a constant run gives S1 = S2 = 0, so its mean is exact
 * and its deviation exactly zero, as the two-pass form gave. The shift costs accuracy only as
 * (center - mean)^2 / variance grows, and a value of the run lies within sqrt(n) standard
 * deviations of its mean, so the relative error of M2 stays within about n double roundings:
 * below 2^-40 for a block of 4096, far below the float32 the result is rounded to. A float64
 * run keeps the two passes (sumd_f64, sqdev_f64, below), whose loads need no widening and whose
 * results a shift by one of its values would round to float64 itself; float64 columns are
 * shifted by the running mean of the rows before (moments_cols_f64 and its caller in
 * reduce_float.c), which costs no accuracy.
 *
 * The deviations are subtracted on the adders and summed by fused multiply-adds (d * 1 + s
 * rounds as d + s does), so that both kinds of floating-point unit share the work: with
 * plain adds the adders carried the widening, the subtraction and both sums.
 *
 * The tail is loaded with the center in the lanes past n, which adds 0 to both sums. */

#define KB_MOMENTS_NACC 4   /* double accumulators of each sum */
#define KB_TWO_PASS_LINE 64 /* bytes a prefetch brings; every target's line is at least this */

/* A step of moments_f32: NACC vectors from i, each into accumulators of its own; and the
 * run's end: its tail, from i, and the fold of the accumulators. */
static inline __attribute__((always_inline)) void moments_step_f32(const float *x, int64_t i,
                                                                   vf64 c, vf64 s[KB_MOMENTS_NACC],
                                                                   vf64 q[KB_MOMENTS_NACC]) {
    vf64 one = vf64_set1(1);
    for (int k = 0; k < KB_MOMENTS_NACC; k++) {
        vf64 d = vf64_sub(vf64_load_f32(x + i + k * VF64_LANES), c);
        s[k] = vf64_fma(d, one, s[k]);
        q[k] = vf64_fma(d, d, q[k]);
    }
}
static inline __attribute__((always_inline)) void
moments_end_f32(const float *x, int64_t i, int64_t n, float center, vf64 s[KB_MOMENTS_NACC],
                vf64 q[KB_MOMENTS_NACC], double *sum, double *sq) {
    vf64 c = vf64_set1(center), one = vf64_set1(1);
    for (; i < n; i += VF32_LANES) {
        vf32 a = n - i >= VF32_LANES ? vf32_load(x + i) : vf32_load_till_or(x + i, n - i, center);
        vf64 lo = vf64_sub(vf64_widen_lo(a), c), hi = vf64_sub(vf64_widen_hi(a), c);
        s[0] = vf64_fma(lo, one, s[0]);
        s[1] = vf64_fma(hi, one, s[1]);
        q[0] = vf64_fma(lo, lo, q[0]);
        q[1] = vf64_fma(hi, hi, q[1]);
    }
    *sum = vf64_hsum(vf64_add(vf64_add(s[0], s[1]), vf64_add(s[2], s[3])));
    *sq = vf64_hsum(vf64_add(vf64_add(q[0], q[1]), vf64_add(q[2], q[3])));
}

static void moments_f32(const float *x, int64_t n, float center, double *sum, double *sq) {
    vf64 c = vf64_set1(center), s[KB_MOMENTS_NACC], q[KB_MOMENTS_NACC];
    for (int k = 0; k < KB_MOMENTS_NACC; k++)
        s[k] = q[k] = vf64_zero();
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES)
        moments_step_f32(x, i, c, s, q);
    moments_end_f32(x, i, n, center, s, q, sum, sq);
}

/* moments_f32 of nr (at most NSTREAMS) rows of n elements at once, each row's deviations from
 * its first element, a segment of KB_MOMENTS_SEGMENT steps of each row in turn, each step
 * prefetching KB_FAR_AHEAD_BYTES ahead: memory sees nr streams, where one row at a time read
 * float32 4096 x 4096 var from memory at the speed of a single stream (17 GB/s against 29 for
 * the load probe, Zen 3, one thread; 21.8 GB/s this way without the prefetches, 23.4 with;
 * segments of 4 KiB or more a row fell back to 15-17). Each row keeps the accumulators, and so
 * the bits, it has alone. */
#define KB_MOMENTS_SEGMENT 16
static void moments_together_f32(const float *const *r, int nr, int64_t n, double *sum,
                                 double *sq) {
    enum { STEP = KB_MOMENTS_NACC * VF64_LANES, SEGMENT = KB_MOMENTS_SEGMENT * STEP };
    vf64 s[NSTREAMS][KB_MOMENTS_NACC], q[NSTREAMS][KB_MOMENTS_NACC];
    for (int g = 0; g < nr; g++)
        for (int k = 0; k < KB_MOMENTS_NACC; k++)
            s[g][k] = q[g][k] = vf64_zero();
    int64_t whole = n / STEP * STEP;
    for (int64_t i0 = 0; i0 < whole; i0 += SEGMENT) {
        int64_t end = whole - i0 < SEGMENT ? whole : i0 + SEGMENT;
        for (int g = 0; g < nr; g++) {
            vf64 c = vf64_set1(r[g][0]), a[KB_MOMENTS_NACC], b[KB_MOMENTS_NACC];
            for (int k = 0; k < KB_MOMENTS_NACC; k++) {
                a[k] = s[g][k];
                b[k] = q[g][k];
            }
            for (int64_t i = i0; i < end; i += STEP) {
                for (int line = 0; line < STEP * (int)sizeof(float); line += KB_TWO_PASS_LINE)
                    __builtin_prefetch((const char *)(r[g] + i) + KB_FAR_AHEAD_BYTES + line, 0, 2);
                moments_step_f32(r[g], i, c, a, b);
            }
            for (int k = 0; k < KB_MOMENTS_NACC; k++) {
                s[g][k] = a[k];
                q[g][k] = b[k];
            }
        }
    }
    for (int g = 0; g < nr; g++)
        moments_end_f32(r[g], whole, n, r[g][0], s[g], q[g], &sum[g], &sq[g]);
}

/* float64 var and std of a run, in two passes over a block the driver keeps in cache: the
 * sum (sumd_f64), then the squared deviations from the mean it gives (sqdev_f64). Tails load
 * with zeros (adding nothing) or with the center (deviating by nothing).
 *
 * With far (an input from memory, kb_cache_far), both passes prefetch the next block (x + n:
 * the driver's blocks follow each other) into L2, a cache line per line read; a cached input
 * would pay for the prefetches (float64 std of 65536 elements: 8-9 against 10-11 us). Without it,
 * memory idled: the hardware prefetchers run only a few lines ahead of demand, and while the second
 * pass worked on the cached block no demand reached memory. Measured on a 4096 x 4096 float64 var
 * at one thread (Zen 4): 20 GB/s without, 31 GB/s with, the DRAM load figure of kbench peaks
 * being 30. Prefetching past the end of the input is harmless (a prefetch never faults). Where
 * rows or blocks from memory are read several at once (kb_reduce_streams), they go through
 * moments_rows_f64's pipeline instead, which keeps memory busy without prefetches. */

static inline void two_pass_prefetch(const double *next, int64_t i) {
    enum { BYTES = KB_MOMENTS_NACC * VF64_LANES * (int)sizeof(double) };
    for (int b = 0; b < BYTES; b += KB_TWO_PASS_LINE)
        __builtin_prefetch((const char *)(next + i) + b, 0, 2);
}

/* A step of the sum of a row (sumd): NACC vectors from i, each into an accumulator of its own;
 * and the row's end: its tail, from i, and the fold of the accumulators. Every form below sums a
 * row by these, so that a row's sum has the same bits in all of them. */
static inline __attribute__((always_inline)) void sumd_step_f64(vf64 a[KB_MOMENTS_NACC],
                                                                const double *x, int64_t i) {
    for (int k = 0; k < KB_MOMENTS_NACC; k++)
        a[k] = vf64_add(a[k], vf64_load(x + i + k * VF64_LANES));
}
static inline __attribute__((always_inline)) double
sumd_end_f64(vf64 a[KB_MOMENTS_NACC], const double *x, int64_t i, int64_t n) {
    for (int64_t j = i; j < n; j += VF64_LANES)
        a[0] =
            vf64_add(a[0], n - j >= VF64_LANES ? vf64_load(x + j) : vf64_load_till(x + j, n - j));
    return vf64_hsum(vf64_add(vf64_add(a[0], a[1]), vf64_add(a[2], a[3])));
}

/* The same for the squared deviations from c (sqdev): into a, and with DSUM the deviations
 * themselves into s, half of them on the adders, half by fused multiply-adds (d * 1 + s rounds
 * as d + s does), so that the extra sum costs the two kinds of unit alike. */
static inline __attribute__((always_inline)) void sqdev_step_f64(int DSUM, vf64 a[KB_MOMENTS_NACC],
                                                                 vf64 s[KB_MOMENTS_NACC],
                                                                 const double *x, int64_t i,
                                                                 vf64 c) {
    vf64 one = vf64_set1(1);
    for (int k = 0; k < KB_MOMENTS_NACC; k++) {
        vf64 d = vf64_sub(vf64_load(x + i + k * VF64_LANES), c);
        if (DSUM)
            s[k] = k % 2 ? vf64_fma(d, one, s[k]) : vf64_add(s[k], d);
        a[k] = vf64_fma(d, d, a[k]);
    }
}
static inline __attribute__((always_inline)) double
sqdev_end_f64(int DSUM, vf64 a[KB_MOMENTS_NACC], vf64 s[KB_MOMENTS_NACC], const double *x,
              int64_t i, int64_t n, double center, double *dsum) {
    vf64 c = vf64_set1(center);
    for (; i < n; i += VF64_LANES) {
        vf64 d = vf64_sub(
            n - i >= VF64_LANES ? vf64_load(x + i) : vf64_load_till_or(x + i, n - i, center), c);
        if (DSUM)
            s[0] = vf64_add(s[0], d);
        a[0] = vf64_fma(d, d, a[0]);
    }
    if (DSUM)
        *dsum = vf64_hsum(vf64_add(vf64_add(s[0], s[1]), vf64_add(s[2], s[3])));
    return vf64_hsum(vf64_add(vf64_add(a[0], a[1]), vf64_add(a[2], a[3])));
}

/* The sums of R rows of n elements, stride bytes apart, into out: a step of each row in turn,
 * each with accumulators of its own, so that a row's sum has the bits it has alone (R == 1)
 * while memory sees R streams (NSTREAMS, reduce_target.h). PF: prefetch the n elements after
 * the row (R == 1), which a second pass over it leaves memory free to bring. */
static inline __attribute__((always_inline)) void
sumd_body_f64(int R, int PF, const char *xv, int64_t stride, int64_t n, double *out) {
    const double *x[NSTREAMS];
    vf64 a[NSTREAMS][KB_MOMENTS_NACC];
    for (int q = 0; q < R; q++) {
        x[q] = (const double *)(const void *)(xv + q * stride);
        for (int k = 0; k < KB_MOMENTS_NACC; k++)
            a[q][k] = vf64_zero();
    }
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES) {
        if (PF)
            two_pass_prefetch(x[0] + n, i);
        for (int q = 0; q < R; q++)
            sumd_step_f64(a[q], x[q], i);
    }
    for (int q = 0; q < R; q++)
        out[q] = sumd_end_f64(a[q], x[q], i, n);
}

static double sumd_f64(const double *x, int64_t n, bool far) {
    double out;
    if (far)
        sumd_body_f64(1, 1, (const char *)x, 0, n, &out);
    else
        sumd_body_f64(1, 0, (const char *)x, 0, n, &out);
    return out;
}

static inline __attribute__((always_inline)) double
sqdev_body_f64(int PF, int DSUM, const double *x, int64_t n, double center, double *dsum) {
    vf64 c = vf64_set1(center), a[KB_MOMENTS_NACC], s[KB_MOMENTS_NACC];
    for (int k = 0; k < KB_MOMENTS_NACC; k++)
        a[k] = s[k] = vf64_zero();
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES) {
        if (PF)
            two_pass_prefetch(x + n, i);
        sqdev_step_f64(DSUM, a, s, x, i, c);
    }
    return sqdev_end_f64(DSUM, a, s, x, i, n, center, dsum);
}

/* Rows of at least this many bytes go through the pipeline below: (100000, 32) float64 along
 * axis 1 from memory took 1.5 times as long through it as a group's sums and then its deviations
 * (its 36 accumulators spill, and short rows give the spills no loop to hide in), where 4096 x
 * 4096 took 0.86-0.88 of the time (Zen 3, one thread). A page: the hardware prefetchers, which
 * stop at a page's end, keep short adjacent rows coming on their own. */
#define KB_MOMENTS_PIPELINE_BYTES 4096

/* NSTREAMS rows of n elements (stride bytes apart) summed, as sumd_body_f64 sums them, while
 * the deviations of NSTREAMS others (cur, as far apart) from their means are squared and summed
 * (and with DSUM, summed), as sqdev_body_f64 does: the rows of one group of a row pipeline from
 * memory, and the rows of the group before, from L2, in one loop, so that memory is never left
 * waiting for a second pass (moments_rows_f64). */
static inline __attribute__((always_inline)) void
sumd_sqdev_body_f64(int DSUM, const char *next, const char *cur, int64_t stride, int64_t n,
                    const double *mean, double *sums, double *m2, double *dsum) {
    enum { R = NSTREAMS };
    const double *x[R], *y[R];
    vf64 a[R][KB_MOMENTS_NACC], b[R][KB_MOMENTS_NACC], s[R][KB_MOMENTS_NACC], c[R];
    for (int q = 0; q < R; q++) {
        x[q] = (const double *)(const void *)(next + q * stride);
        y[q] = (const double *)(const void *)(cur + q * stride);
        c[q] = vf64_set1(mean[q]);
        for (int k = 0; k < KB_MOMENTS_NACC; k++)
            a[q][k] = b[q][k] = s[q][k] = vf64_zero();
    }
    int64_t i = 0;
    for (; i + KB_MOMENTS_NACC * VF64_LANES <= n; i += KB_MOMENTS_NACC * VF64_LANES)
        for (int q = 0; q < R; q++) {
            sumd_step_f64(a[q], x[q], i);
            sqdev_step_f64(DSUM, b[q], s[q], y[q], i, c[q]);
        }
    for (int q = 0; q < R; q++) {
        sums[q] = sumd_end_f64(a[q], x[q], i, n);
        m2[q] = sqdev_end_f64(DSUM, b[q], s[q], y[q], i, n, mean[q], dsum ? &dsum[q] : NULL);
    }
}

/* The pipeline's step, a function of its own: inlined, its spilled accumulators made the rest of
 * moments_rows_f64 slower too ((100000, 32) float64 along axis 1: 1.3 times as long). */
static __attribute__((noinline)) void sumd_sqdev_f64(const char *next, const char *cur,
                                                     int64_t stride, int64_t n, const double *mean,
                                                     double *sums, double *m2, double *dsum) {
    if (dsum)
        sumd_sqdev_body_f64(1, next, cur, stride, n, mean, sums, m2, dsum);
    else
        sumd_sqdev_body_f64(0, next, cur, stride, n, mean, sums, m2, NULL);
}

static double sqdev_f64(const double *x, int64_t n, double center, double *dsum, bool far) {
    if (dsum)
        return far ? sqdev_body_f64(1, 1, x, n, center, dsum)
                   : sqdev_body_f64(0, 1, x, n, center, dsum);
    return far ? sqdev_body_f64(1, 0, x, n, center, dsum)
               : sqdev_body_f64(0, 0, x, n, center, dsum);
}

/* M2 (the sum of squared deviations from the mean) of each of rows rows of n elements, stride
 * bytes apart, into dev: the run's forms above for rows longer than four vectors (of the
 * input's type) and whenever float64's mean or dsum is asked for too, else VF64_LANES rows at a
 * time, each row's elements added into one vector (float32: its deviations from its first element
 * and their squares, in one pass, finished as moments_f32's callers finish; float64: the sum, then
 * the squared deviations from the mean, re-reading the row from L1), and the group's vectors across
 * into one vector of their sums (vf64_hsum_many): one horizontal sum a row, and a kernel call and a
 * division a row, had taken most of the time of a (100000, 32) float32 std along axis 1 (23% of the
 * L3 load bandwidth, one thread, Zen 4). The lanes past n load the center, deviating by nothing, or
 * zero, adding nothing. The last group is padded with copies of its first row, so that a row's
 * result has the same bits wherever it falls. */
#define KB_MOMENTS_SHORT_VECTORS 4

static inline vf64 moments_row_dev_f32(const float *r, int64_t n, vf64 *sq) {
    enum { W = VF32_LANES };
    float center = r[0];
    vf64 c = vf64_set1(center), s = vf64_zero(), t = vf64_zero();
    int64_t j = 0;
    for (; j + W <= n; j += W) {
        vf32 a = vf32_load(r + j);
        vf64 lo = vf64_sub(vf64_widen_lo(a), c), hi = vf64_sub(vf64_widen_hi(a), c);
        s = vf64_add(s, vf64_add(lo, hi));
        t = vf64_add(t, vf64_fma(lo, lo, vf64_mul(hi, hi)));
    }
    if (j < n) {
        vf32 a = vf32_load_till_or(r + j, n - j, center);
        vf64 lo = vf64_sub(vf64_widen_lo(a), c), hi = vf64_sub(vf64_widen_hi(a), c);
        s = vf64_add(s, vf64_add(lo, hi));
        t = vf64_add(t, vf64_fma(lo, lo, vf64_mul(hi, hi)));
    }
    *sq = t;
    return s;
}

static void moments_rows_f32(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *sums, bool far) {
    enum { G = VF64_LANES };
    if (n > KB_MOMENTS_SHORT_VECTORS * VF32_LANES) {
        if (!far || !kb_reduce_streams()) {
            for (int64_t i = 0; i < rows; i++) {
                const float *r = (const float *)(const void *)(x + i * stride);
                double s1, s2;
                moments_f32(r, n, r[0], &s1, &s2);
                kb_moments_row_out_f32(i, s1, s2, n, dev, sums);
            }
            return;
        }
        for (int64_t i = 0; i < rows; i += NSTREAMS) {
            int nr = rows - i < NSTREAMS ? (int)(rows - i) : NSTREAMS;
            const float *r[NSTREAMS];
            double s1[NSTREAMS], s2[NSTREAMS];
            for (int g = 0; g < nr; g++)
                r[g] = (const float *)(const void *)(x + (i + g) * stride);
            moments_together_f32(r, nr, n, s1, s2);
            for (int g = 0; g < nr; g++)
                kb_moments_row_out_f32(i + g, s1[g], s2[g], n, dev, sums);
        }
        return;
    }
    for (int64_t i = 0; i < rows; i += G) {
        vf64 s[G], t[G];
        for (int q = 0; q < G; q++) {
            int64_t row = i + q < rows ? i + q : i;
            s[q] = moments_row_dev_f32((const float *)(const void *)(x + row * stride), n, &t[q]);
        }
        double s1[G], s2[G];
        vf64_store(s1, vf64_hsum_many(s));
        vf64_store(s2, vf64_hsum_many(t));
        for (int q = 0; q < G && i + q < rows; q++)
            kb_moments_row_out_f32(i + q, s1[q], s2[q], n, dev, sums);
    }
}

static inline vf64 moments_row_sum_f64(const double *r, int64_t n) {
    enum { W = VF64_LANES };
    vf64 s = vf64_zero();
    int64_t j = 0;
    for (; j + W <= n; j += W)
        s = vf64_add(s, vf64_load(r + j));
    return j < n ? vf64_add(s, vf64_load_till(r + j, n - j)) : s;
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

static void moments_rows_f64(const char *x, int64_t rows, int64_t stride, int64_t n, double *dev,
                             double *mean, double *dsum, bool far) {
    enum { G = VF64_LANES };
    if (n > KB_MOMENTS_SHORT_VECTORS * VF64_LANES || mean || dsum) {
        /* from memory, NSTREAMS ranges of rows, a row of each at once: the sums of a group of
         * such rows, then their deviations from L2, or, for rows of KB_MOMENTS_PIPELINE_BYTES
         * or more, the sums of each group while the group before takes its deviations */
        int64_t part = far && kb_reduce_streams() ? rows / NSTREAMS : 0;
        bool pipeline = n * (int64_t)sizeof(double) >= KB_MOMENTS_PIPELINE_BYTES;
        if (!pipeline) {
            for (int64_t k = 0; k < part; k++) {
                double sums[NSTREAMS];
                sumd_body_f64(NSTREAMS, 0, x + k * stride, part * stride, n, sums);
                for (int q = 0; q < NSTREAMS; q++) {
                    int64_t i = k + q * part;
                    const double *r = (const double *)(const void *)(x + i * stride);
                    double center = sums[q] / (double)n;
                    if (dsum)
                        dev[i] = sqdev_f64(r, n, center, &dsum[i], false);
                    else
                        dev[i] = sqdev_f64(r, n, center, NULL, false);
                    if (mean)
                        mean[i] = center;
                }
            }
        } else {
            double sums[NSTREAMS], m[NSTREAMS], m2[NSTREAMS], d[NSTREAMS];
            for (int64_t k = 0; k < part; k++) {
                const char *cur = x + k * stride;
                if (k == 0)
                    sumd_body_f64(NSTREAMS, 0, cur, part * stride, n, sums);
                for (int q = 0; q < NSTREAMS; q++)
                    m[q] = sums[q] / (double)n;
                if (k + 1 < part)
                    sumd_sqdev_f64(cur + stride, cur, part * stride, n, m, sums, m2,
                                   dsum ? d : NULL);
                else
                    for (int q = 0; q < NSTREAMS; q++) {
                        const double *r = (const double *)(const void *)(cur + q * part * stride);
                        m2[q] = sqdev_f64(r, n, m[q], &d[q], false);
                    }
                for (int q = 0; q < NSTREAMS; q++) {
                    int64_t i = k + q * part;
                    dev[i] = m2[q];
                    if (mean)
                        mean[i] = m[q];
                    if (dsum)
                        dsum[i] = d[q];
                }
            }
        }
        for (int64_t i = NSTREAMS * part; i < rows; i++) {
            const double *r = (const double *)(const void *)(x + i * stride);
            double center = sumd_f64(r, n, far) / (double)n;
            dev[i] = sqdev_f64(r, n, center, dsum ? &dsum[i] : NULL, far);
            if (mean)
                mean[i] = center;
        }
        return;
    }
    for (int64_t i = 0; i < rows; i += G) {
        const double *r[G];
        for (int q = 0; q < G; q++)
            r[q] = (const double *)(const void *)(x + (i + q < rows ? i + q : i) * stride);
        vf64 v[G];
        for (int q = 0; q < G; q++)
            v[q] = moments_row_sum_f64(r[q], n);
        double means[G], m2[G];
        vf64_store(means, vf64_div(vf64_hsum_many(v), vf64_set1((double)n)));
        for (int q = 0; q < G; q++)
            v[q] = moments_row_sqdev_f64(r[q], n, means[q]);
        vf64_store(m2, vf64_hsum_many(v));
        for (int q = 0; q < G && i + q < rows; q++)
            dev[i + q] = m2[q];
    }
}

/* The cols form: for each of m columns, sum[j] += the sum over rows of (x[i][j] - center[j])
 * and sq[j] += the sum of its squares, in one pass, R rows at a time (each pair of sums is
 * loaded and stored once per R rows) across a chunk of columns whose two sums take half of L1
 * (sum_chunk_columns); tail columns (fewer than a vector) one by one. From the caches R is 4;
 * from memory (far) it is 8, and each vector prefetches the same columns of the R rows that
 * follow, as the column sums do (reduce_sum.h): without, a float32 4096 x 4096 std along
 * axis 0 read DRAM at 28% of the load bandwidth (one thread, Zen 4), the hardware prefetchers
 * losing the rows at every chunk's jump. Eight rows add as two groups of four, and the rows
 * left over go as they would with four, so the bits do not depend on R. float32 rows are
 * centered on float32 values (the block's first row), float64 rows on double ones (the mean
 * of the rows before, reduce_float.c). */
#define KB_MOMENTS_ROWS 4
#define KB_MOMENTS_ROWS_FAR 8

static inline vf64 moments_load_f32(const float *p) {
    return vf64_load_f32(p);
}
static inline vf64 moments_load_f64(const double *p) {
    return vf64_load(p);
}

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
        int64_t chunk = sum_chunk_columns(2 * sizeof(double), VF64_LANES);                         \
        for (int64_t j0 = 0; j0 < m; j0 += chunk) {                                                \
            const char *xj = x + j0 * (int64_t)sizeof(T);                                          \
            int64_t w = m - j0 < chunk ? m - j0 : chunk;                                           \
            if (far && rows > KB_MOMENTS_ROWS_FAR && kb_reduce_prefetch_rows())                    \
                moments_cols_body_##S(KB_MOMENTS_ROWS_FAR, 1, xj, rows, stride, w, center + j0,    \
                                      sum + j0, sq + j0);                                          \
            else if (far && rows > KB_MOMENTS_ROWS_FAR) /* with no rows ahead, no prefetch */      \
                moments_cols_body_##S(KB_MOMENTS_ROWS_FAR, 0, xj, rows, stride, w, center + j0,    \
                                      sum + j0, sq + j0);                                          \
            else                                                                                   \
                moments_cols_body_##S(KB_MOMENTS_ROWS, 0, xj, rows, stride, w, center + j0,        \
                                      sum + j0, sq + j0);                                          \
        }                                                                                          \
    }

DEFINE_MOMENTS_COLS(f32, float)
DEFINE_MOMENTS_COLS(f64, double)

#endif

#ifndef KB_KERNELS_REDUCE_SUM_H
#define KB_KERNELS_REDUCE_SUM_H

/* The sum kernels of the float reductions (run and cols, see reduce_kernels.h), written once
 * over the vector layer (simd/internal.h) and compiled by each per-target file
 * (reduce_avx2.c, reduce_avx512.c, reduce_neon.c), which includes this header after the layer.
 *
 * Accuracy at the speed of the input type. Each lane adds at most KB_SUM_DEPTH (16) elements
 * in the input's own type before its partial sum is folded into double accumulators, so
 * float32 is read at float32 speed (no widening per element) and the error is that of 16
 * float32 additions per partial, far below the sequential float32 sums NumPy does along
 * outer axes, and no worse than the 16-element leaves of its pairwise sum along the inner
 * one (docs/reductions.md). float64 folds the same way, which costs one add per 16 vectors.
 *
 * Why the loops have the shape they have:
 *  - a run keeps four vector accumulators in flight, so an add's latency never stalls the
 *    loads; from memory, rows (and an axis=None sum's whole blocks) go as NSTREAMS ranges, a
 *    row of each at once with accumulators of its own (sum_body), where the memory probe
 *    finds several streams faster than one (kb_reduce_streams): a row's bits are the same;
 *  - cols streams KB_SUM_ROWS (4) rows at a time across a chunk of columns as wide as half of
 *    L1 holds in the input type, adding them into partial sums kept there, and folds those
 *    into the double sums once every KB_SUM_DEPTH rows. Memory sees four sequential streams,
 *    whole rows where they fit (what prefetchers follow), and each partial is loaded and
 *    stored once per four rows. From memory (far) it streams KB_SUM_ROWS_FAR (8) rows at
 *    once: the partials' loads and stores, halved, then stand less in the way of the misses
 *    (4096 x 4096 along axis 0 from DRAM, one thread, Zen 4: float64 0.78-0.83 of a plain
 *    sequential read with 4 rows, 0.90-0.94 with 8; float32 0.74-0.76 against 0.82-0.86),
 *    while from L3 eight streams were slower than four (1024 x 1024 float32: 0.71 against
 *    0.65 of a sequential read). The tiles of 16 rows by 8 vectors held in registers that this
 *    replaced read each row in 512-byte pieces, one page per row of a 1024-column float32
 *    array, and ran at 39 GB/s where this runs at 68 (Zen 4, one thread, from L3). Rows close
 *    together are one stream however many go at once: from memory, cols_ranges reads
 *    NSTREAMS blocks of them (a driver's chunks) at once, each with the bits it gets alone;
 *  - adjacent narrow rows (an (N, m) array with m smaller than a few vectors) are one run in
 *    which a lane always holds the same column (narrow_acc, reduce_lanes.h), so they stream
 *    as a run.
 *  - short rows (at most four vectors, sum_rows) go a group of VF64_LANES rows at a time: each
 *    row's vectors add lane-wise, and the group's row vectors go across into one vector of
 *    their sums (vf64_hsum_many), rather than one horizontal sum and one store per row, which
 *    had been most of the time of (100000, 32) float32 (docs/performance.md).
 * The includer has included reduce_lanes.h (narrow blocks) and the vector layer first. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/alias.h"
#include "core/internal.h"
#include "kbench/half.h"
#include "kernels/reduce_kernels.h"
#include "kernels/reduce_lanes.h"

#define KB_SUM_DEPTH 16
#define KB_SUM_NACC 4 /* accumulators of a run */
/* Rows a cols pass streams at once: 4 from the caches, 8 from memory (KB_SUM_ROWS_FAR). */
#define KB_SUM_ROWS 4
#define KB_SUM_ROWS_FAR 8
/* Rows at most this many bytes apart are one stream to memory even KB_SUM_ROWS_FAR at a time
 * (8 KiB or less, two or three 4 KiB pages), so cols_ranges reads several blocks of them at once;
 * rows further apart are several streams already, and taking blocks of them at once as well, four
 * rows of each, made 2048 x 2048 and wider arrays along axis 0 1.1 to 1.4 times slower (Zen 3). */
#define KB_SUM_RANGES_STRIDE 1024
/* The most columns of a cols chunk: its partial sums (at most 16 KiB of doubles) live on the
 * stack. */
#define KB_SUM_CHUNK_MAX 8192

/* What a cols pass prefetches from memory (far): nothing (from the caches), the same columns of
 * the rows that follow, or, with no rows after them (an array of a few long rows, 4 x 1000000
 * along axis 0), KB_FAR_AHEAD_BYTES further along the same rows: 0.92-0.94 of the time of no
 * prefetch for float64 4 x 1000000 (Zen 4, one thread, four interleaved runs against the build
 * without, whose runs against itself gave 1.00-1.02). */
enum { SUM_PF_NONE, SUM_PF_ROWS, SUM_PF_ALONG };

#define SUM_ROW(T, x, i, stride) ((const T *)(const void *)((x) + (i) * (stride)))
#define SUM_UNROLL _Pragma("GCC unroll 16")

/* Partial sums come in two types P: f32 (float lanes) and f64 (double lanes). */
typedef float sum_part_f32;
typedef double sum_part_f64;
typedef vf32 vsum_f32;
typedef vf64 vsum_f64;
#define SUM_LANES_f32 VF32_LANES
#define SUM_LANES_f64 VF64_LANES

/* Columns of a cols chunk whose partial sums take size bytes each: they take half of L1, read
 * at run time (32 KiB: 4096 float32 or 2048 float64 columns), in whole vectors of w lanes, at
 * most KB_SUM_CHUNK_MAX. The double sums they fold into once every KB_SUM_DEPTH rows may spill
 * to L2: measured on a 4096 x 4096 float32 array (Zen 4, 32 KiB L1), chunks of 1344 columns
 * that kept both in L1 ran 15% slower than whole rows, since each row was read in three
 * pieces. */
static inline int64_t sum_chunk_columns(int64_t size, int w) {
    int64_t c = kb_cache_l1d_bytes() / 2 / size;
    c = c > KB_SUM_CHUNK_MAX ? KB_SUM_CHUNK_MAX : c;
    c -= c % 64;
    return c < w ? w : c;
}

/* Partial vectors: zero, add, load and store (of partials kept in memory). */
static inline vf32 sum_zero_f32(void) {
    return vf32_zero();
}
static inline vf64 sum_zero_f64(void) {
    return vf64_zero();
}
static inline vf32 sum_add_f32(vf32 a, vf32 b) {
    return vf32_add(a, b);
}
static inline vf64 sum_add_f64(vf64 a, vf64 b) {
    return vf64_add(a, b);
}
static inline vf32 sum_part_load_f32(const float *p) {
    return vf32_load(p);
}
static inline vf64 sum_part_load_f64(const double *p) {
    return vf64_load(p);
}
static inline void sum_store_f32(float *p, vf32 a) {
    vf32_store(p, a);
}
static inline void sum_store_f64(double *p, vf64 a) {
    vf64_store(p, a);
}
/* acc (two double vectors) += a */
static inline void sum_fold_f32(vf64 acc[2], vf32 a) {
    acc[0] = vf64_add(acc[0], vf64_widen_lo(a));
    acc[1] = vf64_add(acc[1], vf64_widen_hi(a));
}
static inline void sum_fold_f64(vf64 acc[2], vf64 a) {
    acc[0] = vf64_add(acc[0], a);
}
/* VF64_LANES partial vectors, their lanes of at most k elements, across into one vector of
 * their sums in double; and a partial vector through vfS_barrier. */
static inline vf64 sum_across_f32(const vf32 v[VF64_LANES], int k) {
    return vf64_hsum_many_f32(v, k);
}
static inline vf64 sum_across_f64(const vf64 v[VF64_LANES], int k) {
    (void)k;
    return vf64_hsum_many(v);
}
static inline vf32 sum_barrier_f32(vf32 a) {
    return vf32_barrier(a);
}
static inline vf64 sum_barrier_f64(vf64 a) {
    return vf64_barrier(a);
}
/* d[0 .. lanes) += a, d being doubles in memory */
static inline void sum_fold_mem_f32(double *d, vf32 a) {
    vf64_store(d, vf64_add(vf64_load(d), vf64_widen_lo(a)));
    vf64_store(d + VF64_LANES, vf64_add(vf64_load(d + VF64_LANES), vf64_widen_hi(a)));
}
static inline void sum_fold_mem_f64(double *d, vf64 a) {
    vf64_store(d, vf64_add(vf64_load(d), a));
}

/* Element loads of each input type S into its partial vector: a whole vector, or the first n
 * (< lanes) elements with zeros after them. */
static inline vf32 sum_load_f32(const float *p) {
    return vf32_load(p);
}
static inline vf32 sum_load_till_f32(const float *p, int64_t n) {
    return vf32_load_till(p, n);
}
static inline vf64 sum_load_f64(const double *p) {
    return vf64_load(p);
}
static inline vf64 sum_load_till_f64(const double *p, int64_t n) {
    return vf64_load_till(p, n);
}
static inline vf32 sum_load_f16(const uint16_t *p) {
    return vf32_load_f16(p);
}
static inline vf32 sum_load_till_f16(const uint16_t *p, int64_t n) {
    return vf32_load_f16_till(p, n);
}
static inline vf32 sum_load_bf16(const uint16_t *p) {
    return vf32_load_bf16(p);
}
static inline vf32 sum_load_till_bf16(const uint16_t *p, int64_t n) {
    return vf32_load_bf16_till(p, n);
}
static inline vf64 sum_load_i32(const int32_t *p) {
    return vf64_load_i32(p);
}
static inline vf64 sum_load_till_i32(const int32_t *p, int64_t n) {
    return vf64_load_i32_till(p, n);
}

/* The kernels of input type S (C type T) with partials of type P. */
#define DEFINE_SUM_KERNELS(S, T, P)                                                                \
    /* R rows of n elements, stride bytes apart, summed into out[0 .. R): a step of KB_SUM_NACC    \
     * vectors of each row in turn, each row with accumulators of its own, so that every row's     \
     * sum has the bits one row alone gets (R == 1, sum_##S) while memory sees R streams.          \
     * PF: prefetch KB_FAR_AHEAD_BYTES ahead of the loads (one row from memory). */                \
    static inline __attribute__((always_inline)) void sum_body_##S(                                \
        int R, int PF, const char *xv, int64_t stride, int64_t n, double *out) {                   \
        enum { W = SUM_LANES_##P };                                                                \
        const T *x[NSTREAMS];                                                                      \
        vf64 acc[NSTREAMS][2];                                                                     \
        SUM_UNROLL for (int q = 0; q < R; q++) {                                                   \
            x[q] = SUM_ROW(T, xv, q, stride);                                                      \
            acc[q][0] = acc[q][1] = vf64_zero();                                                   \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        while (i + KB_SUM_NACC * W <= n) {                                                         \
            int64_t steps = (n - i) / (KB_SUM_NACC * W);                                           \
            if (steps > KB_SUM_DEPTH)                                                              \
                steps = KB_SUM_DEPTH;                                                              \
            vsum_##P a[NSTREAMS][KB_SUM_NACC];                                                     \
            SUM_UNROLL for (int q = 0; q < R; q++)                                                 \
                SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) a[q][k] = sum_zero_##P();         \
            for (int64_t s = 0; s < steps; s++, i += KB_SUM_NACC * W)                              \
                SUM_UNROLL for (int q = 0; q < R; q++)                                             \
                    SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) {                             \
                    if (PF)                                                                        \
                        __builtin_prefetch((const char *)(x[q] + i + k * W) + KB_FAR_AHEAD_BYTES,  \
                                           0, 2);                                                  \
                    a[q][k] = sum_add_##P(a[q][k], sum_load_##S(x[q] + i + k * W));                \
                }                                                                                  \
            SUM_UNROLL for (int q = 0; q < R; q++)                                                 \
                SUM_UNROLL for (int k = 0; k < KB_SUM_NACC; k++) sum_fold_##P(acc[q], a[q][k]);    \
        }                                                                                          \
        SUM_UNROLL for (int q = 0; q < R; q++) {                                                   \
            if (i < n) {                                                                           \
                vsum_##P a = sum_zero_##P();                                                       \
                int64_t j = i;                                                                     \
                for (; j + W <= n; j += W)                                                         \
                    a = sum_add_##P(a, sum_load_##S(x[q] + j));                                    \
                if (j < n)                                                                         \
                    a = sum_add_##P(a, sum_load_till_##S(x[q] + j, n - j));                        \
                sum_fold_##P(acc[q], a);                                                           \
            }                                                                                      \
            out[q] = vf64_hsum(vf64_add(acc[q][0], acc[q][1]));                                    \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static double sum_##S(const void *x, int64_t n, bool far) {                                    \
        double out;                                                                                \
        if (far)                                                                                   \
            sum_body_##S(1, 1, x, 0, n, &out);                                                     \
        else                                                                                       \
            sum_body_##S(1, 0, x, 0, n, &out);                                                     \
        return out;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* A narrow block with A accumulators: rounds of A vectors, folded every KB_SUM_DEPTH          \
     * rounds into lane partials in double, which go to their columns at the end. */               \
    static inline __attribute__((always_inline)) void sum_narrow_##S(                              \
        int A, const char *bytes, int64_t rows, int64_t m, double *out) {                          \
        enum { W = SUM_LANES_##P };                                                                \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m, i = 0;                                                               \
        double lane[NARROW_MAX * W];                                                               \
        memset(lane, 0, sizeof lane);                                                              \
        while (i < n) {                                                                            \
            vsum_##P a[NARROW_MAX];                                                                \
            SUM_UNROLL for (int k = 0; k < NARROW_MAX; k++) a[k] = sum_zero_##P();                 \
            int64_t end = n - i > KB_SUM_DEPTH * A * W ? i + KB_SUM_DEPTH * A * W : n;             \
            for (; i + A * W <= end; i += A * W)                                                   \
                SUM_UNROLL for (int k = 0; k < A; k++) a[k] =                                      \
                    sum_add_##P(a[k], sum_load_##S(x + i + k * W));                                \
            for (int k = 0; i + k * W < end; k++) {                                                \
                int64_t left = end - i - k * W;                                                    \
                a[k] = sum_add_##P(a[k], left >= W ? sum_load_##S(x + i + k * W)                   \
                                                   : sum_load_till_##S(x + i + k * W, left));      \
            }                                                                                      \
            i = end;                                                                               \
            SUM_UNROLL for (int k = 0; k < A; k++) sum_fold_mem_##P(lane + k * W, a[k]);           \
        }                                                                                          \
        for (int64_t q = 0, c = 0; q < A * W; q++, c = next_col(c, m))                             \
            out[c] += lane[q];                                                                     \
    }                                                                                              \
                                                                                                   \
    /* The R loads of rows r at column offset c (tail columns when tail > 0), added together. */   \
    static inline __attribute__((always_inline))                                                   \
    vsum_##P sum_rows_at_##S(int R, const T *const *r, int64_t c, int64_t tail) {                  \
        vsum_##P s[KB_SUM_ROWS];                                                                   \
        SUM_UNROLL for (int q = 0; q < R; q++) s[q] =                                              \
            tail ? sum_load_till_##S(r[q] + c, tail) : sum_load_##S(r[q] + c);                     \
        if (R == 4) {                                                                              \
            s[0] = sum_add_##P(s[0], s[1]);                                                        \
            s[2] = sum_add_##P(s[2], s[3]);                                                        \
            return sum_add_##P(s[0], s[2]);                                                        \
        }                                                                                          \
        SUM_UNROLL for (int q = 1; q < R; q++) s[0] = sum_add_##P(s[0], s[q]);                     \
        return s[0];                                                                               \
    }                                                                                              \
                                                                                                   \
    /* The R rows r at column offset c (tail columns when tail > 0) added into the partials at a,  \
     * or stored there when first: 8 rows as two groups of 4. */                                   \
    static inline __attribute__((always_inline)) void sum_rows_vector_##S(                         \
        int R, int first, const T *const *r, int64_t c, int64_t tail, sum_part_##P *a) {           \
        int G = R > KB_SUM_ROWS ? KB_SUM_ROWS : R;                                                 \
        vsum_##P s = sum_rows_at_##S(G, r, c, tail);                                               \
        if (!first)                                                                                \
            s = sum_add_##P(sum_part_load_##P(a), s);                                              \
        if (R > KB_SUM_ROWS)                                                                       \
            s = sum_add_##P(s, sum_rows_at_##S(G, r + G, c, tail));                                \
        sum_store_##P(a, s);                                                                       \
    }                                                                                              \
                                                                                                   \
    /* Rows [i, i + R) of a chunk of nv whole vectors and tail columns more, added together and    \
     * into acc, or stored there when first; each vector prefetches as PF says (SUM_PF_ROWS: the   \
     * same columns of the R rows that follow). R is 1, 4 or 8; 8 rows add as two groups of 4, in  \
     * the order two calls of 4 would, with one load and store of acc: the bits are the same. */   \
    static inline __attribute__((always_inline)) void sum_rows_into_##S(                           \
        int R, int first, int PF, const char *x, int64_t i, int64_t stride, int64_t nv,            \
        int64_t tail, sum_part_##P *acc) {                                                         \
        enum { W = SUM_LANES_##P };                                                                \
        const T *r[KB_SUM_ROWS_FAR];                                                               \
        SUM_UNROLL for (int q = 0; q < R; q++) r[q] = SUM_ROW(T, x, i + q, stride);                \
        for (int64_t v = 0; v < nv; v++) {                                                         \
            if (PF == SUM_PF_ROWS)                                                                 \
                SUM_UNROLL for (int q = 0; q < R; q++)                                             \
                    __builtin_prefetch((const char *)(r[q] + v * W) + R * stride, 0, 2);           \
            if (PF == SUM_PF_ALONG)                                                                \
                SUM_UNROLL for (int q = 0; q < R; q++)                                             \
                    __builtin_prefetch((const char *)(r[q] + v * W) + KB_FAR_AHEAD_BYTES, 0, 2);   \
            sum_rows_vector_##S(R, first, r, v *W, 0, acc + v * W);                                \
        }                                                                                          \
        if (tail)                                                                                  \
            sum_rows_vector_##S(R, first, r, nv *W, tail, acc + nv * W);                           \
    }                                                                                              \
                                                                                                   \
    /* Rows stream KB_SUM_ROWS at a time across a chunk of columns whose partial sums, in T and    \
     * of at most KB_SUM_DEPTH rows each, stay in L1 (acc), then fold into out in double. NR       \
     * ranges of rows rows each, range bytes apart, go at once into out + q * out_step, R rows     \
     * of each in turn, each with partials of its own in chunks NR times narrower: each range      \
     * gets the bits it gets alone (columns are independent), while memory sees NR streams. */     \
    static inline __attribute__((always_inline)) void sum_rowwise_body_##S(                        \
        int PF, int R, int NR, const char *x, int64_t range, int64_t rows, int64_t stride,         \
        int64_t m, double *out, int64_t out_step) {                                                \
        enum { W = SUM_LANES_##P };                                                                \
        char room[KB_SUM_CHUNK_MAX * sizeof(sum_part_##P) + KB_ALIAS_PAGE];                        \
        sum_part_##P *acc = kb_alias_place(room, x); /* core/alias.h */                            \
        int64_t chunk = sum_chunk_columns(sizeof(sum_part_##P), W) / NR;                           \
        chunk = chunk < W ? W : chunk - chunk % W;                                                 \
        for (int64_t i0 = 0; i0 < rows; i0 += KB_SUM_DEPTH) {                                      \
            int64_t nr = rows - i0 < KB_SUM_DEPTH ? rows - i0 : KB_SUM_DEPTH;                      \
            for (int64_t j0 = 0; j0 < m; j0 += chunk) {                                            \
                int64_t cw = m - j0 < chunk ? m - j0 : chunk, nv = cw / W, tail = cw % W;          \
                const char *xi = x + i0 * stride + j0 * (int64_t)sizeof(T);                        \
                int64_t i = 0;                                                                     \
                if (R > KB_SUM_ROWS && nr >= R) {                                                  \
                    SUM_UNROLL for (int q = 0; q < NR; q++) sum_rows_into_##S(                     \
                        R, 1, PF, xi + q * range, 0, stride, nv, tail, acc + q * chunk);           \
                    for (i = R; i + R <= nr; i += R)                                               \
                        SUM_UNROLL for (int q = 0; q < NR; q++) sum_rows_into_##S(                 \
                            R, 0, PF, xi + q * range, i, stride, nv, tail, acc + q * chunk);       \
                }                                                                                  \
                if (i == 0 && nr >= KB_SUM_ROWS) {                                                 \
                    SUM_UNROLL for (int q = 0; q < NR; q++) sum_rows_into_##S(                     \
                        KB_SUM_ROWS, 1, PF, xi + q * range, 0, stride, nv, tail, acc + q * chunk); \
                    i = KB_SUM_ROWS;                                                               \
                }                                                                                  \
                for (; i + KB_SUM_ROWS <= nr; i += KB_SUM_ROWS)                                    \
                    SUM_UNROLL for (int q = 0; q < NR; q++) sum_rows_into_##S(                     \
                        KB_SUM_ROWS, 0, PF, xi + q * range, i, stride, nv, tail, acc + q * chunk); \
                for (; i < nr; i++)                                                                \
                    SUM_UNROLL for (int q = 0; q < NR; q++)                                        \
                        sum_rows_into_##S(1, i == 0, SUM_PF_NONE, xi + q * range, i, stride, nv,   \
                                          tail, acc + q * chunk);                                  \
                SUM_UNROLL for (int q = 0; q < NR; q++) {                                          \
                    double *o = out + q * out_step + j0;                                           \
                    const sum_part_##P *a = acc + q * chunk;                                       \
                    for (int64_t v = 0; v < nv; v++)                                               \
                        sum_fold_mem_##P(o + v * W, sum_part_load_##P(a + v * W));                 \
                    for (int64_t c = nv * W; c < cw; c++)                                          \
                        o[c] += a[c];                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sum_rowwise_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                double *out, bool far) {                                           \
        if (far && rows > KB_SUM_ROWS_FAR && kb_reduce_prefetch_rows())                            \
            sum_rowwise_body_##S(SUM_PF_ROWS, KB_SUM_ROWS_FAR, 1, x, 0, rows, stride, m, out, 0);  \
        else if (far && rows > KB_SUM_ROWS_FAR)                                                    \
            sum_rowwise_body_##S(SUM_PF_NONE, KB_SUM_ROWS_FAR, 1, x, 0, rows, stride, m, out, 0);  \
        else if (far && kb_reduce_prefetch_rows())                                                 \
            sum_rowwise_body_##S(SUM_PF_ALONG, KB_SUM_ROWS, 1, x, 0, rows, stride, m, out, 0);     \
        else                                                                                       \
            sum_rowwise_body_##S(SUM_PF_NONE, KB_SUM_ROWS, 1, x, 0, rows, stride, m, out, 0);      \
    }                                                                                              \
                                                                                                   \
    /* Row r's F whole vectors, and its tail of tail elements when TAIL (F * W + tail <= 4 * W),   \
     * as one partial vector: the F + TAIL vectors added as a tree of neighbouring pairs (each     \
     * lane adds at most 5 elements in P). */                                                      \
    static inline __attribute__((always_inline))                                                   \
    vsum_##P sum_short_##S(const T *r, int F, int TAIL, int64_t tail) {                            \
        enum { W = SUM_LANES_##P };                                                                \
        vsum_##P v[5];                                                                             \
        SUM_UNROLL for (int k = 0; k < F; k++) v[k] = sum_load_##S(r + k * W);                     \
        if (TAIL)                                                                                  \
            v[F] = sum_load_till_##S(r + F * W, tail);                                             \
        int c = F + TAIL;                                                                          \
        SUM_UNROLL for (int w = 1; w < c; w *= 2)                                                  \
            SUM_UNROLL for (int k = 0; k + w < c; k += 2 * w) v[k] = sum_add_##P(v[k], v[k + w]);  \
        return v[0];                                                                               \
    }                                                                                              \
                                                                                                   \
    /* Short rows of F whole vectors and a tail (TAIL), VF64_LANES rows at a time: their           \
     * partial vectors go across in one vector of their sums (vf64_hsum_many, or                   \
     * vf64_hsum_many_f32 for float partials, which may add further in float while a lane holds    \
     * at most 16 elements), stored at once. The last group is padded with zero vectors, so        \
     * that every row's sum has the same bits wherever it falls. The rows are read in order,       \
     * each whole before the next: left to itself, the compiler interleaved the loads of a         \
     * group's rows, and the prefetchers, which follow ascending addresses, fell behind            \
     * ((100000, 32) float64 1.5 to 2.4x slower). Unrolled, a barrier after each row keeps the     \
     * order; with SEQ (far), the loop over a group's rows is not unrolled, which measured as      \
     * fast from memory (its partials go through the stack) and 10% slower from L3. */             \
    static inline __attribute__((always_inline)) void sum_short_rows_##S(                          \
        int SEQ, int F, int TAIL, const char *x, int64_t rows, int64_t stride, int64_t tail,       \
        double *out) {                                                                             \
        enum { G = VF64_LANES };                                                                   \
        int64_t i = 0;                                                                             \
        for (; i + G <= rows; i += G) {                                                            \
            vsum_##P s[G];                                                                         \
            if (SEQ)                                                                               \
                _Pragma("GCC unroll 1") for (int q = 0; q < G; q++) s[q] =                         \
                    sum_short_##S(SUM_ROW(T, x, i + q, stride), F, TAIL, tail);                    \
            else                                                                                   \
                SUM_UNROLL for (int q = 0; q < G; q++) s[q] =                                      \
                    sum_barrier_##P(sum_short_##S(SUM_ROW(T, x, i + q, stride), F, TAIL, tail));   \
            vf64_store(out + i, sum_across_##P(s, F + TAIL));                                      \
        }                                                                                          \
        if (i < rows) {                                                                            \
            vsum_##P s[G];                                                                         \
            double last[G];                                                                        \
            for (int q = 0; q < G; q++)                                                            \
                s[q] = i + q < rows ? sum_short_##S(SUM_ROW(T, x, i + q, stride), F, TAIL, tail)   \
                                    : sum_zero_##P();                                              \
            vf64_store(last, sum_across_##P(s, F + TAIL));                                         \
            memcpy(out + i, last, (size_t)(rows - i) * sizeof *out);                               \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* sum_short_rows for the input's distance (far: SEQ). */                                      \
    static inline __attribute__((always_inline)) void sum_short_far_##S(                           \
        int F, int TAIL, bool far, const char *x, int64_t rows, int64_t stride, int64_t tail,      \
        double *out) {                                                                             \
        if (far)                                                                                   \
            sum_short_rows_##S(1, F, TAIL, x, rows, stride, tail, out);                            \
        else                                                                                       \
            sum_short_rows_##S(0, F, TAIL, x, rows, stride, tail, out);                            \
    }                                                                                              \
                                                                                                   \
    /* Rows longer than four vectors take the run kernel each; shorter ones are summed a group     \
     * of rows at a time, by a loop built for their whole vectors and tail. */                     \
    static void sum_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n, double *out,  \
                             bool far) {                                                           \
        enum { W = SUM_LANES_##P };                                                                \
        int64_t tail = n % W;                                                                      \
        switch (n > 4 * W ? 0 : n / W * 2 + (tail != 0)) {                                         \
            case 1:                                                                                \
                sum_short_far_##S(0, 1, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 2:                                                                                \
                sum_short_far_##S(1, 0, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 3:                                                                                \
                sum_short_far_##S(1, 1, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 4:                                                                                \
                sum_short_far_##S(2, 0, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 5:                                                                                \
                sum_short_far_##S(2, 1, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 6:                                                                                \
                sum_short_far_##S(3, 0, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 7:                                                                                \
                sum_short_far_##S(3, 1, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            case 8:                                                                                \
                sum_short_far_##S(4, 0, far, x, rows, stride, tail, out);                          \
                return;                                                                            \
            default: {                                                                             \
                /* from memory, NSTREAMS ranges of rows, a row of each at once */                  \
                int64_t part = far && kb_reduce_streams() ? rows / NSTREAMS : 0;                   \
                for (int64_t k = 0; k < part; k++) {                                               \
                    double sums[NSTREAMS];                                                         \
                    sum_body_##S(NSTREAMS, 0, x + k * stride, part * stride, n, sums);             \
                    for (int q = 0; q < NSTREAMS; q++)                                             \
                        out[k + q * part] = sums[q];                                               \
                }                                                                                  \
                for (int64_t i = NSTREAMS * part; i < rows; i++)                                   \
                    out[i] = sum_##S(SUM_ROW(T, x, i, stride), n, far);                            \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void sum_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, double *out,  \
                             bool far) {                                                           \
        enum { W = SUM_LANES_##P };                                                                \
        int A = narrow_acc_sums(stride, m, sizeof(T), W);                                          \
        if (A) {                                                                                   \
            switch (A) {                                                                           \
                case 4:                                                                            \
                    sum_narrow_##S(4, x, rows, m, out);                                            \
                    return;                                                                        \
                case 6:                                                                            \
                    sum_narrow_##S(6, x, rows, m, out);                                            \
                    return;                                                                        \
                default:                                                                           \
                    sum_narrow_##S(A, x, rows, m, out);                                            \
                    return;                                                                        \
            }                                                                                      \
        }                                                                                          \
        sum_rowwise_##S(x, rows, stride, m, out, far);                                             \
    }                                                                                              \
                                                                                                   \
    static void sum_cols_ranges_##S(const char *x, int64_t ranges, int64_t range, int64_t rows,    \
                                    int64_t stride, int64_t m, double *out, int64_t out_step) {    \
        int64_t q = 0;                                                                             \
        if (stride <= KB_SUM_RANGES_STRIDE && kb_reduce_streams() &&                               \
            !narrow_acc_sums(stride, m, sizeof(T), SUM_LANES_##P))                                 \
            for (; q + NSTREAMS <= ranges; q += NSTREAMS)                                          \
                sum_rowwise_body_##S(SUM_PF_NONE, KB_SUM_ROWS, NSTREAMS, x + q * range, range,     \
                                     rows, stride, m, out + q * out_step, out_step);               \
        for (; q < ranges; q++)                                                                    \
            sum_cols_##S(x + q * range, rows, stride, m, out + q * out_step, true);                \
    }

DEFINE_SUM_KERNELS(f32, float, f32)
DEFINE_SUM_KERNELS(f64, double, f64)
DEFINE_SUM_KERNELS(f16, uint16_t, f32)
DEFINE_SUM_KERNELS(bf16, uint16_t, f32)
DEFINE_SUM_KERNELS(i32, int32_t, f64)

/* Whether dividing by scale is multiplying by its reciprocal, bit for bit: a power of two
 * (1, or a mean over 2^k elements), whose reciprocal is exact, so both round the same real
 * number once. A multiplication costs a fraction of a division's throughput. */
static inline int sum_scale_is_power_of_two(double scale) {
    int e;
    return frexp(scale, &e) == 0.5;
}

/* The stores of sums' results, and of std's square roots (reduce_kernels.h): vector divisions
 * (or exact multiplications), square roots for std, narrowed to the type. */
#define DEFINE_SUM_STORE(NAME, T, NARROW, STORE, ROOT, SQRT)                                       \
    static void NAME(const double *sums, int64_t n, double scale, T *out) {                        \
        int64_t j = 0;                                                                             \
        if (sum_scale_is_power_of_two(scale)) {                                                    \
            vf64 r = vf64_set1(1.0 / scale);                                                       \
            for (; j + VF64_LANES <= n; j += VF64_LANES)                                           \
                STORE(out + j, ROOT(vf64_mul(vf64_load(sums + j), r)));                            \
        } else {                                                                                   \
            vf64 s = vf64_set1(scale);                                                             \
            for (; j + VF64_LANES <= n; j += VF64_LANES)                                           \
                STORE(out + j, ROOT(vf64_div(vf64_load(sums + j), s)));                            \
        }                                                                                          \
        for (; j < n; j++)                                                                         \
            out[j] = NARROW(SQRT(sums[j] / scale));                                                \
    }
#define AS_FLOAT(x) ((float)(x))
#define AS_DOUBLE(x) (x)
#define AS_IS(x) (x)
DEFINE_SUM_STORE(store_f16, uint16_t, kb_f64_to_f16, vf64_store_f16, AS_IS, AS_IS)
DEFINE_SUM_STORE(store_f32, float, AS_FLOAT, vf64_store_f32, AS_IS, AS_IS)
DEFINE_SUM_STORE(store_f64, double, AS_DOUBLE, vf64_store, AS_IS, AS_IS)
DEFINE_SUM_STORE(store_sqrt_f32, float, AS_FLOAT, vf64_store_f32, vf64_sqrt, sqrt)
DEFINE_SUM_STORE(store_sqrt_f64, double, AS_DOUBLE, vf64_store, vf64_sqrt, sqrt)

_Static_assert(KB_SUM_STORE_ROWS <= KB_SUM_DEPTH, "cols_store's rows make one partial");

/* A partial vector's lanes in double, each added to a zero as a fold into zeroed sums adds it
 * (so that -0 becomes +0 there too), into d; returns how many vectors of d it fills. */
static inline int sum_widen_f32(vf32 a, vf64 d[2]) {
    d[0] = vf64_add(vf64_zero(), vf64_widen_lo(a));
    d[1] = vf64_add(vf64_zero(), vf64_widen_hi(a));
    return 2;
}
static inline int sum_widen_f64(vf64 a, vf64 d[2]) {
    d[0] = vf64_add(vf64_zero(), a);
    return 1;
}

/* cols_store (reduce_kernels.h) for input type S (C type T, partials P), storing by STORE a
 * vector and by NARROW one value. A vector of columns of the few rows is one partial, added in
 * the order sum_rowwise_body adds a block's rows (groups of four as a tree, then one row at a
 * time), widened, then divided (or multiplied by the exact reciprocal of a power of two) and
 * stored at once, as the store kernels do with the sums folded into zeros: the same bits, with
 * no row of double sums written, read back and stored again in between. */
#define DEFINE_SUM_COLS_STORE(S, T, P, STORE, NARROW)                                              \
    static inline __attribute__((always_inline)) void sum_few_rows_store_##S(                      \
        int64_t rows, const T *const *r, int64_t c, int64_t tail, bool exact, vf64 f, T *out) {    \
        vsum_##P s;                                                                                \
        int64_t i;                                                                                 \
        if (rows >= KB_SUM_ROWS) {                                                                 \
            s = sum_rows_at_##S(KB_SUM_ROWS, r, c, tail);                                          \
            for (i = KB_SUM_ROWS; i + KB_SUM_ROWS <= rows; i += KB_SUM_ROWS)                       \
                s = sum_add_##P(s, sum_rows_at_##S(KB_SUM_ROWS, r + i, c, tail));                  \
        } else {                                                                                   \
            s = sum_rows_at_##S(1, r, c, tail);                                                    \
            i = 1;                                                                                 \
        }                                                                                          \
        for (; i < rows; i++)                                                                      \
            s = sum_add_##P(s, sum_rows_at_##S(1, r + i, c, tail));                                \
        vf64 d[2];                                                                                 \
        int nd = sum_widen_##P(s, d);                                                              \
        for (int k = 0; k < nd; k++)                                                               \
            d[k] = exact ? vf64_mul(d[k], f) : vf64_div(d[k], f);                                  \
        if (!tail) {                                                                               \
            for (int k = 0; k < nd; k++)                                                           \
                STORE(out + c + k * VF64_LANES, d[k]);                                             \
            return;                                                                                \
        }                                                                                          \
        double last[2 * VF64_LANES];                                                               \
        for (int k = 0; k < nd; k++)                                                               \
            vf64_store(last + k * VF64_LANES, d[k]);                                               \
        for (int64_t j = 0; j < tail; j++)                                                         \
            out[c + j] = NARROW(last[j]);                                                          \
    }                                                                                              \
                                                                                                   \
    static bool sum_cols_store_##S(const char *x, int64_t rows, int64_t stride, int64_t m,         \
                                   double scale, void *out) {                                      \
        enum { W = SUM_LANES_##P };                                                                \
        if (rows < 1 || rows > KB_SUM_STORE_ROWS || narrow_acc_sums(stride, m, sizeof(T), W))      \
            return false;                                                                          \
        const T *r[KB_SUM_STORE_ROWS];                                                             \
        for (int64_t q = 0; q < rows; q++)                                                         \
            r[q] = SUM_ROW(T, x, q, stride);                                                       \
        bool exact = sum_scale_is_power_of_two(scale);                                             \
        vf64 f = vf64_set1(exact ? 1.0 / scale : scale);                                           \
        int64_t nv = m / W, tail = m % W;                                                          \
        for (int64_t v = 0; v < nv; v++)                                                           \
            sum_few_rows_store_##S(rows, r, v *W, 0, exact, f, out);                               \
        if (tail)                                                                                  \
            sum_few_rows_store_##S(rows, r, nv *W, tail, exact, f, out);                           \
        return true;                                                                               \
    }
DEFINE_SUM_COLS_STORE(f32, float, f32, vf64_store_f32, AS_FLOAT)
DEFINE_SUM_COLS_STORE(f64, double, f64, vf64_store, AS_DOUBLE)

#endif

#ifndef KB_KERNELS_REDUCE_LANES_H
#define KB_KERNELS_REDUCE_LANES_H

/* The instruction-set-neutral half of the SIMD reduction kernels (reduce_avx2.c,
 * reduce_avx512.c, reduce_neon.c): how narrow blocks map columns to lanes, how their
 * accumulators fold, and how strided rows and column tiles are walked. Each includer defines
 * NACC, NARROW_MAX, RCHUNK and UNROLL first; the vector code stays in the includers. */

#include <stdint.h>

/* Vectors until a narrow block's lane pattern repeats: m / gcd(m, w), for w a power of 2
 * (shifts, not divisions: this runs once per block). */
static inline int64_t lane_period(int64_t m, int w) {
    int zm = __builtin_ctzll((unsigned long long)m), zw = __builtin_ctz((unsigned)w);
    return m >> (zm < zw ? zm : zw);
}

/* The column after c: folds walk lanes and elements with a counter, since a division per
 * lane would cost more than a narrow block's whole vector loop. */
static inline int64_t next_col(int64_t c, int64_t m) {
    return c + 1 == m ? 0 : c + 1;
}

/* The accumulator count for a narrow block (rows of fewer than NACC vectors), or 0 when
 * column tiles serve better. */
static int narrow_acc(int64_t stride, int64_t m, int64_t size, int w) {
    if (stride != m * size || m >= NACC * w)
        return 0;
    int64_t period = lane_period(m, w), a = period;
    while (a < NACC)
        a += period;
    return a <= NARROW_MAX ? (int)a : 0;
}

/* The same for sums and var's passes, which also take rows of exactly NACC vectors as narrow
 * blocks: float64 (N, 32) along axis 0 at AVX-512 summed 2.5-2.9x as fast so, where the tiles
 * re-read a four-vector accumulator every few rows; argmin and argmax of 64x64 float32 along
 * axis 0 were slower so (0.77x), the narrow block's final fold outweighing 64 rows. */
static int narrow_acc_sums(int64_t stride, int64_t m, int64_t size, int w) {
    return stride == m * size && m == NACC * w ? NACC : narrow_acc(stride, m, size, w);
}

/* Accumulators a period apart hold the same columns in the same lanes, so F merges them,
 * halving their number while that holds, before the lanes go through the scalar fold; live is
 * left at the number still distinct. */
#define NARROW_HALVE(a, h, period, live, F)                                                        \
    if ((live) == 2 * (h) && (h) % (period) == 0) {                                                \
        UNROLL for (int k_ = 0; k_ < (h); k_++) a[k_] = F(a[k_ + (h)], a[k_]);                     \
        (live) = (h);                                                                              \
    }
#define NARROW_COMBINE(a, A, period, live, F)                                                      \
    do {                                                                                           \
        (live) = (A);                                                                              \
        NARROW_HALVE(a, 4, period, live, F)                                                        \
        NARROW_HALVE(a, 3, period, live, F)                                                        \
        NARROW_HALVE(a, 2, period, live, F)                                                        \
        NARROW_HALVE(a, 1, period, live, F)                                                        \
    } while (0)

/* The same for arg accumulators, values b and indices r: MERGE(&b0, &r0, b1, r1, shift)
 * keeps the better of two lanes of one column, the second shift elements further on. */
#define NARROW_HALVE_ARG(b, r, h, w, period, live, MERGE)                                          \
    if ((live) == 2 * (h) && (h) % (period) == 0) {                                                \
        UNROLL for (int k_ = 0; k_ < (h); k_++)                                                    \
            MERGE(&b[k_], &r[k_], b[k_ + (h)], r[k_ + (h)], (h) * (w));                            \
        (live) = (h);                                                                              \
    }
#define NARROW_COMBINE_ARG(b, r, A, w, period, live, MERGE)                                        \
    do {                                                                                           \
        (live) = (A);                                                                              \
        NARROW_HALVE_ARG(b, r, 4, w, period, live, MERGE)                                          \
        NARROW_HALVE_ARG(b, r, 3, w, period, live, MERGE)                                          \
        NARROW_HALVE_ARG(b, r, 2, w, period, live, MERGE)                                          \
        NARROW_HALVE_ARG(b, r, 1, w, period, live, MERGE)                                          \
    } while (0)

/* Calls F with a constant accumulator count, so that its loops unroll into registers. */
#define NARROW_DISPATCH(A, F, ...)                                                                 \
    switch (A) {                                                                                   \
        case 4:                                                                                    \
            F(4, __VA_ARGS__);                                                                     \
            break;                                                                                 \
        case 5:                                                                                    \
            F(5, __VA_ARGS__);                                                                     \
            break;                                                                                 \
        case 6:                                                                                    \
            F(6, __VA_ARGS__);                                                                     \
            break;                                                                                 \
        case 7:                                                                                    \
            F(7, __VA_ARGS__);                                                                     \
            break;                                                                                 \
        default:                                                                                   \
            F(8, __VA_ARGS__);                                                                     \
            break;                                                                                 \
    }

/* Column tiles: of ntile vectors, then one of 4 when that many are left, then single vectors;
 * each is a call F(nv, ...) whose other arguments may use j, the tile's first column. Leaves j
 * at the first column short of a whole vector. */
#define FOR_TILES(j, m, w, ntile, F, ...)                                                          \
    for (; j + (ntile) * (w) <= (m); j += (ntile) * (w))                                           \
        F(ntile, __VA_ARGS__);                                                                     \
    if ((ntile) > 4 && j + 4 * (w) <= (m)) {                                                       \
        F(4, __VA_ARGS__);                                                                         \
        j += 4 * (w);                                                                              \
    }                                                                                              \
    for (; j + (w) <= (m); j += (w))                                                               \
        F(1, __VA_ARGS__);

/* Strided rows (not a narrow block) are walked in chunks of RCHUNK rows, every column tile of
 * a chunk before the next chunk: DRAM then sees a few sequential streams rather than one
 * scattered access per row, and the accumulators go back to L1 once per chunk. Calls
 * F(xi, nr, ...) for the chunk of nr rows that starts at row i0, byte xi; the other arguments
 * may use i0. */
#define FOR_CHUNKS(x, rows, stride, F, ...)                                                        \
    for (int64_t i0 = 0; i0 < rows; i0 += RCHUNK) {                                                \
        const char *xi = x + i0 * stride;                                                          \
        F(xi, rows - i0 < RCHUNK ? rows - i0 : RCHUNK, __VA_ARGS__);                               \
    }

#endif

/* AVX2 + FMA inner loops of the float32/float64 reductions. The contracts are in
 * reduce_kernels.h; reduce_scalar.c is the reference these must agree with.
 *
 * Why the code has the shape it has:
 *  - Every loop keeps at least four vectors in flight (NACC accumulators, or a tile of NTILE
 *    column vectors), so that the latency of an add, a min or a compare-and-blend is hidden
 *    and the loop runs at load throughput.
 *  - Sums of both types run on 4 double lanes: f32 is widened as it is loaded (the contract
 *    asks for double accumulation), so one body serves both types.
 *  - x86 min/max return the second operand when either is NaN, so the arithmetic loses NaNs.
 *    An unordered compare OR-ed into a mask notices them instead, and the run or tile that
 *    holds one is redone by the scalar reference: exact by construction, and rare. Keeping
 *    the accumulator as the second operand makes a NaN already in it stick.
 *  - Tails are scalar: AVX2's masked loads are slow on some cores, and a tail is at most a
 *    vector's worth of elements (or of columns).
 *  - Cols kernels keep a tile of column accumulators in registers while walking rows. Strided
 *    rows are walked a few at a time across all tiles (see FOR_CHUNKS); adjacent narrow rows
 *    (an (N, 3) array reduced along axis 0) are streamed as one run (see "Narrow blocks"). */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "kernels/reduce_kernels.h"

/* Through void *: the rows of a float array are aligned to its elements, whatever the char *. */
#define ROW(T, x, i, stride) ((const T *)(const void *)((x) + (i) * (stride)))
#define UNROLL _Pragma("GCC unroll 16")
#define INLINE static inline __attribute__((always_inline))

enum {
    NACC = 4,       /* independent accumulators of a run */
    NTILE = 8,      /* column vectors a cols tile keeps in registers */
    NTILE_ARG = 4,  /* the same for arg kernels, which keep an index vector beside each */
    NARROW_MAX = 8, /* most accumulators a narrow block may need */
    RCHUNK = 8,     /* strided rows a cols tile walks before the next tile (see FOR_CHUNKS) */
    DW = 4,         /* double lanes */
    W_f32 = 8,
    W_f64 = 4,
};

/* ---- Lane primitives. f32 and f64 differ only in the intrinsics' suffixes; compare results
 * are lane masks of the data's type, and indices live in integer lanes as wide as the data
 * (epi32 beside f32, epi64 beside f64). ---- */
#define DEFINE_LANES(S, T, V, IT, PS, EPI, ISET1)                                                  \
    typedef V vec_##S;                                                                             \
    typedef IT idx_##S;                                                                            \
    static inline V vload_##S(const T *p) {                                                        \
        return _mm256_loadu_##PS(p);                                                               \
    }                                                                                              \
    static inline void vstore_##S(T *p, V a) {                                                     \
        _mm256_storeu_##PS(p, a);                                                                  \
    }                                                                                              \
    static inline V vset1_##S(T a) {                                                               \
        return _mm256_set1_##PS(a);                                                                \
    }                                                                                              \
    static inline V vecmin_##S(V a, V b) {                                                         \
        return _mm256_min_##PS(a, b);                                                              \
    }                                                                                              \
    static inline V vecmax_##S(V a, V b) {                                                         \
        return _mm256_max_##PS(a, b);                                                              \
    }                                                                                              \
    /* a where k is set, else src */                                                               \
    static inline V vsel_##S(V src, V k, V a) {                                                    \
        return _mm256_blendv_##PS(src, a, k);                                                      \
    }                                                                                              \
    static inline V lt_##S(V a, V b) {                                                             \
        return _mm256_cmp_##PS(a, b, _CMP_LT_OQ);                                                  \
    }                                                                                              \
    static inline V gt_##S(V a, V b) {                                                             \
        return _mm256_cmp_##PS(a, b, _CMP_GT_OQ);                                                  \
    }                                                                                              \
    static inline V eq_##S(V a, V b) {                                                             \
        return _mm256_cmp_##PS(a, b, _CMP_EQ_OQ);                                                  \
    }                                                                                              \
    /* lanes where a or b is NaN */                                                                \
    static inline V unord_##S(V a, V b) {                                                          \
        return _mm256_cmp_##PS(a, b, _CMP_UNORD_Q);                                                \
    }                                                                                              \
    static inline V kor_##S(V a, V b) {                                                            \
        return _mm256_or_##PS(a, b);                                                               \
    }                                                                                              \
    static inline V kand_##S(V a, V b) {                                                           \
        return _mm256_and_##PS(a, b);                                                              \
    }                                                                                              \
    static inline int kany_##S(V k) {                                                              \
        return _mm256_movemask_##PS(k) != 0;                                                       \
    }                                                                                              \
    static inline V kzero_##S(void) {                                                              \
        return _mm256_setzero_##PS();                                                              \
    }                                                                                              \
    static inline __m256i iset1_##S(int64_t a) {                                                   \
        return ISET1((IT)a);                                                                       \
    }                                                                                              \
    static inline __m256i iadd_##S(__m256i a, __m256i b) {                                         \
        return _mm256_add_##EPI(a, b);                                                             \
    }                                                                                              \
    static inline __m256i isel_##S(__m256i src, V k, __m256i a) {                                  \
        return _mm256_cast##PS##_si256(                                                            \
            _mm256_blendv_##PS(_mm256_castsi256_##PS(src), _mm256_castsi256_##PS(a), k));          \
    }                                                                                              \
    static inline V ilt_##S(__m256i a, __m256i b) {                                                \
        return _mm256_castsi256_##PS(_mm256_cmpgt_##EPI(b, a));                                    \
    }                                                                                              \
    static inline void istore_##S(IT *p, __m256i a) {                                              \
        _mm256_storeu_si256((void *)p, a);                                                         \
    }                                                                                              \
    /* Horizontal min and max, for vectors known to hold no NaN. */                                \
    static inline T hmin_##S(V a) {                                                                \
        T l[W_##S], r;                                                                             \
        vstore_##S(l, a);                                                                          \
        r = l[0];                                                                                  \
        for (int i = 1; i < W_##S; i++)                                                            \
            r = l[i] < r ? l[i] : r;                                                               \
        return r;                                                                                  \
    }                                                                                              \
    static inline T hmax_##S(V a) {                                                                \
        T l[W_##S], r;                                                                             \
        vstore_##S(l, a);                                                                          \
        r = l[0];                                                                                  \
        for (int i = 1; i < W_##S; i++)                                                            \
            r = l[i] > r ? l[i] : r;                                                               \
        return r;                                                                                  \
    }

DEFINE_LANES(f32, float, __m256, int32_t, ps, epi32, _mm256_set1_epi32)
DEFINE_LANES(f64, double, __m256d, int64_t, pd, epi64, _mm256_set1_epi64x)

static inline __m256i iota_f32(void) {
    return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
}

static inline __m256i iota_f64(void) {
    return _mm256_setr_epi64x(0, 1, 2, 3);
}

/* Four elements widened to double lanes, for the sums. */
static inline __m256d dload_f32(const float *p) {
    return _mm256_cvtps_pd(_mm_loadu_ps(p));
}

static inline __m256d dload_f64(const double *p) {
    return _mm256_loadu_pd(p);
}

/* ---- Narrow blocks. When rows are adjacent and m is small, a block is one run of rows*m
 * elements in which lane l of a vector loaded at element offset e belongs to column
 * (e + l) % m. With A accumulators of w lanes and A*w a multiple of m, every group of A
 * vectors starting at a multiple of A*w puts the same column in the same lane, so the block
 * streams like a run and the lanes fold into their columns once, at the end; the last
 * elements, short of a vector, go straight to their columns. A is the smallest multiple of
 * the pattern's period (m / gcd(m, w) vectors) that is at least NACC; patterns that need
 * more than NARROW_MAX accumulators, and columns wide enough to fill vectors anyway, use the
 * column tiles instead. ---- */
#include "kernels/reduce_lanes.h"

/* ---- Sums with float32 partials: written once over the vector layer. ---- */
#define KB_VEC_AVX2
#include "simd/internal.h"
#include "kernels/reduce_sum.h"
#include "kernels/reduce_moments.h"
#include "kernels/reduce_cols_extreme.h"

/* ---- Column sums and squared deviations of var and std, on double lanes. ---- */
#define DEFINE_SUMS(S, T)                                                                          \
    INLINE void sumd_narrow_##S(int A, const char *bytes, int64_t rows, int64_t m, double *acc) {  \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m;                                                                      \
        __m256d a[NARROW_MAX];                                                                     \
        UNROLL for (int k = 0; k < A; k++) a[k] = _mm256_setzero_pd();                             \
        int64_t i = 0;                                                                             \
        for (; i + A * DW <= n; i += A * DW)                                                       \
            UNROLL for (int k = 0; k < A; k++) a[k] =                                              \
                _mm256_add_pd(a[k], dload_##S(x + i + k * DW));                                    \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * DW <= n) a[k] =                       \
            _mm256_add_pd(a[k], dload_##S(x + i + k * DW));                                        \
        double lane[NARROW_MAX * DW];                                                              \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, DW), live, _mm256_add_pd);                             \
        UNROLL for (int k = 0; k < A; k++) _mm256_storeu_pd(lane + k * DW, a[k]);                  \
        for (int64_t q = 0, c = 0; q < live * DW; q++, c = next_col(c, m))                         \
            acc[c] += lane[q];                                                                     \
        for (int64_t e = i + (n - i) / DW * DW, c = e % m; e < n; e++, c = next_col(c, m))         \
            acc[c] += x[e];                                                                        \
    }                                                                                              \
                                                                                                   \
    INLINE void sumd_tile_##S(int nv, const char *x, int64_t rows, int64_t stride, double *acc) {  \
        __m256d a[NTILE];                                                                          \
        UNROLL for (int k = 0; k < nv; k++) a[k] = _mm256_loadu_pd(acc + k * DW);                  \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) a[k] = _mm256_add_pd(a[k], dload_##S(r + k * DW)); \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) _mm256_storeu_pd(acc + k * DW, a[k]);                  \
    }                                                                                              \
                                                                                                   \
    static void sumd_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,           \
                                 double *acc) {                                                    \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, DW, NTILE, sumd_tile_##S, x + j * (int64_t)sizeof(T), rows, stride,        \
                  acc + j);                                                                        \
        if (j < m)                                                                                 \
            kb_reduce_kernels_scalar()->sumd_cols_##S(x + j * (int64_t)sizeof(T), rows, stride,    \
                                                      m - j, acc + j);                             \
    }                                                                                              \
                                                                                                   \
    static void sumd_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,              \
                              double *acc) {                                                       \
        int A = narrow_acc(stride, m, sizeof(T), DW);                                              \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, sumd_narrow_##S, x, rows, m, acc);                                  \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, sumd_strided_##S, stride, m, acc);                             \
    }                                                                                              \
                                                                                                   \
    INLINE void sqdev_narrow_##S(int A, const char *bytes, int64_t rows, int64_t m,                \
                                 const double *center, double *acc) {                              \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m;                                                                      \
        double lane[NARROW_MAX * DW];                                                              \
        for (int64_t q = 0, c = 0; q < A * DW; q++, c = next_col(c, m))                            \
            lane[q] = center[c];                                                                   \
        __m256d a[NARROW_MAX], cen[NARROW_MAX];                                                    \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            a[k] = _mm256_setzero_pd();                                                            \
            cen[k] = _mm256_loadu_pd(lane + k * DW);                                               \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + A * DW <= n; i += A * DW)                                                       \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                __m256d d = _mm256_sub_pd(dload_##S(x + i + k * DW), cen[k]);                      \
                a[k] = _mm256_fmadd_pd(d, d, a[k]);                                                \
            }                                                                                      \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * DW <= n) {                            \
            __m256d d = _mm256_sub_pd(dload_##S(x + i + k * DW), cen[k]);                          \
            a[k] = _mm256_fmadd_pd(d, d, a[k]);                                                    \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, DW), live, _mm256_add_pd);                             \
        UNROLL for (int k = 0; k < A; k++) _mm256_storeu_pd(lane + k * DW, a[k]);                  \
        for (int64_t q = 0, c = 0; q < live * DW; q++, c = next_col(c, m))                         \
            acc[c] += lane[q];                                                                     \
        for (int64_t e = i + (n - i) / DW * DW, c = e % m; e < n; e++, c = next_col(c, m)) {       \
            double d = x[e] - center[c];                                                           \
            acc[c] += d * d;                                                                       \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    INLINE void sqdev_tile_##S(int nv, const char *x, int64_t rows, int64_t stride,                \
                               const double *center, double *acc) {                                \
        __m256d a[NTILE], cen[NTILE];                                                              \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            a[k] = _mm256_loadu_pd(acc + k * DW);                                                  \
            cen[k] = _mm256_loadu_pd(center + k * DW);                                             \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                __m256d d = _mm256_sub_pd(dload_##S(r + k * DW), cen[k]);                          \
                a[k] = _mm256_fmadd_pd(d, d, a[k]);                                                \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) _mm256_storeu_pd(acc + k * DW, a[k]);                  \
    }                                                                                              \
                                                                                                   \
    static void sqdev_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,          \
                                  const double *center, double *acc) {                             \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, DW, NTILE, sqdev_tile_##S, x + j * (int64_t)sizeof(T), rows, stride,       \
                  center + j, acc + j);                                                            \
        if (j < m)                                                                                 \
            kb_reduce_kernels_scalar()->sqdev_cols_##S(x + j * (int64_t)sizeof(T), rows, stride,   \
                                                       m - j, center + j, acc + j);                \
    }                                                                                              \
                                                                                                   \
    static void sqdev_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,             \
                               const double *center, double *acc) {                                \
        int A = narrow_acc(stride, m, sizeof(T), DW);                                              \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, sqdev_narrow_##S, x, rows, m, center, acc);                         \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, sqdev_strided_##S, stride, m, center, acc);                    \
    }

DEFINE_SUMS(f32, float)
DEFINE_SUMS(f64, double)

/* ---- min and max. OP is min or max; CMP the matching strict comparison. ---- */
#define DEFINE_EXTREME(S, T, OP, CMP, INIT)                                                        \
    static T OP##_##S(const T *x, int64_t n) {                                                     \
        vec_##S a[NACC], nan = kzero_##S();                                                        \
        UNROLL for (int k = 0; k < NACC; k++) a[k] = vset1_##S(INIT);                              \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W_##S <= n; i += NACC * W_##S) {                                         \
            vec_##S v[NACC];                                                                       \
            UNROLL for (int k = 0; k < NACC; k++) v[k] = vload_##S(x + i + k * W_##S);             \
            UNROLL for (int k = 0; k < NACC; k += 2) nan =                                         \
                kor_##S(nan, unord_##S(v[k], v[k + 1]));                                           \
            UNROLL for (int k = 0; k < NACC; k++) a[k] = vec##OP##_##S(v[k], a[k]);                \
        }                                                                                          \
        for (; i + W_##S <= n; i += W_##S) {                                                       \
            vec_##S v = vload_##S(x + i);                                                          \
            nan = kor_##S(nan, unord_##S(v, v));                                                   \
            a[0] = vec##OP##_##S(v, a[0]);                                                         \
        }                                                                                          \
        if (kany_##S(nan))                                                                         \
            return kb_reduce_kernels_scalar()->OP##_##S(x, n);                                     \
        UNROLL for (int k = 1; k < NACC; k++) a[0] = vec##OP##_##S(a[k], a[0]);                    \
        T r = h##OP##_##S(a[0]);                                                                   \
        for (; i < n; i++) {                                                                       \
            if (isnan(x[i]))                                                                       \
                return x[i];                                                                       \
            if (x[i] CMP r)                                                                        \
                r = x[i];                                                                          \
        }                                                                                          \
        return r;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Lanes start from the column accumulators, so a NaN already there sticks. */                 \
    INLINE void OP##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, T *acc) {           \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lane[NARROW_MAX * W_##S];                                                                \
        for (int64_t q = 0, c = 0; q < A * W_##S; q++, c = next_col(c, m))                         \
            lane[q] = acc[c];                                                                      \
        vec_##S a[NARROW_MAX], nan = kzero_##S();                                                  \
        UNROLL for (int k = 0; k < A; k++) a[k] = vload_##S(lane + k * W_##S);                     \
        for (; i + A * W_##S <= n; i += A * W_##S) {                                               \
            vec_##S v[NARROW_MAX];                                                                 \
            UNROLL for (int k = 0; k < A; k++) v[k] = vload_##S(p + i + k * W_##S);                \
            UNROLL for (int k = 0; k < A; k += 2) nan =                                            \
                kor_##S(nan, unord_##S(v[k], v[k + 1 < A ? k + 1 : k]));                           \
            UNROLL for (int k = 0; k < A; k++) a[k] = vec##OP##_##S(v[k], a[k]);                   \
        }                                                                                          \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W_##S <= n) {                         \
            vec_##S v = vload_##S(p + i + k * W_##S);                                              \
            nan = kor_##S(nan, unord_##S(v, v));                                                   \
            a[k] = vec##OP##_##S(v, a[k]);                                                         \
        }                                                                                          \
        int64_t e0 = i + (n - i) / W_##S * W_##S;                                                  \
        int tail_nan = 0;                                                                          \
        for (int64_t e = e0; e < n; e++)                                                           \
            tail_nan |= isnan(p[e]);                                                               \
        if (kany_##S(nan) || tail_nan) {                                                           \
            kb_reduce_kernels_scalar()->OP##_cols_##S(x, rows, (int64_t)sizeof(T) * m, m, acc);    \
            return;                                                                                \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, W_##S), live, vec##OP##_##S);                          \
        UNROLL for (int k = 0; k < A; k++) vstore_##S(lane + k * W_##S, a[k]);                     \
        for (int64_t q = 0, c = 0; q < live * W_##S; q++, c = next_col(c, m)) {                    \
            T l = lane[q], *o = acc + c;                                                           \
            if (l CMP(*o))                                                                         \
                *o = l;                                                                            \
        }                                                                                          \
        for (int64_t e = e0, c = e % m; e < n; e++, c = next_col(c, m)) {                          \
            T *o = acc + c;                                                                        \
            if (p[e] CMP(*o))                                                                      \
                *o = p[e];                                                                         \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void OP##_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m, T *acc) {    \
        int A = narrow_acc(stride, m, sizeof(T), W_##S);                                           \
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

#include "kernels/reduce_rows.h"

/* ---- argmin and argmax. BETTER is lt or gt. Each lane keeps its best value and, on strict
 * improvement only, the start of the group of vectors where it was seen, so every lane holds
 * its own first occurrence; lanes are merged at the end, the smaller index winning ties. ---- */
#define DEFINE_ARG(S, T, NAME, BETTER, CMP, INIT)                                                  \
    static int64_t NAME##_##S(const T *x, int64_t n) {                                             \
        vec_##S b[NACC], nan = kzero_##S();                                                        \
        __m256i r[NACC];                                                                           \
        UNROLL for (int k = 0; k < NACC; k++) {                                                    \
            b[k] = vset1_##S(INIT);                                                                \
            r[k] = iset1_##S(0);                                                                   \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W_##S <= n; i += NACC * W_##S) {                                         \
            __m256i at = iset1_##S(i);                                                             \
            vec_##S v[NACC];                                                                       \
            UNROLL for (int k = 0; k < NACC; k++) v[k] = vload_##S(x + i + k * W_##S);             \
            UNROLL for (int k = 0; k < NACC; k += 2) nan =                                         \
                kor_##S(nan, unord_##S(v[k], v[k + 1]));                                           \
            UNROLL for (int k = 0; k < NACC; k++) {                                                \
                vec_##S u = BETTER##_##S(v[k], b[k]);                                              \
                b[k] = vsel_##S(b[k], u, v[k]);                                                    \
                r[k] = isel_##S(r[k], u, at);                                                      \
            }                                                                                      \
        }                                                                                          \
        /* Whole vectors past the groups go to accumulator 0, whose lane l means element           \
         * start + l as well. */                                                                   \
        for (; i + W_##S <= n; i += W_##S) {                                                       \
            vec_##S v = vload_##S(x + i);                                                          \
            nan = kor_##S(nan, unord_##S(v, v));                                                   \
            vec_##S u = BETTER##_##S(v, b[0]);                                                     \
            b[0] = vsel_##S(b[0], u, v);                                                           \
            r[0] = isel_##S(r[0], u, iset1_##S(i));                                                \
        }                                                                                          \
        if (kany_##S(nan))                                                                         \
            return kb_reduce_kernels_scalar()->NAME##_##S(x, n);                                   \
        /* A lane that never improved holds INIT and index k*W + l; it can only win when every     \
         * element is INIT, and then index 0 wins the tie. */                                      \
        UNROLL for (int k = 0; k < NACC; k++) r[k] =                                               \
            iadd_##S(r[k], iadd_##S(iota_##S(), iset1_##S(k * W_##S)));                            \
        UNROLL for (int k = 1; k < NACC; k++) {                                                    \
            vec_##S u = kor_##S(BETTER##_##S(b[k], b[0]),                                          \
                                kand_##S(eq_##S(b[k], b[0]), ilt_##S(r[k], r[0])));                \
            b[0] = vsel_##S(b[0], u, b[k]);                                                        \
            r[0] = isel_##S(r[0], u, r[k]);                                                        \
        }                                                                                          \
        T lb[W_##S];                                                                               \
        idx_##S lr[W_##S];                                                                         \
        vstore_##S(lb, b[0]);                                                                      \
        istore_##S(lr, r[0]);                                                                      \
        T best = lb[0];                                                                            \
        int64_t at = lr[0];                                                                        \
        for (int l = 1; l < W_##S; l++)                                                            \
            if (lb[l] CMP best || (lb[l] == best && lr[l] < at)) {                                 \
                best = lb[l];                                                                      \
                at = lr[l];                                                                        \
            }                                                                                      \
        for (; i < n; i++) {                                                                       \
            if (isnan(x[i]))                                                                       \
                return i;                                                                          \
            if (x[i] CMP best) {                                                                   \
                best = x[i];                                                                       \
                at = i;                                                                            \
            }                                                                                      \
        }                                                                                          \
        return at;                                                                                 \
    }                                                                                              \
                                                                                                   \
    /* Keeps in (*b0, *r0) the better of two lanes of a column, the second shift elements on:      \
     * its group start moves by shift, and of equal values the earlier element wins. A lane that   \
     * never improved (r -1) holds the column's starting value and so never wins. */               \
    INLINE void NAME##_merge_##S(vec_##S *b0, __m256i *r0, vec_##S b1, __m256i r1,                 \
                                 int64_t shift) {                                                  \
        r1 = iadd_##S(r1, iset1_##S(shift));                                                       \
        vec_##S u = kor_##S(BETTER##_##S(b1, *b0), kand_##S(eq_##S(b1, *b0), ilt_##S(r1, *r0)));   \
        *b0 = vsel_##S(*b0, u, b1);                                                                \
        *r0 = isel_##S(*r0, u, r1);                                                                \
    }                                                                                              \
                                                                                                   \
    /* Lanes start from the columns' best values with no index (-1): a lane only records a         \
     * strict improvement, so the best already held wins ties. */                                  \
    INLINE void NAME##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, int64_t first,    \
                                  T *best, int64_t *index) {                                       \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lb[NARROW_MAX * W_##S];                                                                  \
        idx_##S lr[NARROW_MAX * W_##S];                                                            \
        for (int64_t q = 0, c = 0; q < A * W_##S; q++, c = next_col(c, m))                         \
            lb[q] = best[c];                                                                       \
        vec_##S b[NARROW_MAX], nan = kzero_##S();                                                  \
        __m256i r[NARROW_MAX];                                                                     \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            b[k] = vload_##S(lb + k * W_##S);                                                      \
            r[k] = iset1_##S(-1);                                                                  \
        }                                                                                          \
        for (; i + A * W_##S <= n; i += A * W_##S) {                                               \
            __m256i at = iset1_##S(i);                                                             \
            vec_##S v[NARROW_MAX];                                                                 \
            UNROLL for (int k = 0; k < A; k++) v[k] = vload_##S(p + i + k * W_##S);                \
            UNROLL for (int k = 0; k < A; k += 2) nan =                                            \
                kor_##S(nan, unord_##S(v[k], v[k + 1 < A ? k + 1 : k]));                           \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                vec_##S u = BETTER##_##S(v[k], b[k]);                                              \
                b[k] = vsel_##S(b[k], u, v[k]);                                                    \
                r[k] = isel_##S(r[k], u, at);                                                      \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W_##S <= n) {                         \
            vec_##S v = vload_##S(p + i + k * W_##S);                                              \
            nan = kor_##S(nan, unord_##S(v, v));                                                   \
            vec_##S u = BETTER##_##S(v, b[k]);                                                     \
            b[k] = vsel_##S(b[k], u, v);                                                           \
            r[k] = isel_##S(r[k], u, iset1_##S(i));                                                \
        }                                                                                          \
        int64_t e0 = i + (n - i) / W_##S * W_##S;                                                  \
        int tail_nan = 0;                                                                          \
        for (int64_t e = e0; e < n; e++)                                                           \
            tail_nan |= isnan(p[e]);                                                               \
        if (kany_##S(nan) || tail_nan) {                                                           \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x, rows, (int64_t)sizeof(T) * m, m, first, \
                                                        best, index);                              \
            return;                                                                                \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE_ARG(b, r, A, W_##S, lane_period(m, W_##S), live, NAME##_merge_##S);         \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            vstore_##S(lb + k * W_##S, b[k]);                                                      \
            istore_##S(lr + k * W_##S, r[k]);                                                      \
        }                                                                                          \
        /* Per column, the best lane and its element offset; lane q of a group is element q. */    \
        T cb[NACC * W_##S];                                                                        \
        int64_t ce[NACC * W_##S];                                                                  \
        for (int64_t c = 0; c < m; c++) {                                                          \
            cb[c] = best[c];                                                                       \
            ce[c] = -1;                                                                            \
        }                                                                                          \
        for (int64_t q = 0, c = 0; q < live * W_##S; q++, c = next_col(c, m)) {                    \
            if (lr[q] < 0)                                                                         \
                continue;                                                                          \
            int64_t e = lr[q] + q;                                                                 \
            if (ce[c] < 0 || lb[q] CMP cb[c] || (lb[q] == cb[c] && e < ce[c])) {                   \
                cb[c] = lb[q];                                                                     \
                ce[c] = e;                                                                         \
            }                                                                                      \
        }                                                                                          \
        for (int64_t c = 0; c < m; c++)                                                            \
            if (ce[c] >= 0) {                                                                      \
                best[c] = cb[c];                                                                   \
                index[c] = first + ce[c] / m;                                                      \
            }                                                                                      \
        /* The last elements come after every lane's, so a strict improvement decides. */          \
        for (int64_t e = e0, c = e % m; e < n; e++, c = next_col(c, m))                            \
            if (p[e] CMP best[c]) {                                                                \
                best[c] = p[e];                                                                    \
                index[c] = first + e / m;                                                          \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    /* A tile that holds a NaN is left to the scalar reference. */                                 \
    INLINE void NAME##_tile_##S(int nv, const char *x, int64_t rows, int64_t stride,               \
                                int64_t first, T *best, int64_t *index) {                          \
        vec_##S b[NTILE_ARG], nan = kzero_##S();                                                   \
        __m256i r[NTILE_ARG];                                                                      \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            b[k] = vload_##S(best + k * W_##S);                                                    \
            r[k] = iset1_##S(-1);                                                                  \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *row = ROW(T, x, i, stride);                                                   \
            __m256i at = iset1_##S(i);                                                             \
            vec_##S v[NTILE_ARG];                                                                  \
            UNROLL for (int k = 0; k < nv; k++) v[k] = vload_##S(row + k * W_##S);                 \
            UNROLL for (int k = 0; k < nv; k += 2) nan =                                           \
                kor_##S(nan, unord_##S(v[k], v[k + 1 < nv ? k + 1 : k]));                          \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                vec_##S u = BETTER##_##S(v[k], b[k]);                                              \
                b[k] = vsel_##S(b[k], u, v[k]);                                                    \
                r[k] = isel_##S(r[k], u, at);                                                      \
            }                                                                                      \
        }                                                                                          \
        if (kany_##S(nan)) {                                                                       \
            int64_t w = (int64_t)nv * W_##S;                                                       \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x, rows, stride, w, first, best, index);   \
            return;                                                                                \
        }                                                                                          \
        idx_##S lr[NTILE_ARG * W_##S];                                                             \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            vstore_##S(best + k * W_##S, b[k]);                                                    \
            istore_##S(lr + k * W_##S, r[k]);                                                      \
        }                                                                                          \
        for (int l = 0; l < nv * W_##S; l++)                                                       \
            if (lr[l] >= 0)                                                                        \
                index[l] = first + lr[l];                                                          \
    }                                                                                              \
                                                                                                   \
    static void NAME##_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,         \
                                   int64_t first, T *best, int64_t *index) {                       \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, W_##S, NTILE_ARG, NAME##_tile_##S, x + j * (int64_t)sizeof(T), rows,       \
                  stride, first, best + j, index + j);                                             \
        if (j < m)                                                                                 \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x + j * (int64_t)sizeof(T), rows, stride,  \
                                                        m - j, first, best + j, index + j);        \
    }                                                                                              \
                                                                                                   \
    static void NAME##_pass_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        int A = narrow_acc(stride, m, sizeof(T), W_##S);                                           \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, NAME##_narrow_##S, x, rows, m, first, best, index);                 \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, NAME##_strided_##S, stride, m, first + i0, best, index);       \
    }                                                                                              \
                                                                                                   \
    /* f32 lanes hold 32-bit offsets: each pass keeps its element offsets below 2^30. */           \
    static void NAME##_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        int64_t chunk = m < (INT64_C(1) << 30) ? (INT64_C(1) << 30) / m : 1;                       \
        for (int64_t i = 0; i < rows; i += chunk)                                                  \
            NAME##_pass_##S(x + i * stride, rows - i < chunk ? rows - i : chunk, stride, m,        \
                            first + i, best, index);                                               \
    }

DEFINE_ARG(f32, float, argmin, lt, <, INFINITY)
DEFINE_ARG(f32, float, argmax, gt, >, -INFINITY)
DEFINE_ARG(f64, double, argmin, lt, <, INFINITY)
DEFINE_ARG(f64, double, argmax, gt, >, -INFINITY)

static const kb_reduce_kernels avx2_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_avx2(void) {
    return &avx2_kernels;
}

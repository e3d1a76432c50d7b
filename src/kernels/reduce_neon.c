/* NEON (AArch64 Advanced SIMD) inner loops of the float32/float64 reductions. The contracts
 * are in reduce_kernels.h; reduce_scalar.c is the reference these must agree with.
 *
 * Why the code has the shape it has:
 *  - Every loop keeps at least four vectors in flight (NACC accumulators, or a tile of NTILE
 *    column vectors), so that the latency of an add, a min or a compare-and-select is hidden.
 *  - Sums of both types run on 2 double lanes: f32 is widened as it is loaded (the contract
 *    asks for double accumulation), so one body serves both types.
 *  - NEON's FMIN/FMAX (vminq/vmaxq, and vminvq/vmaxvq across lanes) return NaN when either
 *    operand is NaN, which is exactly the propagation min and max need: no NaN tracking.
 *    The arg kernels keep their best values with the same instructions, so a NaN shows up
 *    in them at the end; a run or tile that gained one is redone by the scalar reference,
 *    which finds the first NaN's index (rare, and exact by construction).
 *  - Tails are scalar: NEON has no masked loads, and a tail is at most a vector's worth of
 *    elements (or of columns).
 *  - Cols kernels keep a tile of column accumulators in registers while walking rows. Strided
 *    rows are walked a few at a time across all tiles (see FOR_CHUNKS); adjacent narrow rows
 *    (an (N, 3) array reduced along axis 0) are streamed as one run (see "Narrow blocks"). */
#include <arm_neon.h>
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
    DW = 2,         /* double lanes */
    W_f32 = 4,
    W_f64 = 2,
};

/* ---- Lane primitives. f32 and f64 differ only in the intrinsics' suffixes; compare results
 * are lane masks, and indices live in integer lanes as wide as the data (s32 beside f32, s64
 * beside f64). ---- */
#define DEFINE_LANES(S, T, V, U, IV, IT, F, I, M, TOU32)                                           \
    typedef V vec_##S;                                                                             \
    typedef U msk_##S;                                                                             \
    typedef IV ivec_##S;                                                                           \
    typedef IT idx_##S;                                                                            \
    static inline V vload_##S(const T *p) {                                                        \
        return vld1q_##F(p);                                                                       \
    }                                                                                              \
    static inline void vstore_##S(T *p, V a) {                                                     \
        vst1q_##F(p, a);                                                                           \
    }                                                                                              \
    static inline V vset1_##S(T a) {                                                               \
        return vdupq_n_##F(a);                                                                     \
    }                                                                                              \
    static inline V vecmin_##S(V a, V b) {                                                         \
        return vminq_##F(a, b);                                                                    \
    }                                                                                              \
    static inline V vecmax_##S(V a, V b) {                                                         \
        return vmaxq_##F(a, b);                                                                    \
    }                                                                                              \
    static inline T hmin_##S(V a) {                                                                \
        return vminvq_##F(a);                                                                      \
    }                                                                                              \
    static inline T hmax_##S(V a) {                                                                \
        return vmaxvq_##F(a);                                                                      \
    }                                                                                              \
    /* a where k is set, else src */                                                               \
    static inline V vsel_##S(V src, U k, V a) {                                                    \
        return vbslq_##F(k, a, src);                                                               \
    }                                                                                              \
    static inline U lt_##S(V a, V b) {                                                             \
        return vcltq_##F(a, b);                                                                    \
    }                                                                                              \
    static inline U gt_##S(V a, V b) {                                                             \
        return vcgtq_##F(a, b);                                                                    \
    }                                                                                              \
    static inline U eq_##S(V a, V b) {                                                             \
        return vceqq_##F(a, b);                                                                    \
    }                                                                                              \
    static inline U kor_##S(U a, U b) {                                                            \
        return vorrq_##M(a, b);                                                                    \
    }                                                                                              \
    static inline U kand_##S(U a, U b) {                                                           \
        return vandq_##M(a, b);                                                                    \
    }                                                                                              \
    /* whether a lane that is a number in before is NaN in after */                                \
    static inline int knew_nan_##S(V before, V after) {                                            \
        U k = vbicq_##M(vceqq_##F(before, before), vceqq_##F(after, after));                       \
        return vmaxvq_u32(TOU32(k)) != 0;                                                          \
    }                                                                                              \
    static inline IV iset1_##S(int64_t a) {                                                        \
        return vdupq_n_##I((IT)a);                                                                 \
    }                                                                                              \
    static inline IV iadd_##S(IV a, IV b) {                                                        \
        return vaddq_##I(a, b);                                                                    \
    }                                                                                              \
    static inline IV isel_##S(IV src, U k, IV a) {                                                 \
        return vbslq_##I(k, a, src);                                                               \
    }                                                                                              \
    static inline U ilt_##S(IV a, IV b) {                                                          \
        return vcltq_##I(a, b);                                                                    \
    }                                                                                              \
    static inline void istore_##S(IT *p, IV a) {                                                   \
        vst1q_##I(p, a);                                                                           \
    }

DEFINE_LANES(f32, float, float32x4_t, uint32x4_t, int32x4_t, int32_t, f32, s32, u32, )
DEFINE_LANES(f64, double, float64x2_t, uint64x2_t, int64x2_t, int64_t, f64, s64, u64,
             vreinterpretq_u32_u64)

static inline int32x4_t iota_f32(void) {
    static const int32_t iota[4] = {0, 1, 2, 3};
    return vld1q_s32(iota);
}

static inline int64x2_t iota_f64(void) {
    static const int64_t iota[2] = {0, 1};
    return vld1q_s64(iota);
}

/* Two elements widened to double lanes, for the sums. */
static inline float64x2_t dload_f32(const float *p) {
    return vcvt_f64_f32(vld1_f32(p));
}

static inline float64x2_t dload_f64(const double *p) {
    return vld1q_f64(p);
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
#define KB_VEC_NEON
#include "simd/internal.h"
#include "kernels/reduce_sum.h"
#include "kernels/reduce_moments.h"
#include "kernels/reduce_cols_extreme.h"

/* ---- Column sums and squared deviations of var and std, on double lanes. ---- */
#define DEFINE_SUMS(S, T)                                                                          \
    INLINE void sumd_narrow_##S(int A, const char *bytes, int64_t rows, int64_t m, double *acc) {  \
        const T *x = (const T *)(const void *)bytes;                                               \
        int64_t n = rows * m;                                                                      \
        float64x2_t a[NARROW_MAX];                                                                 \
        UNROLL for (int k = 0; k < A; k++) a[k] = vdupq_n_f64(0);                                  \
        int64_t i = 0;                                                                             \
        for (; i + A * DW <= n; i += A * DW)                                                       \
            UNROLL for (int k = 0; k < A; k++) a[k] = vaddq_f64(a[k], dload_##S(x + i + k * DW));  \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * DW <= n) a[k] =                       \
            vaddq_f64(a[k], dload_##S(x + i + k * DW));                                            \
        double lane[NARROW_MAX * DW];                                                              \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, DW), live, vaddq_f64);                                 \
        UNROLL for (int k = 0; k < A; k++) vst1q_f64(lane + k * DW, a[k]);                         \
        for (int64_t q = 0, c = 0; q < live * DW; q++, c = next_col(c, m))                         \
            acc[c] += lane[q];                                                                     \
        for (int64_t e = i + (n - i) / DW * DW, c = e % m; e < n; e++, c = next_col(c, m))         \
            acc[c] += x[e];                                                                        \
    }                                                                                              \
                                                                                                   \
    INLINE void sumd_tile_##S(int nv, const char *x, int64_t rows, int64_t stride, double *acc) {  \
        float64x2_t a[NTILE];                                                                      \
        UNROLL for (int k = 0; k < nv; k++) a[k] = vld1q_f64(acc + k * DW);                        \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) a[k] = vaddq_f64(a[k], dload_##S(r + k * DW));     \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) vst1q_f64(acc + k * DW, a[k]);                         \
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
        float64x2_t a[NARROW_MAX], cen[NARROW_MAX];                                                \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            a[k] = vdupq_n_f64(0);                                                                 \
            cen[k] = vld1q_f64(lane + k * DW);                                                     \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + A * DW <= n; i += A * DW)                                                       \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                float64x2_t d = vsubq_f64(dload_##S(x + i + k * DW), cen[k]);                      \
                a[k] = vfmaq_f64(a[k], d, d);                                                      \
            }                                                                                      \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * DW <= n) {                            \
            float64x2_t d = vsubq_f64(dload_##S(x + i + k * DW), cen[k]);                          \
            a[k] = vfmaq_f64(a[k], d, d);                                                          \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, DW), live, vaddq_f64);                                 \
        UNROLL for (int k = 0; k < A; k++) vst1q_f64(lane + k * DW, a[k]);                         \
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
        float64x2_t a[NTILE], cen[NTILE];                                                          \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            a[k] = vld1q_f64(acc + k * DW);                                                        \
            cen[k] = vld1q_f64(center + k * DW);                                                   \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *r = ROW(T, x, i, stride);                                                     \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                float64x2_t d = vsubq_f64(dload_##S(r + k * DW), cen[k]);                          \
                a[k] = vfmaq_f64(a[k], d, d);                                                      \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < nv; k++) vst1q_f64(acc + k * DW, a[k]);                         \
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

/* ---- min and max. OP is min or max; CMP the matching strict comparison. The vector min/max
 * propagate NaN, so only the scalar parts test for it. ---- */
#define DEFINE_EXTREME(S, T, OP, CMP, INIT)                                                        \
    static T OP##_##S(const T *x, int64_t n) {                                                     \
        vec_##S a[NACC];                                                                           \
        UNROLL for (int k = 0; k < NACC; k++) a[k] = vset1_##S(INIT);                              \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W_##S <= n; i += NACC * W_##S)                                           \
            UNROLL for (int k = 0; k < NACC; k++) a[k] =                                           \
                vec##OP##_##S(a[k], vload_##S(x + i + k * W_##S));                                 \
        for (; i + W_##S <= n; i += W_##S)                                                         \
            a[0] = vec##OP##_##S(a[0], vload_##S(x + i));                                          \
        UNROLL for (int k = 1; k < NACC; k++) a[0] = vec##OP##_##S(a[0], a[k]);                    \
        T r = h##OP##_##S(a[0]);                                                                   \
        /* The reference returns the first NaN itself, payload and sign included. */               \
        if (isnan(r))                                                                              \
            return kb_reduce_kernels_scalar()->OP##_##S(x, n);                                     \
        for (; i < n; i++) {                                                                       \
            if (isnan(x[i]))                                                                       \
                return x[i];                                                                       \
            if (x[i] CMP r)                                                                        \
                r = x[i];                                                                          \
        }                                                                                          \
        return r;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* One column's accumulator meets a value, as the scalar reference has it. */                  \
    static inline void OP##_merge_##S(T *o, T l) {                                                 \
        if ((l CMP(*o) || isnan(l)) && !isnan(*o))                                                 \
            *o = l;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* Lanes start from the column accumulators, so a NaN already there sticks. */                 \
    INLINE void OP##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, T *acc) {           \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lane[NARROW_MAX * W_##S];                                                                \
        for (int64_t q = 0, c = 0; q < A * W_##S; q++, c = next_col(c, m))                         \
            lane[q] = acc[c];                                                                      \
        vec_##S a[NARROW_MAX];                                                                     \
        UNROLL for (int k = 0; k < A; k++) a[k] = vload_##S(lane + k * W_##S);                     \
        for (; i + A * W_##S <= n; i += A * W_##S)                                                 \
            UNROLL for (int k = 0; k < A; k++) a[k] =                                              \
                vec##OP##_##S(a[k], vload_##S(p + i + k * W_##S));                                 \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W_##S <= n) a[k] =                    \
            vec##OP##_##S(a[k], vload_##S(p + i + k * W_##S));                                     \
        int live;                                                                                  \
        NARROW_COMBINE(a, A, lane_period(m, W_##S), live, vec##OP##_##S);                          \
        UNROLL for (int k = 0; k < A; k++) vstore_##S(lane + k * W_##S, a[k]);                     \
        for (int64_t q = 0, c = 0; q < live * W_##S; q++, c = next_col(c, m))                      \
            OP##_merge_##S(acc + c, lane[q]);                                                      \
        for (int64_t e = i + (n - i) / W_##S * W_##S, c = e % m; e < n; e++, c = next_col(c, m))   \
            OP##_merge_##S(acc + c, p[e]);                                                         \
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

/* ---- argmin and argmax. BETTER is lt or gt, OP the matching min or max. Each lane keeps its
 * best value (through OP, so that a NaN sticks and shows at the end) and, on strict
 * improvement only, the start of the group of vectors where it was seen, so every lane holds
 * its own first occurrence; lanes are merged at the end, the smaller index winning ties. An
 * equal value of the other zero's sign may replace a lane's best without moving its index;
 * zeros compare equal, so that changes no decision. ---- */
#define DEFINE_ARG(S, T, NAME, BETTER, OP, CMP, INIT)                                              \
    static int64_t NAME##_##S(const T *x, int64_t n) {                                             \
        vec_##S b[NACC];                                                                           \
        ivec_##S r[NACC];                                                                          \
        UNROLL for (int k = 0; k < NACC; k++) {                                                    \
            b[k] = vset1_##S(INIT);                                                                \
            r[k] = iset1_##S(0);                                                                   \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W_##S <= n; i += NACC * W_##S) {                                         \
            ivec_##S at = iset1_##S(i);                                                            \
            UNROLL for (int k = 0; k < NACC; k++) {                                                \
                vec_##S v = vload_##S(x + i + k * W_##S);                                          \
                r[k] = isel_##S(r[k], BETTER##_##S(v, b[k]), at);                                  \
                b[k] = vec##OP##_##S(b[k], v);                                                     \
            }                                                                                      \
        }                                                                                          \
        /* Whole vectors past the groups go to accumulator 0, whose lane l means element           \
         * start + l as well. */                                                                   \
        for (; i + W_##S <= n; i += W_##S) {                                                       \
            vec_##S v = vload_##S(x + i);                                                          \
            r[0] = isel_##S(r[0], BETTER##_##S(v, b[0]), iset1_##S(i));                            \
            b[0] = vec##OP##_##S(b[0], v);                                                         \
        }                                                                                          \
        vec_##S init = vset1_##S(INIT);                                                            \
        int nan = 0;                                                                               \
        UNROLL for (int k = 0; k < NACC; k++) nan |= knew_nan_##S(init, b[k]);                     \
        if (nan)                                                                                   \
            return kb_reduce_kernels_scalar()->NAME##_##S(x, n);                                   \
        /* A lane that never improved holds INIT and index k*W + l; it can only win when every     \
         * element is INIT, and then index 0 wins the tie. */                                      \
        UNROLL for (int k = 0; k < NACC; k++) r[k] =                                               \
            iadd_##S(r[k], iadd_##S(iota_##S(), iset1_##S(k * W_##S)));                            \
        UNROLL for (int k = 1; k < NACC; k++) {                                                    \
            msk_##S u = kor_##S(BETTER##_##S(b[k], b[0]),                                          \
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
    INLINE void NAME##_merge_##S(vec_##S *b0, ivec_##S *r0, vec_##S b1, ivec_##S r1,               \
                                 int64_t shift) {                                                  \
        r1 = iadd_##S(r1, iset1_##S(shift));                                                       \
        msk_##S u = kor_##S(BETTER##_##S(b1, *b0), kand_##S(eq_##S(b1, *b0), ilt_##S(r1, *r0)));   \
        *b0 = vsel_##S(*b0, u, b1);                                                                \
        *r0 = isel_##S(*r0, u, r1);                                                                \
    }                                                                                              \
                                                                                                   \
    /* Lanes start from the columns' best values with no index (-1): a lane only records a         \
     * strict improvement, so the best already held wins ties, and a best already NaN stays. */    \
    INLINE void NAME##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, int64_t first,    \
                                  T *best, int64_t *index) {                                       \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lb[NARROW_MAX * W_##S];                                                                  \
        idx_##S lr[NARROW_MAX * W_##S];                                                            \
        for (int64_t q = 0, c = 0; q < A * W_##S; q++, c = next_col(c, m))                         \
            lb[q] = best[c];                                                                       \
        vec_##S b[NARROW_MAX];                                                                     \
        ivec_##S r[NARROW_MAX];                                                                    \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            b[k] = vload_##S(lb + k * W_##S);                                                      \
            r[k] = iset1_##S(-1);                                                                  \
        }                                                                                          \
        for (; i + A * W_##S <= n; i += A * W_##S) {                                               \
            ivec_##S at = iset1_##S(i);                                                            \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                vec_##S v = vload_##S(p + i + k * W_##S);                                          \
                r[k] = isel_##S(r[k], BETTER##_##S(v, b[k]), at);                                  \
                b[k] = vec##OP##_##S(b[k], v);                                                     \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W_##S <= n) {                         \
            vec_##S v = vload_##S(p + i + k * W_##S);                                              \
            r[k] = isel_##S(r[k], BETTER##_##S(v, b[k]), iset1_##S(i));                            \
            b[k] = vec##OP##_##S(b[k], v);                                                         \
        }                                                                                          \
        int64_t e0 = i + (n - i) / W_##S * W_##S;                                                  \
        int nan = 0;                                                                               \
        UNROLL for (int k = 0; k < A; k++) nan |= knew_nan_##S(vload_##S(lb + k * W_##S), b[k]);   \
        for (int64_t e = e0; e < n; e++)                                                           \
            nan |= isnan(p[e]);                                                                    \
        if (nan) {                                                                                 \
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
        vec_##S b[NTILE_ARG];                                                                      \
        ivec_##S r[NTILE_ARG];                                                                     \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            b[k] = vload_##S(best + k * W_##S);                                                    \
            r[k] = iset1_##S(-1);                                                                  \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *row = ROW(T, x, i, stride);                                                   \
            ivec_##S at = iset1_##S(i);                                                            \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                vec_##S v = vload_##S(row + k * W_##S);                                            \
                r[k] = isel_##S(r[k], BETTER##_##S(v, b[k]), at);                                  \
                b[k] = vec##OP##_##S(b[k], v);                                                     \
            }                                                                                      \
        }                                                                                          \
        int nan = 0;                                                                               \
        UNROLL for (int k = 0; k < nv; k++) nan |=                                                 \
            knew_nan_##S(vload_##S(best + k * W_##S), b[k]);                                       \
        if (nan) {                                                                                 \
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

DEFINE_ARG(f32, float, argmin, lt, min, <, INFINITY)
DEFINE_ARG(f32, float, argmax, gt, max, >, -INFINITY)
DEFINE_ARG(f64, double, argmin, lt, min, <, INFINITY)
DEFINE_ARG(f64, double, argmax, gt, max, >, -INFINITY)

static const kb_reduce_kernels neon_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_neon(void) {
    return &neon_kernels;
}

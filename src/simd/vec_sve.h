#ifndef KB_SIMD_VEC_SVE_H
#define KB_SIMD_VEC_SVE_H

/* The vector layer on SVE at one vector length, KB_SVE_BITS (128, 256 or 512), which the file
 * is compiled for with -msve-vector-bits=KB_SVE_BITS: the ACLE's sizeless types are given that
 * fixed size (arm_sve_vector_bits), so that the kernels may keep arrays of vectors and unroll
 * over them as on every other target. A table per length runs at that length only; the
 * dispatcher picks the one the CPU's vector length asks for (kernels/reduce_sve.c). Tails are
 * predicated loads (svwhilelt), which do not fault on the lanes they leave out. Included
 * through simd/internal.h only. */

#include <arm_sve.h>
#include <stdint.h>
#include <string.h>

#include "kbench/half.h"

#if !defined(__ARM_FEATURE_SVE_BITS) || __ARM_FEATURE_SVE_BITS != KB_SVE_BITS
#error "compile with -msve-vector-bits=KB_SVE_BITS"
#endif

#define KB_SVE_FIXED __attribute__((arm_sve_vector_bits(KB_SVE_BITS)))
typedef svfloat32_t vf32 KB_SVE_FIXED;
typedef svfloat64_t vf64 KB_SVE_FIXED;
#define VF32_LANES (KB_SVE_BITS / 32)
#define VF64_LANES (KB_SVE_BITS / 64)
#define KB_VEC_REGISTERS 32

#define KB_SVE_ALL32 svptrue_b32()
#define KB_SVE_ALL64 svptrue_b64()

static inline vf32 vf32_zero(void) {
    return svdup_n_f32(0.0f);
}
static inline vf64 vf64_zero(void) {
    return svdup_n_f64(0.0);
}
static inline vf32 vf32_load(const float *p) {
    return svld1_f32(KB_SVE_ALL32, p);
}
static inline vf64 vf64_load(const double *p) {
    return svld1_f64(KB_SVE_ALL64, p);
}
static inline vf32 vf32_load_till(const float *p, int64_t n) {
    return svld1_f32(svwhilelt_b32_s64(0, n), p);
}
static inline vf64 vf64_load_till(const double *p, int64_t n) {
    return svld1_f64(svwhilelt_b64_s64(0, n), p);
}
static inline vf32 vf32_add(vf32 a, vf32 b) {
    return svadd_f32_x(KB_SVE_ALL32, a, b);
}
static inline vf64 vf64_add(vf64 a, vf64 b) {
    return svadd_f64_x(KB_SVE_ALL64, a, b);
}
/* FCVT widens the even-numbered floats of each 64-bit container: zipping a with itself puts
 * element k of the half in container k. */
static inline vf64 vf64_widen_lo(vf32 a) {
    return svcvt_f64_f32_x(KB_SVE_ALL64, svzip1_f32(a, a));
}
static inline vf64 vf64_widen_hi(vf32 a) {
    return svcvt_f64_f32_x(KB_SVE_ALL64, svzip2_f32(a, a));
}
/* The upper half brought down (EXT by half a vector) and added; the lower half of the sum
 * widened as vf64_widen_lo widens. */
static inline vf64 vf64_widen_halves(vf32 a) {
    vf32 s = svadd_f32_x(KB_SVE_ALL32, a, svext_f32(a, a, VF64_LANES));
    return svcvt_f64_f32_x(KB_SVE_ALL64, svzip1_f32(s, s));
}
static inline double vf64_hsum(vf64 a) {
    return svaddv_f64(KB_SVE_ALL64, a);
}
/* Lane i: the sum of v[i]'s lanes. log2(VF64_LANES) levels of pairs: the even and the odd
 * lanes of two vectors (UZP1, UZP2) added, which leaves each vector's pair sums in one half,
 * in order, as the next level needs them. */
static inline vf64 vf64_hsum_many(const vf64 v[VF64_LANES]) {
    vf64 t[VF64_LANES];
    for (int k = 0; k < VF64_LANES; k++)
        t[k] = v[k];
    for (int n = VF64_LANES; n > 1; n /= 2)
        for (int k = 0; k < n / 2; k++)
            t[k] = svadd_f64_x(KB_SVE_ALL64, svuzp1_f64(t[2 * k], t[2 * k + 1]),
                               svuzp2_f64(t[2 * k], t[2 * k + 1]));
    return t[0];
}
/* a, through an empty asm the compiler cannot see into (see simd/internal.h). */
static inline vf64 vf64_barrier(vf64 a) {
    svfloat64_t t = a; /* sizeless: what clang's "w" takes */
    __asm__ volatile("" : "+w"(t));
    return t;
}
static inline vf32 vf32_barrier(vf32 a) {
    svfloat32_t t = a;
    __asm__ volatile("" : "+w"(t));
    return t;
}
static inline void vf32_store(float *p, vf32 a) {
    svst1_f32(KB_SVE_ALL32, p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    svst1_f64(KB_SVE_ALL64, p, a);
}
/* Widening loads: each value loaded into the bottom of a container as wide as the result. */
static inline vf32 vf32_load_f16(const uint16_t *p) {
    return svcvt_f32_f16_x(KB_SVE_ALL32, svreinterpret_f16_u32(svld1uh_u32(KB_SVE_ALL32, p)));
}
static inline vf32 vf32_load_bf16(const uint16_t *p) {
    return svreinterpret_f32_u32(svlsl_n_u32_x(KB_SVE_ALL32, svld1uh_u32(KB_SVE_ALL32, p), 16));
}
static inline vf64 vf64_load_i32(const int32_t *p) {
    return svcvt_f64_s64_x(KB_SVE_ALL64, svld1sw_s64(KB_SVE_ALL64, p));
}
static inline vf64 vf64_load_f32(const float *p) {
    svuint64_t bits = svld1uw_u64(KB_SVE_ALL64, (const uint32_t *)(const void *)p);
    return svcvt_f64_f32_x(KB_SVE_ALL64, svreinterpret_f32_u64(bits));
}
static inline vf32 vf32_set1(float x) {
    return svdup_n_f32(x);
}
static inline vf64 vf64_set1(double x) {
    return svdup_n_f64(x);
}
static inline vf64 vf64_sub(vf64 a, vf64 b) {
    return svsub_f64_x(KB_SVE_ALL64, a, b);
}
static inline vf32 vf32_mul(vf32 a, vf32 b) {
    return svmul_f32_x(KB_SVE_ALL32, a, b);
}
static inline vf64 vf64_mul(vf64 a, vf64 b) {
    return svmul_f64_x(KB_SVE_ALL64, a, b);
}
static inline vf32 vf32_neg(vf32 a) {
    return svneg_f32_x(KB_SVE_ALL32, a);
}
static inline vf64 vf64_neg(vf64 a) {
    return svneg_f64_x(KB_SVE_ALL64, a);
}
static inline vf32 vf32_fma(vf32 a, vf32 b, vf32 c) {
    return svmad_f32_x(KB_SVE_ALL32, a, b, c);
}
static inline vf64 vf64_fma(vf64 a, vf64 b, vf64 c) {
    return svmad_f64_x(KB_SVE_ALL64, a, b, c);
}
static inline vf64 vf64_sqrt(vf64 a) {
    return svsqrt_f64_x(KB_SVE_ALL64, a);
}
static inline vf64 vf64_div(vf64 a, vf64 b) {
    return svdiv_f64_x(KB_SVE_ALL64, a, b);
}
/* a's lanes rounded to float (to nearest even), narrowed into the bottom of each container
 * and stored as consecutive floats. */
static inline void vf64_store_f32(float *p, vf64 a) {
    svuint64_t bits = svreinterpret_u64_f32(svcvt_f32_f64_x(KB_SVE_ALL64, a));
    svst1w_u64(KB_SVE_ALL64, (uint32_t *)(void *)p, bits);
}
/* Rounded once per lane, as kb_f64_to_f16 rounds: results are stored once per output row, and
 * FCVTX (round to odd, which two steps need) is SVE2's. */
static inline void vf64_store_f16(uint16_t *p, vf64 a) {
    double t[VF64_LANES];
    svst1_f64(KB_SVE_ALL64, t, a);
    for (int i = 0; i < VF64_LANES; i++)
        p[i] = kb_f64_to_f16(t[i]);
}

/* Extremes: SVE's FMIN and FMAX return NaN when either operand is NaN; the kernels still test
 * vfS_any_nan, as on every target. */
static inline vf32 vf32_min(vf32 a, vf32 b) {
    return svmin_f32_x(KB_SVE_ALL32, a, b);
}
static inline vf32 vf32_max(vf32 a, vf32 b) {
    return svmax_f32_x(KB_SVE_ALL32, a, b);
}
static inline vf64 vf64_min(vf64 a, vf64 b) {
    return svmin_f64_x(KB_SVE_ALL64, a, b);
}
static inline vf64 vf64_max(vf64 a, vf64 b) {
    return svmax_f64_x(KB_SVE_ALL64, a, b);
}
static inline float vf32_hmin(vf32 a) {
    return svminv_f32(KB_SVE_ALL32, a);
}
static inline float vf32_hmax(vf32 a) {
    return svmaxv_f32(KB_SVE_ALL32, a);
}
static inline double vf64_hmin(vf64 a) {
    return svminv_f64(KB_SVE_ALL64, a);
}
static inline double vf64_hmax(vf64 a) {
    return svmaxv_f64(KB_SVE_ALL64, a);
}
static inline vf32 vf32_nan_or(vf32 acc, vf32 a, vf32 b) {
    svbool_t unordered = svcmpuo_f32(KB_SVE_ALL32, a, b);
    return svsel_f32(unordered, svreinterpret_f32_u32(svdup_n_u32(UINT32_MAX)), acc);
}
static inline vf64 vf64_nan_or(vf64 acc, vf64 a, vf64 b) {
    svbool_t unordered = svcmpuo_f64(KB_SVE_ALL64, a, b);
    return svsel_f64(unordered, svreinterpret_f64_u64(svdup_n_u64(UINT64_MAX)), acc);
}
/* The even-numbered lanes of a then of b, and the odd-numbered ones (UZP1, UZP2). */
static inline vf32 vf32_evens(vf32 a, vf32 b) {
    return svuzp1_f32(a, b);
}
static inline vf32 vf32_odds(vf32 a, vf32 b) {
    return svuzp2_f32(a, b);
}
static inline vf64 vf64_evens(vf64 a, vf64 b) {
    return svuzp1_f64(a, b);
}
static inline vf64 vf64_odds(vf64 a, vf64 b) {
    return svuzp2_f64(a, b);
}
static inline int vf32_any_nan(vf32 a) {
    return svptest_any(KB_SVE_ALL32, svcmpuo_f32(KB_SVE_ALL32, a, a));
}
static inline int vf64_any_nan(vf64 a) {
    return svptest_any(KB_SVE_ALL64, svcmpuo_f64(KB_SVE_ALL64, a, a));
}
static inline vf32 vf32_load_till_or(const float *p, int64_t n, float fill) {
    svbool_t k = svwhilelt_b32_s64(0, n);
    return svsel_f32(k, svld1_f32(k, p), svdup_n_f32(fill));
}
static inline vf64 vf64_load_till_or(const double *p, int64_t n, double fill) {
    svbool_t k = svwhilelt_b64_s64(0, n);
    return svsel_f64(k, svld1_f64(k, p), svdup_n_f64(fill));
}

/* Arg kernels: predicates for masks, and index vectors beside the data (int32 beside f32,
 * int64 beside f64). */
typedef svbool_t vmf32 KB_SVE_FIXED;
typedef svbool_t vmf64 KB_SVE_FIXED;
typedef svint32_t vif32 KB_SVE_FIXED;
typedef svint64_t vif64 KB_SVE_FIXED;
static inline vmf32 vf32_lt(vf32 a, vf32 b) {
    return svcmplt_f32(KB_SVE_ALL32, a, b);
}
static inline vmf32 vf32_gt(vf32 a, vf32 b) {
    return svcmpgt_f32(KB_SVE_ALL32, a, b);
}
static inline vmf32 vf32_eq(vf32 a, vf32 b) {
    return svcmpeq_f32(KB_SVE_ALL32, a, b);
}
static inline vmf64 vf64_lt(vf64 a, vf64 b) {
    return svcmplt_f64(KB_SVE_ALL64, a, b);
}
static inline vmf64 vf64_gt(vf64 a, vf64 b) {
    return svcmpgt_f64(KB_SVE_ALL64, a, b);
}
static inline vmf64 vf64_eq(vf64 a, vf64 b) {
    return svcmpeq_f64(KB_SVE_ALL64, a, b);
}
static inline vmf32 vmf32_or(vmf32 a, vmf32 b) {
    return svorr_b_z(KB_SVE_ALL32, a, b);
}
static inline vmf32 vmf32_and(vmf32 a, vmf32 b) {
    return svand_b_z(KB_SVE_ALL32, a, b);
}
static inline vmf64 vmf64_or(vmf64 a, vmf64 b) {
    return svorr_b_z(KB_SVE_ALL64, a, b);
}
static inline vmf64 vmf64_and(vmf64 a, vmf64 b) {
    return svand_b_z(KB_SVE_ALL64, a, b);
}
static inline vf32 vf32_select(vf32 src, vmf32 k, vf32 a) {
    return svsel_f32(k, a, src);
}
static inline vf64 vf64_select(vf64 src, vmf64 k, vf64 a) {
    return svsel_f64(k, a, src);
}
static inline vif32 vif32_set1(int64_t a) {
    return svdup_n_s32((int32_t)a);
}
static inline vif64 vif64_set1(int64_t a) {
    return svdup_n_s64(a);
}
static inline vif32 vif32_add(vif32 a, vif32 b) {
    return svadd_s32_x(KB_SVE_ALL32, a, b);
}
static inline vif64 vif64_add(vif64 a, vif64 b) {
    return svadd_s64_x(KB_SVE_ALL64, a, b);
}
static inline vif32 vif32_select(vif32 src, vmf32 k, vif32 a) {
    return svsel_s32(k, a, src);
}
static inline vif64 vif64_select(vif64 src, vmf64 k, vif64 a) {
    return svsel_s64(k, a, src);
}
static inline vmf32 vif32_lt(vif32 a, vif32 b) {
    return svcmplt_s32(KB_SVE_ALL32, a, b);
}
static inline vmf64 vif64_lt(vif64 a, vif64 b) {
    return svcmplt_s64(KB_SVE_ALL64, a, b);
}
static inline vif32 vif32_load(const int32_t *p) {
    return svld1_s32(KB_SVE_ALL32, p);
}
static inline vif64 vif64_load(const int64_t *p) {
    return svld1_s64(KB_SVE_ALL64, p);
}
static inline void vif32_store(int32_t *p, vif32 a) {
    svst1_s32(KB_SVE_ALL32, p, a);
}
static inline void vif64_store(int64_t *p, vif64 a) {
    svst1_s64(KB_SVE_ALL64, p, a);
}
static inline vif32 vif32_iota(void) {
    return svindex_s32(0, 1);
}
static inline vif64 vif64_iota(void) {
    return svindex_s64(0, 1);
}
static inline int64_t vif32_min_where(vmf32 k, vif32 r) {
    return svminv_s32(k, r);
}
static inline int64_t vif64_min_where(vmf64 k, vif64 r) {
    return svminv_s64(k, r);
}

#endif

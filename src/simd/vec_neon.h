#ifndef KB_SIMD_VEC_NEON_H
#define KB_SIMD_VEC_NEON_H

/* The vector layer on NEON (AArch64 Advanced SIMD): 4 floats, 2 doubles. NEON has no masked
 * load, so a tail is copied into a zeroed vector-sized buffer, element by element, never
 * reading past its end. Included through simd/internal.h only. */

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

typedef float32x4_t vf32;
typedef float64x2_t vf64;
#define VF32_LANES 4
#define VF64_LANES 2
#define KB_VEC_REGISTERS 32
#define KB_VEC_NT_STORES 0

static inline vf32 vf32_zero(void) {
    return vdupq_n_f32(0.0f);
}
static inline vf64 vf64_zero(void) {
    return vdupq_n_f64(0.0);
}
static inline vf32 vf32_load(const float *p) {
    return vld1q_f32(p);
}
static inline vf64 vf64_load(const double *p) {
    return vld1q_f64(p);
}
static inline vf32 vf32_load_till(const float *p, int64_t n) {
    float t[VF32_LANES] = {0};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vld1q_f32(t);
}
static inline vf64 vf64_load_till(const double *p, int64_t n) {
    double t[VF64_LANES] = {0};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vld1q_f64(t);
}
static inline vf32 vf32_add(vf32 a, vf32 b) {
    return vaddq_f32(a, b);
}
static inline vf64 vf64_add(vf64 a, vf64 b) {
    return vaddq_f64(a, b);
}
static inline vf64 vf64_widen_lo(vf32 a) {
    return vcvt_f64_f32(vget_low_f32(a));
}
static inline vf64 vf64_widen_hi(vf32 a) {
    return vcvt_high_f64_f32(a);
}
static inline vf64 vf64_widen_halves(vf32 a) {
    return vcvt_f64_f32(vadd_f32(vget_low_f32(a), vget_high_f32(a)));
}
static inline double vf64_hsum(vf64 a) {
    return vaddvq_f64(a);
}
/* Lane i: the sum of v[i]'s lanes (FADDP). */
static inline vf64 vf64_hsum_many(const vf64 v[VF64_LANES]) {
    return vpaddq_f64(v[0], v[1]);
}
/* a, through an empty asm the compiler cannot see into (see simd/internal.h). */
static inline vf64 vf64_barrier(vf64 a) {
    __asm__ volatile("" : "+w"(a));
    return a;
}
static inline vf32 vf32_barrier(vf32 a) {
    __asm__ volatile("" : "+w"(a));
    return a;
}
static inline void vf32_store(float *p, vf32 a) {
    vst1q_f32(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    vst1q_f64(p, a);
}
/* AArch64's non-temporal pair store (STNP) has no intrinsic: a plain store. */
static inline void vf32_store_nt(float *p, vf32 a) {
    vst1q_f32(p, a);
}
static inline void vf64_store_nt(double *p, vf64 a) {
    vst1q_f64(p, a);
}
/* Widening loads: VF32_LANES float16 or bfloat16 values into floats (FCVTL, part of AArch64's
 * base SIMD; a bfloat16 is the top half of a float), VF64_LANES int32 into doubles (exact). */
static inline vf32 vf32_load_f16(const uint16_t *p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}
static inline vf32 vf32_load_bf16(const uint16_t *p) {
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}
static inline vf64 vf64_load_i32(const int32_t *p) {
    return vcvtq_f64_s64(vmovl_s32(vld1_s32(p)));
}
static inline vf64 vf64_load_f32(const float *p) {
    return vcvt_f64_f32(vld1_f32(p));
}
static inline vf32 vf32_set1(float x) {
    return vdupq_n_f32(x);
}
static inline vf64 vf64_set1(double x) {
    return vdupq_n_f64(x);
}
static inline vf64 vf64_sub(vf64 a, vf64 b) {
    return vsubq_f64(a, b);
}
static inline vf64 vf64_mul(vf64 a, vf64 b) {
    return vmulq_f64(a, b);
}
static inline vf32 vf32_fma(vf32 a, vf32 b, vf32 c) {
    return vfmaq_f32(c, a, b);
}
static inline vf64 vf64_fma(vf64 a, vf64 b, vf64 c) {
    return vfmaq_f64(c, a, b);
}
static inline vf64 vf64_sqrt(vf64 a) {
    return vsqrtq_f64(a);
}
static inline vf64 vf64_div(vf64 a, vf64 b) {
    return vdivq_f64(a, b);
}
/* The rest of the elementwise arithmetic: float lanes beside the double ones above, and the
 * sign operations, exact on every lane (NaN included: only the sign bit changes). */
static inline vf32 vf32_sub(vf32 a, vf32 b) {
    return vsubq_f32(a, b);
}
static inline vf32 vf32_mul(vf32 a, vf32 b) {
    return vmulq_f32(a, b);
}
static inline vf32 vf32_div(vf32 a, vf32 b) {
    return vdivq_f32(a, b);
}
static inline vf32 vf32_sqrt(vf32 a) {
    return vsqrtq_f32(a);
}
static inline vf32 vf32_neg(vf32 a) {
    return vnegq_f32(a);
}
static inline vf64 vf64_neg(vf64 a) {
    return vnegq_f64(a);
}
static inline vf32 vf32_abs(vf32 a) {
    return vabsq_f32(a);
}
static inline vf64 vf64_abs(vf64 a) {
    return vabsq_f64(a);
}
/* a's lanes rounded to float (to nearest even) and stored. */
static inline void vf64_store_f32(float *p, vf64 a) {
    vst1_f32(p, vcvt_f32_f64(a));
}
/* Stores a's lanes as float16, each rounded once: to float with round-to-odd (FCVTXN), then
 * to float16 to nearest even. */
static inline void vf64_store_f16(uint16_t *p, vf64 a) {
    float32x4_t f = vcombine_f32(vcvtx_f32_f64(a), vdup_n_f32(0.0f));
    uint16x4_t h = vreinterpret_u16_f16(vcvt_f16_f32(f));
    uint16_t t[4];
    vst1_u16(t, h);
    memcpy(p, t, VF64_LANES * sizeof *p);
}

/* Extremes: lane-wise min and max of NaN-free lanes (callers test vfS_any_nan), the extreme
 * of the lanes, whether any lane is NaN, and a tail loaded with fill in the lanes past n. */
static inline vf32 vf32_min(vf32 a, vf32 b) {
    return vminq_f32(a, b);
}
static inline vf32 vf32_max(vf32 a, vf32 b) {
    return vmaxq_f32(a, b);
}
static inline vf64 vf64_min(vf64 a, vf64 b) {
    return vminq_f64(a, b);
}
static inline vf64 vf64_max(vf64 a, vf64 b) {
    return vmaxq_f64(a, b);
}
static inline float vf32_hmin(vf32 a) {
    return vminvq_f32(a);
}
static inline float vf32_hmax(vf32 a) {
    return vmaxvq_f32(a);
}
static inline double vf64_hmin(vf64 a) {
    return vminvq_f64(a);
}
static inline double vf64_hmax(vf64 a) {
    return vmaxvq_f64(a);
}
static inline vf32 vf32_nan_or(vf32 acc, vf32 a, vf32 b) {
    uint32x4_t ordered = vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b));
    return vreinterpretq_f32_u32(vornq_u32(vreinterpretq_u32_f32(acc), ordered));
}
static inline vf64 vf64_nan_or(vf64 acc, vf64 a, vf64 b) {
    uint64x2_t ordered = vandq_u64(vceqq_f64(a, a), vceqq_f64(b, b));
    return vreinterpretq_f64_u64(vornq_u64(vreinterpretq_u64_f64(acc), ordered));
}
/* The even-numbered lanes of a then of b, and the odd-numbered ones (UZP1, UZP2). */
static inline vf32 vf32_evens(vf32 a, vf32 b) {
    return vuzp1q_f32(a, b);
}
static inline vf32 vf32_odds(vf32 a, vf32 b) {
    return vuzp2q_f32(a, b);
}
static inline vf64 vf64_evens(vf64 a, vf64 b) {
    return vuzp1q_f64(a, b);
}
static inline vf64 vf64_odds(vf64 a, vf64 b) {
    return vuzp2q_f64(a, b);
}
static inline int vf32_any_nan(vf32 a) {
    return vminvq_u32(vceqq_f32(a, a)) == 0;
}
static inline int vf64_any_nan(vf64 a) {
    uint64x2_t same = vceqq_f64(a, a);
    return (vgetq_lane_u64(same, 0) & vgetq_lane_u64(same, 1)) == 0;
}
static inline vf32 vf32_load_till_or(const float *p, int64_t n, float fill) {
    float t[VF32_LANES] = {fill, fill, fill, fill};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vld1q_f32(t);
}
static inline vf64 vf64_load_till_or(const double *p, int64_t n, double fill) {
    double t[VF64_LANES] = {fill, fill};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vld1q_f64(t);
}

/* Arg kernels: lane masks of comparisons (vmS), selects, and index vectors beside the data
 * (viS: int32 lanes beside f32, int64 beside f64). */
typedef uint32x4_t vmf32;
typedef uint64x2_t vmf64;
typedef int32x4_t vif32;
typedef int64x2_t vif64;
static inline vmf32 vf32_lt(vf32 a, vf32 b) {
    return vcltq_f32(a, b);
}
static inline vmf32 vf32_gt(vf32 a, vf32 b) {
    return vcgtq_f32(a, b);
}
static inline vmf32 vf32_eq(vf32 a, vf32 b) {
    return vceqq_f32(a, b);
}
static inline vmf64 vf64_lt(vf64 a, vf64 b) {
    return vcltq_f64(a, b);
}
static inline vmf64 vf64_gt(vf64 a, vf64 b) {
    return vcgtq_f64(a, b);
}
static inline vmf64 vf64_eq(vf64 a, vf64 b) {
    return vceqq_f64(a, b);
}
static inline vmf32 vmf32_or(vmf32 a, vmf32 b) {
    return vorrq_u32(a, b);
}
static inline vmf32 vmf32_and(vmf32 a, vmf32 b) {
    return vandq_u32(a, b);
}
static inline vmf64 vmf64_or(vmf64 a, vmf64 b) {
    return vorrq_u64(a, b);
}
static inline vmf64 vmf64_and(vmf64 a, vmf64 b) {
    return vandq_u64(a, b);
}
/* Whether every lane of a mask is set. */
static inline int vmf32_all(vmf32 k) {
    return vminvq_u32(k) != 0;
}
static inline int vmf64_all(vmf64 k) {
    return vminvq_u32(vreinterpretq_u32_u64(k)) != 0;
}
static inline vf32 vf32_select(vf32 src, vmf32 k, vf32 a) {
    return vbslq_f32(k, a, src);
}
static inline vf64 vf64_select(vf64 src, vmf64 k, vf64 a) {
    return vbslq_f64(k, a, src);
}
static inline vif32 vif32_set1(int64_t a) {
    return vdupq_n_s32((int32_t)a);
}
static inline vif64 vif64_set1(int64_t a) {
    return vdupq_n_s64(a);
}
static inline vif32 vif32_add(vif32 a, vif32 b) {
    return vaddq_s32(a, b);
}
static inline vif64 vif64_add(vif64 a, vif64 b) {
    return vaddq_s64(a, b);
}
/* A float vector's bits as integers of its lanes' width, and back; a left shift of those
 * integers by k bits. */
static inline vif32 vf32_bits(vf32 a) {
    return vreinterpretq_s32_f32(a);
}
static inline vif64 vf64_bits(vf64 a) {
    return vreinterpretq_s64_f64(a);
}
static inline vf32 vf32_from_bits(vif32 a) {
    return vreinterpretq_f32_s32(a);
}
static inline vf64 vf64_from_bits(vif64 a) {
    return vreinterpretq_f64_s64(a);
}
static inline vif32 vif32_shl(vif32 a, int k) {
    return vshlq_s32(a, vdupq_n_s32(k));
}
static inline vif64 vif64_shl(vif64 a, int k) {
    return vshlq_s64(a, vdupq_n_s64(k));
}
static inline vf32 vf32_lookup8(const float t[8], vif32 i) {
    /* the bytes of entry i & 7: 4 (i & 7) + 0, 1, 2, 3 */
    uint32x4_t entry = vandq_u32(vreinterpretq_u32_s32(i), vdupq_n_u32(7));
    uint32x4_t bytes = vmlaq_n_u32(vdupq_n_u32(0x03020100), entry, 0x04040404);
    uint8x16x2_t table = {{vld1q_u8((const uint8_t *)t), vld1q_u8((const uint8_t *)(t + 4))}};
    return vreinterpretq_f32_u8(vqtbl2q_u8(table, vreinterpretq_u8_u32(bytes)));
}
static inline vif32 vif32_select(vif32 src, vmf32 k, vif32 a) {
    return vbslq_s32(k, a, src);
}
static inline vif64 vif64_select(vif64 src, vmf64 k, vif64 a) {
    return vbslq_s64(k, a, src);
}
static inline vmf32 vif32_lt(vif32 a, vif32 b) {
    return vcltq_s32(a, b);
}
static inline vmf64 vif64_lt(vif64 a, vif64 b) {
    return vcltq_s64(a, b);
}
static inline vif32 vif32_load(const int32_t *p) {
    return vld1q_s32(p);
}
static inline vif64 vif64_load(const int64_t *p) {
    return vld1q_s64(p);
}
static inline void vif32_store(int32_t *p, vif32 a) {
    vst1q_s32(p, a);
}
static inline void vif64_store(int64_t *p, vif64 a) {
    vst1q_s64(p, a);
}
static inline vif32 vif32_iota(void) {
    static const int32_t iota[4] = {0, 1, 2, 3};
    return vld1q_s32(iota);
}
static inline vif64 vif64_iota(void) {
    static const int64_t iota[2] = {0, 1};
    return vld1q_s64(iota);
}

static inline int64_t vif32_min_where(vmf32 k, vif32 r) {
    return vminvq_s32(vif32_select(vdupq_n_s32(INT32_MAX), k, r));
}
static inline int64_t vif64_min_where(vmf64 k, vif64 r) {
    int64x2_t m = vif64_select(vdupq_n_s64(INT64_MAX), k, r);
    int64_t a = vgetq_lane_s64(m, 0), b = vgetq_lane_s64(m, 1);
    return a < b ? a : b;
}

#endif

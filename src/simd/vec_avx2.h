#ifndef KB_SIMD_VEC_AVX2_H
#define KB_SIMD_VEC_AVX2_H

/* The vector layer on AVX2: 8 floats, 4 doubles; tails by maskload, which does not fault on
 * the lanes it leaves out. Included through simd/internal.h only. */

#include <immintrin.h>
#include <stdint.h>

typedef __m256 vf32;
typedef __m256d vf64;
#define VF32_LANES 8
#define VF64_LANES 4
#define KB_VEC_REGISTERS 16
#define KB_VEC_NT_STORES 1

static inline vf32 vf32_zero(void) {
    return _mm256_setzero_ps();
}
static inline vf64 vf64_zero(void) {
    return _mm256_setzero_pd();
}
static inline vf32 vf32_load(const float *p) {
    return _mm256_loadu_ps(p);
}
static inline vf64 vf64_load(const double *p) {
    return _mm256_loadu_pd(p);
}
/* Lane i is loaded when i < n: compare the lane numbers with n. */
static inline vf32 vf32_load_till(const float *p, int64_t n) {
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_maskload_ps(p, mask);
}
static inline vf64 vf64_load_till(const double *p, int64_t n) {
    __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
    return _mm256_maskload_pd(p, mask);
}
static inline vf32 vf32_add(vf32 a, vf32 b) {
    return _mm256_add_ps(a, b);
}
static inline vf64 vf64_add(vf64 a, vf64 b) {
    return _mm256_add_pd(a, b);
}
static inline vf64 vf64_widen_lo(vf32 a) {
    return _mm256_cvtps_pd(_mm256_castps256_ps128(a));
}
static inline vf64 vf64_widen_hi(vf32 a) {
    return _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
}
static inline vf64 vf64_widen_halves(vf32 a) {
    return _mm256_cvtps_pd(_mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1)));
}
static inline double vf64_hsum(vf64 a) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
/* Lane i: the sum of v[i]'s lanes. Pairs within 128-bit halves (unpack), then the halves of
 * two vectors (vperm2f128). */
static inline vf64 vf64_hsum_many(const vf64 v[VF64_LANES]) {
    __m256d t0 = _mm256_add_pd(_mm256_unpacklo_pd(v[0], v[1]), _mm256_unpackhi_pd(v[0], v[1]));
    __m256d t1 = _mm256_add_pd(_mm256_unpacklo_pd(v[2], v[3]), _mm256_unpackhi_pd(v[2], v[3]));
    return _mm256_add_pd(_mm256_permute2f128_pd(t0, t1, 0x20),
                         _mm256_permute2f128_pd(t0, t1, 0x31));
}
/* a, through an empty asm the compiler cannot see into (see simd/internal.h). */
static inline vf64 vf64_barrier(vf64 a) {
    __asm__ volatile("" : "+v"(a));
    return a;
}
static inline vf32 vf32_barrier(vf32 a) {
    __asm__ volatile("" : "+v"(a));
    return a;
}
static inline void vf32_store(float *p, vf32 a) {
    _mm256_storeu_ps(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    _mm256_storeu_pd(p, a);
}
static inline void vf32_store_nt(float *p, vf32 a) {
    _mm256_stream_ps(p, a);
}
static inline void vf64_store_nt(double *p, vf64 a) {
    _mm256_stream_pd(p, a);
}
/* Widening loads: VF32_LANES float16 or bfloat16 values into floats (F16C's conversion; a
 * bfloat16 is the top half of a float), VF64_LANES int32 into doubles (exact). */
static inline vf32 vf32_load_f16(const uint16_t *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}
static inline vf32 vf32_load_bf16(const uint16_t *p) {
    __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}
static inline vf64 vf64_load_i32(const int32_t *p) {
    return _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(const void *)p));
}
static inline vf64 vf64_load_f32(const float *p) {
    return _mm256_cvtps_pd(_mm_loadu_ps(p));
}
static inline vf32 vf32_set1(float x) {
    return _mm256_set1_ps(x);
}
static inline vf64 vf64_set1(double x) {
    return _mm256_set1_pd(x);
}
static inline vf64 vf64_sub(vf64 a, vf64 b) {
    return _mm256_sub_pd(a, b);
}
static inline vf64 vf64_mul(vf64 a, vf64 b) {
    return _mm256_mul_pd(a, b);
}
static inline vf32 vf32_fma(vf32 a, vf32 b, vf32 c) {
    return _mm256_fmadd_ps(a, b, c);
}
static inline vf64 vf64_fma(vf64 a, vf64 b, vf64 c) {
    return _mm256_fmadd_pd(a, b, c);
}
static inline vf64 vf64_sqrt(vf64 a) {
    return _mm256_sqrt_pd(a);
}
static inline vf64 vf64_div(vf64 a, vf64 b) {
    return _mm256_div_pd(a, b);
}
/* The rest of the elementwise arithmetic: float lanes beside the double ones above, and the
 * sign operations, exact on every lane (NaN included: only the sign bit changes). */
static inline vf32 vf32_sub(vf32 a, vf32 b) {
    return _mm256_sub_ps(a, b);
}
static inline vf32 vf32_mul(vf32 a, vf32 b) {
    return _mm256_mul_ps(a, b);
}
static inline vf32 vf32_div(vf32 a, vf32 b) {
    return _mm256_div_ps(a, b);
}
static inline vf32 vf32_sqrt(vf32 a) {
    return _mm256_sqrt_ps(a);
}
static inline vf32 vf32_neg(vf32 a) {
    return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}
static inline vf64 vf64_neg(vf64 a) {
    return _mm256_xor_pd(a, _mm256_set1_pd(-0.0));
}
static inline vf32 vf32_abs(vf32 a) {
    return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a);
}
static inline vf64 vf64_abs(vf64 a) {
    return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a);
}
/* a's lanes rounded to float (to nearest even) and stored. */
static inline void vf64_store_f32(float *p, vf64 a) {
    _mm_storeu_ps(p, _mm256_cvtpd_ps(a));
}
/* Stores a's lanes as float16, each rounded once: to float with round-to-odd (inexact lanes
 * truncated, then their last bit set), then to float16 to nearest even (F16C). The masks are
 * compared in double lanes and taken to float lanes by keeping every other 32-bit word. */
static inline void vf64_store_f16(uint16_t *p, vf64 a) {
    __m128 f = _mm256_cvtpd_ps(a);
    __m256d back = _mm256_cvtps_pd(f);
    __m256d sign = _mm256_set1_pd(-0.0);
    __m256d inexact = _mm256_and_pd(
        _mm256_and_pd(_mm256_cmp_pd(back, a, _CMP_NEQ_UQ), _mm256_cmp_pd(a, a, _CMP_ORD_Q)),
        _mm256_cmp_pd(_mm256_sub_pd(back, back), _mm256_setzero_pd(), _CMP_EQ_OQ));
    __m256d toward = _mm256_and_pd(inexact, _mm256_cmp_pd(_mm256_andnot_pd(sign, back),
                                                          _mm256_andnot_pd(sign, a), _CMP_GT_OQ));
    __m256i words = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m128i odd =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(inexact), words));
    __m128i down =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(toward), words));
    __m128i one = _mm_set1_epi32(1), bits = _mm_castps_si128(f);
    bits = _mm_or_si128(_mm_sub_epi32(bits, _mm_and_si128(down, one)), _mm_and_si128(odd, one));
    __m128i h = _mm_cvtps_ph(_mm_castsi128_ps(bits), _MM_FROUND_TO_NEAREST_INT);
    _mm_storel_epi64((__m128i *)(void *)p, h);
}

/* Extremes: lane-wise min and max of NaN-free lanes (a NaN gives either operand: callers test
 * vfS_any_nan), the extreme of the lanes, whether any lane is NaN, and a tail loaded with fill
 * in the lanes past n. */
static inline vf32 vf32_min(vf32 a, vf32 b) {
    return _mm256_min_ps(a, b);
}
static inline vf32 vf32_max(vf32 a, vf32 b) {
    return _mm256_max_ps(a, b);
}
static inline vf64 vf64_min(vf64 a, vf64 b) {
    return _mm256_min_pd(a, b);
}
static inline vf64 vf64_max(vf64 a, vf64 b) {
    return _mm256_max_pd(a, b);
}
/* Halves folded until one lane is left: 8 -> 4 -> 2 -> 1. */
#define KB_VEC_AVX2_HFOLD_PS(a, OP)                                                                \
    __m128 h = OP##_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));                    \
    h = OP##_ps(h, _mm_movehl_ps(h, h));                                                           \
    return _mm_cvtss_f32(OP##_ss(h, _mm_shuffle_ps(h, h, 1)))
#define KB_VEC_AVX2_HFOLD_PD(a, OP)                                                                \
    __m128d h = OP##_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));                   \
    return _mm_cvtsd_f64(OP##_sd(h, _mm_unpackhi_pd(h, h)))
static inline float vf32_hmin(vf32 a) {
    KB_VEC_AVX2_HFOLD_PS(a, _mm_min);
}
static inline float vf32_hmax(vf32 a) {
    KB_VEC_AVX2_HFOLD_PS(a, _mm_max);
}
static inline double vf64_hmin(vf64 a) {
    KB_VEC_AVX2_HFOLD_PD(a, _mm_min);
}
static inline double vf64_hmax(vf64 a) {
    KB_VEC_AVX2_HFOLD_PD(a, _mm_max);
}
static inline vf32 vf32_nan_or(vf32 acc, vf32 a, vf32 b) {
    return _mm256_or_ps(acc, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
}
static inline vf64 vf64_nan_or(vf64 acc, vf64 a, vf64 b) {
    return _mm256_or_pd(acc, _mm256_cmp_pd(a, b, _CMP_UNORD_Q));
}
/* The even-numbered lanes of a then of b, and the odd-numbered ones: picked within each 128-bit
 * half (shufps, unpcklpd), then the halves put in order (vpermpd). */
static inline vf32 vf32_evens(vf32 a, vf32 b) {
    __m256 t = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), _MM_SHUFFLE(3, 1, 2, 0)));
}
static inline vf32 vf32_odds(vf32 a, vf32 b) {
    __m256 t = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), _MM_SHUFFLE(3, 1, 2, 0)));
}
static inline vf64 vf64_evens(vf64 a, vf64 b) {
    return _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), _MM_SHUFFLE(3, 1, 2, 0));
}
static inline vf64 vf64_odds(vf64 a, vf64 b) {
    return _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), _MM_SHUFFLE(3, 1, 2, 0));
}
static inline int vf32_any_nan(vf32 a) {
    return _mm256_movemask_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)) != 0;
}
static inline int vf64_any_nan(vf64 a) {
    return _mm256_movemask_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q)) != 0;
}
static inline vf32 vf32_load_till_or(const float *p, int64_t n, float fill) {
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, mask),
                            _mm256_castsi256_ps(mask));
}
static inline vf64 vf64_load_till_or(const double *p, int64_t n, double fill) {
    __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
    return _mm256_blendv_pd(_mm256_set1_pd(fill), _mm256_maskload_pd(p, mask),
                            _mm256_castsi256_pd(mask));
}

/* Arg kernels: lane masks of comparisons (vmS), selects, and index vectors beside the data
 * (viS: int32 lanes beside f32, int64 beside f64). */
typedef __m256 vmf32;
typedef __m256d vmf64;
typedef __m256i vif32;
typedef __m256i vif64;
static inline vmf32 vf32_lt(vf32 a, vf32 b) {
    return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}
static inline vmf32 vf32_gt(vf32 a, vf32 b) {
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
static inline vmf32 vf32_eq(vf32 a, vf32 b) {
    return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
}
static inline vmf64 vf64_lt(vf64 a, vf64 b) {
    return _mm256_cmp_pd(a, b, _CMP_LT_OQ);
}
static inline vmf64 vf64_gt(vf64 a, vf64 b) {
    return _mm256_cmp_pd(a, b, _CMP_GT_OQ);
}
static inline vmf64 vf64_eq(vf64 a, vf64 b) {
    return _mm256_cmp_pd(a, b, _CMP_EQ_OQ);
}
static inline vmf32 vmf32_or(vmf32 a, vmf32 b) {
    return _mm256_or_ps(a, b);
}
static inline vmf32 vmf32_and(vmf32 a, vmf32 b) {
    return _mm256_and_ps(a, b);
}
static inline vmf64 vmf64_or(vmf64 a, vmf64 b) {
    return _mm256_or_pd(a, b);
}
static inline vmf64 vmf64_and(vmf64 a, vmf64 b) {
    return _mm256_and_pd(a, b);
}
/* Whether every lane of a mask is set. */
static inline int vmf32_all(vmf32 k) {
    return _mm256_movemask_ps(k) == 0xff;
}
static inline int vmf64_all(vmf64 k) {
    return _mm256_movemask_pd(k) == 0xf;
}
static inline vf32 vf32_select(vf32 src, vmf32 k, vf32 a) {
    return _mm256_blendv_ps(src, a, k);
}
static inline vf64 vf64_select(vf64 src, vmf64 k, vf64 a) {
    return _mm256_blendv_pd(src, a, k);
}
static inline vif32 vif32_set1(int64_t a) {
    return _mm256_set1_epi32((int32_t)a);
}
static inline vif64 vif64_set1(int64_t a) {
    return _mm256_set1_epi64x(a);
}
static inline vif32 vif32_add(vif32 a, vif32 b) {
    return _mm256_add_epi32(a, b);
}
static inline vif64 vif64_add(vif64 a, vif64 b) {
    return _mm256_add_epi64(a, b);
}
/* A float vector's bits as integers of its lanes' width, and back; a left shift of those
 * integers by k bits. */
static inline vif32 vf32_bits(vf32 a) {
    return _mm256_castps_si256(a);
}
static inline vif64 vf64_bits(vf64 a) {
    return _mm256_castpd_si256(a);
}
static inline vf32 vf32_from_bits(vif32 a) {
    return _mm256_castsi256_ps(a);
}
static inline vf64 vf64_from_bits(vif64 a) {
    return _mm256_castsi256_pd(a);
}
static inline vif32 vif32_shl(vif32 a, int k) {
    return _mm256_slli_epi32(a, k);
}
static inline vif64 vif64_shl(vif64 a, int k) {
    return _mm256_slli_epi64(a, k);
}
static inline vf32 vf32_lookup8(const float t[8], vif32 i) {
    return _mm256_permutevar8x32_ps(_mm256_loadu_ps(t), i);
}
static inline vif32 vif32_select(vif32 src, vmf32 k, vif32 a) {
    return _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(src), _mm256_castsi256_ps(a), k));
}
static inline vif64 vif64_select(vif64 src, vmf64 k, vif64 a) {
    return _mm256_castpd_si256(
        _mm256_blendv_pd(_mm256_castsi256_pd(src), _mm256_castsi256_pd(a), k));
}
static inline vmf32 vif32_lt(vif32 a, vif32 b) {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, a));
}
static inline vmf64 vif64_lt(vif64 a, vif64 b) {
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(b, a));
}
static inline vif32 vif32_load(const int32_t *p) {
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
static inline vif64 vif64_load(const int64_t *p) {
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
static inline void vif32_store(int32_t *p, vif32 a) {
    _mm256_storeu_si256((void *)p, a);
}
static inline void vif64_store(int64_t *p, vif64 a) {
    _mm256_storeu_si256((void *)p, a);
}
static inline vif32 vif32_iota(void) {
    return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
}
static inline vif64 vif64_iota(void) {
    return _mm256_setr_epi64x(0, 1, 2, 3);
}

/* Halves folded in registers: through memory, the store and the eight reloads had cost a
 * store-forwarding wait on every call, once per run of argmin and argmax. */
static inline int64_t vif32_min_where(vmf32 k, vif32 r) {
    __m256i v = vif32_select(_mm256_set1_epi32(INT32_MAX), k, r);
    __m128i m = _mm_min_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm_min_epi32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(m);
}
static inline int64_t vif64_min_where(vmf64 k, vif64 r) {
    int64_t l[4];
    vif64_store(l, vif64_select(_mm256_set1_epi64x(INT64_MAX), k, r));
    int64_t a = l[0] < l[1] ? l[0] : l[1], b = l[2] < l[3] ? l[2] : l[3];
    return a < b ? a : b;
}

#endif

#ifndef KB_SIMD_VEC_AVX512_H
#define KB_SIMD_VEC_AVX512_H

/* The vector layer on AVX-512 (F, DQ): 16 floats, 8 doubles; tails by masked loads, which do
 * not fault on the lanes they leave out. Included through simd/internal.h only. */

#include <immintrin.h>
#include <stdint.h>

typedef __m512 vf32;
typedef __m512d vf64;
#define VF32_LANES 16
#define VF64_LANES 8
#define KB_VEC_REGISTERS 32
#define KB_VEC_NT_STORES 1

static inline vf32 vf32_zero(void) {
    return _mm512_setzero_ps();
}
static inline vf64 vf64_zero(void) {
    return _mm512_setzero_pd();
}
static inline vf32 vf32_load(const float *p) {
    return _mm512_loadu_ps(p);
}
static inline vf64 vf64_load(const double *p) {
    return _mm512_loadu_pd(p);
}
static inline vf32 vf32_load_till(const float *p, int64_t n) {
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p);
}
static inline vf64 vf64_load_till(const double *p, int64_t n) {
    return _mm512_maskz_loadu_pd((__mmask8)((1u << n) - 1), p);
}
static inline vf32 vf32_add(vf32 a, vf32 b) {
    return _mm512_add_ps(a, b);
}
static inline vf64 vf64_add(vf64 a, vf64 b) {
    return _mm512_add_pd(a, b);
}
static inline vf64 vf64_widen_lo(vf32 a) {
    return _mm512_cvtps_pd(_mm512_castps512_ps256(a));
}
static inline vf64 vf64_widen_hi(vf32 a) {
    return _mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1));
}
static inline vf64 vf64_widen_halves(vf32 a) {
    return _mm512_cvtps_pd(_mm256_add_ps(_mm512_castps512_ps256(a), _mm512_extractf32x8_ps(a, 1)));
}
static inline double vf64_hsum(vf64 a) {
    return _mm512_reduce_add_pd(a);
}
/* Lane i: the sum of v[i]'s lanes. Three levels of pairs, each two shuffles and an add per
 * pair of vectors: within 128-bit blocks (unpack), then whole blocks (vshuff64x2) twice. */
static inline vf64 vf64_hsum_many(const vf64 v[VF64_LANES]) {
    __m512d t[4], s[2];
    for (int k = 0; k < 4; k++)
        t[k] = _mm512_add_pd(_mm512_unpacklo_pd(v[2 * k], v[2 * k + 1]),
                             _mm512_unpackhi_pd(v[2 * k], v[2 * k + 1]));
    for (int k = 0; k < 2; k++)
        s[k] = _mm512_add_pd(_mm512_shuffle_f64x2(t[2 * k], t[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f64x2(t[2 * k], t[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_pd(_mm512_shuffle_f64x2(s[0], s[1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f64x2(s[0], s[1], _MM_SHUFFLE(3, 1, 3, 1)));
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
/* Lane i: the sum of v[i]'s lanes, partials of at most k elements each (simd/internal.h). With
 * k <= 2 the first three levels add in float (each lane then holds at most 8k <= 16 elements):
 * halves of two rows into one vector (vshuff32x4), pairs of lanes within 128-bit blocks
 * (unpack, as floats then as pairs of floats), leaving each row's sum as two floats in each
 * of two blocks; then one conversion a half and a final add in double across the permuted
 * halves (vpermt2pd): 27 operations for 8 rows where widening each row first takes 45. */
#define KB_VEC_HSUM_MANY_F32
static inline vf64 vf64_hsum_many_f32(const vf32 v[VF64_LANES], int k) {
    if (k > 2) {
        vf64 s[VF64_LANES];
        for (int q = 0; q < VF64_LANES; q++)
            s[q] = vf64_widen_halves(v[q]);
        return vf64_hsum_many(s);
    }
    __m512 x[4], y[2];
    for (int j = 0; j < 4; j++)
        x[j] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    for (int j = 0; j < 2; j++)
        y[j] = _mm512_add_ps(_mm512_unpacklo_ps(x[2 * j], x[2 * j + 1]),
                             _mm512_unpackhi_ps(x[2 * j], x[2 * j + 1]));
    __m512d y0 = _mm512_castps_pd(y[0]), y1 = _mm512_castps_pd(y[1]);
    __m512 z = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(y0, y1)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(y0, y1)));
    /* z: rows 0, 2, 4, 6 in blocks 0 and 1 (lanes 0-3 and 4-7 of their halves), 1, 3, 5, 7 in
     * blocks 2 and 3 */
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(z));
    __m512d hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(z, 1));
    __m512i first = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    __m512i second = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    return _mm512_add_pd(_mm512_permutex2var_pd(lo, first, hi),
                         _mm512_permutex2var_pd(lo, second, hi));
}
static inline void vf32_store(float *p, vf32 a) {
    _mm512_storeu_ps(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    _mm512_storeu_pd(p, a);
}
static inline void vf32_store_nt(float *p, vf32 a) {
    _mm512_stream_ps(p, a);
}
static inline void vf64_store_nt(double *p, vf64 a) {
    _mm512_stream_pd(p, a);
}
/* Widening loads: VF32_LANES float16 or bfloat16 values into floats (F16C's conversion; a
 * bfloat16 is the top half of a float), VF64_LANES int32 into doubles (exact). */
static inline vf32 vf32_load_f16(const uint16_t *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline vf32 vf32_load_bf16(const uint16_t *p) {
    __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
}
static inline vf64 vf64_load_i32(const int32_t *p) {
    return _mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline vf64 vf64_load_f32(const float *p) {
    return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}
static inline vf32 vf32_set1(float x) {
    return _mm512_set1_ps(x);
}
static inline vf64 vf64_set1(double x) {
    return _mm512_set1_pd(x);
}
static inline vf64 vf64_sub(vf64 a, vf64 b) {
    return _mm512_sub_pd(a, b);
}
static inline vf64 vf64_mul(vf64 a, vf64 b) {
    return _mm512_mul_pd(a, b);
}
static inline vf32 vf32_fma(vf32 a, vf32 b, vf32 c) {
    return _mm512_fmadd_ps(a, b, c);
}
static inline vf64 vf64_fma(vf64 a, vf64 b, vf64 c) {
    return _mm512_fmadd_pd(a, b, c);
}
static inline vf64 vf64_sqrt(vf64 a) {
    return _mm512_sqrt_pd(a);
}
static inline vf64 vf64_div(vf64 a, vf64 b) {
    return _mm512_div_pd(a, b);
}
/* The rest of the elementwise arithmetic: float lanes beside the double ones above, and the
 * sign operations, exact on every lane (NaN included: only the sign bit changes). AVX-512F
 * has no float xor (that is AVX-512DQ, which the level requires: _mm512_xor_ps). */
static inline vf32 vf32_sub(vf32 a, vf32 b) {
    return _mm512_sub_ps(a, b);
}
static inline vf32 vf32_mul(vf32 a, vf32 b) {
    return _mm512_mul_ps(a, b);
}
static inline vf32 vf32_div(vf32 a, vf32 b) {
    return _mm512_div_ps(a, b);
}
static inline vf32 vf32_sqrt(vf32 a) {
    return _mm512_sqrt_ps(a);
}
static inline vf32 vf32_neg(vf32 a) {
    return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f));
}
static inline vf64 vf64_neg(vf64 a) {
    return _mm512_xor_pd(a, _mm512_set1_pd(-0.0));
}
static inline vf32 vf32_abs(vf32 a) {
    return _mm512_abs_ps(a);
}
static inline vf64 vf64_abs(vf64 a) {
    return _mm512_abs_pd(a);
}
/* a's lanes rounded to float (to nearest even) and stored. */
static inline void vf64_store_f32(float *p, vf64 a) {
    _mm256_storeu_ps(p, _mm512_cvtpd_ps(a));
}
/* Stores a's lanes as float16, each rounded once: to float with round-to-odd (inexact lanes
 * truncated, then their last bit set), then to float16 to nearest even. */
static inline void vf64_store_f16(uint16_t *p, vf64 a) {
    __m256 f = _mm512_cvtpd_ps(a);
    __m512d back = _mm512_cvtps_pd(f);
    __mmask8 inexact =
        _mm512_cmp_pd_mask(back, a, _CMP_NEQ_UQ) & _mm512_cmp_pd_mask(a, a, _CMP_ORD_Q) &
        _mm512_cmp_pd_mask(_mm512_sub_pd(back, back), _mm512_setzero_pd(), _CMP_EQ_OQ);
    __mmask8 toward =
        inexact & _mm512_cmp_pd_mask(_mm512_abs_pd(back), _mm512_abs_pd(a), _CMP_GT_OQ);
    __m256i one = _mm256_set1_epi32(1), bits = _mm256_castps_si256(f);
    bits = _mm256_mask_sub_epi32(bits, toward, bits, one);
    bits = _mm256_mask_or_epi32(bits, inexact, bits, one);
    __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(bits), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i *)(void *)p, h);
}

/* Extremes: lane-wise min and max of NaN-free lanes (a NaN gives either operand: callers test
 * vfS_any_nan), the extreme of the lanes, whether any lane is NaN, and a tail loaded with fill
 * in the lanes past n. */
static inline vf32 vf32_min(vf32 a, vf32 b) {
    return _mm512_min_ps(a, b);
}
static inline vf32 vf32_max(vf32 a, vf32 b) {
    return _mm512_max_ps(a, b);
}
static inline vf64 vf64_min(vf64 a, vf64 b) {
    return _mm512_min_pd(a, b);
}
static inline vf64 vf64_max(vf64 a, vf64 b) {
    return _mm512_max_pd(a, b);
}
static inline float vf32_hmin(vf32 a) {
    return _mm512_reduce_min_ps(a);
}
static inline float vf32_hmax(vf32 a) {
    return _mm512_reduce_max_ps(a);
}
static inline double vf64_hmin(vf64 a) {
    return _mm512_reduce_min_pd(a);
}
static inline double vf64_hmax(vf64 a) {
    return _mm512_reduce_max_pd(a);
}
static inline vf32 vf32_nan_or(vf32 acc, vf32 a, vf32 b) {
    return _mm512_mask_mov_ps(acc, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q),
                              _mm512_castsi512_ps(_mm512_set1_epi32(-1)));
}
static inline vf64 vf64_nan_or(vf64 acc, vf64 a, vf64 b) {
    return _mm512_mask_mov_pd(acc, _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q),
                              _mm512_castsi512_pd(_mm512_set1_epi64(-1)));
}
/* The even-numbered lanes of a then of b, and the odd-numbered ones (vpermt2ps, vpermt2pd). */
static inline vf32 vf32_evens(vf32 a, vf32 b) {
    return _mm512_permutex2var_ps(
        a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
}
static inline vf32 vf32_odds(vf32 a, vf32 b) {
    return _mm512_permutex2var_ps(
        a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
}
static inline vf64 vf64_evens(vf64 a, vf64 b) {
    return _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
}
static inline vf64 vf64_odds(vf64 a, vf64 b) {
    return _mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
}
static inline int vf32_any_nan(vf32 a) {
    return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q) != 0;
}
static inline int vf64_any_nan(vf64 a) {
    return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q) != 0;
}
static inline vf32 vf32_load_till_or(const float *p, int64_t n, float fill) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), (__mmask16)((1u << n) - 1), p);
}
static inline vf64 vf64_load_till_or(const double *p, int64_t n, double fill) {
    return _mm512_mask_loadu_pd(_mm512_set1_pd(fill), (__mmask8)((1u << n) - 1), p);
}

/* Arg kernels: lane masks of comparisons (vmS), selects, and index vectors beside the data
 * (viS: int32 lanes beside f32, int64 beside f64). */
typedef __mmask16 vmf32;
typedef __mmask8 vmf64;
typedef __m512i vif32;
typedef __m512i vif64;
static inline vmf32 vf32_lt(vf32 a, vf32 b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
static inline vmf32 vf32_gt(vf32 a, vf32 b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
static inline vmf32 vf32_eq(vf32 a, vf32 b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
}
static inline vmf64 vf64_lt(vf64 a, vf64 b) {
    return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
}
static inline vmf64 vf64_gt(vf64 a, vf64 b) {
    return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
}
static inline vmf64 vf64_eq(vf64 a, vf64 b) {
    return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
}
static inline vmf32 vmf32_or(vmf32 a, vmf32 b) {
    return a | b;
}
static inline vmf32 vmf32_and(vmf32 a, vmf32 b) {
    return a & b;
}
static inline vmf64 vmf64_or(vmf64 a, vmf64 b) {
    return a | b;
}
static inline vmf64 vmf64_and(vmf64 a, vmf64 b) {
    return a & b;
}
/* Whether every lane of a mask is set. */
static inline int vmf32_all(vmf32 k) {
    return k == 0xffff;
}
static inline int vmf64_all(vmf64 k) {
    return k == 0xff;
}
static inline vf32 vf32_select(vf32 src, vmf32 k, vf32 a) {
    return _mm512_mask_mov_ps(src, k, a);
}
static inline vf64 vf64_select(vf64 src, vmf64 k, vf64 a) {
    return _mm512_mask_mov_pd(src, k, a);
}
static inline vif32 vif32_set1(int64_t a) {
    return _mm512_set1_epi32((int32_t)a);
}
static inline vif64 vif64_set1(int64_t a) {
    return _mm512_set1_epi64(a);
}
static inline vif32 vif32_add(vif32 a, vif32 b) {
    return _mm512_add_epi32(a, b);
}
static inline vif64 vif64_add(vif64 a, vif64 b) {
    return _mm512_add_epi64(a, b);
}
/* A float vector's bits as integers of its lanes' width, and back; a left shift of those
 * integers by k bits. */
static inline vif32 vf32_bits(vf32 a) {
    return _mm512_castps_si512(a);
}
static inline vif64 vf64_bits(vf64 a) {
    return _mm512_castpd_si512(a);
}
static inline vf32 vf32_from_bits(vif32 a) {
    return _mm512_castsi512_ps(a);
}
static inline vf64 vf64_from_bits(vif64 a) {
    return _mm512_castsi512_pd(a);
}
static inline vif32 vif32_shl(vif32 a, int k) {
    return _mm512_slli_epi32(a, (unsigned)k);
}
static inline vif64 vif64_shl(vif64 a, int k) {
    return _mm512_slli_epi64(a, (unsigned)k);
}
static inline vf32 vf32_lookup8(const float t[8], vif32 i) {
    /* the table twice over, so that the index's fourth bit picks the same entry */
    return _mm512_permutexvar_ps(i, _mm512_broadcast_f32x8(_mm256_loadu_ps(t)));
}
static inline vif32 vif32_select(vif32 src, vmf32 k, vif32 a) {
    return _mm512_mask_mov_epi32(src, k, a);
}
static inline vif64 vif64_select(vif64 src, vmf64 k, vif64 a) {
    return _mm512_mask_mov_epi64(src, k, a);
}
static inline vmf32 vif32_lt(vif32 a, vif32 b) {
    return _mm512_cmplt_epi32_mask(a, b);
}
static inline vmf64 vif64_lt(vif64 a, vif64 b) {
    return _mm512_cmplt_epi64_mask(a, b);
}
static inline vif32 vif32_load(const int32_t *p) {
    return _mm512_loadu_si512((const void *)p);
}
static inline vif64 vif64_load(const int64_t *p) {
    return _mm512_loadu_si512((const void *)p);
}
static inline void vif32_store(int32_t *p, vif32 a) {
    _mm512_storeu_si512((void *)p, a);
}
static inline void vif64_store(int64_t *p, vif64 a) {
    _mm512_storeu_si512((void *)p, a);
}
static inline vif32 vif32_iota(void) {
    return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
static inline vif64 vif64_iota(void) {
    return _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
}

static inline int64_t vif32_min_where(vmf32 k, vif32 r) {
    return _mm512_mask_reduce_min_epi32(k, r);
}
static inline int64_t vif64_min_where(vmf64 k, vif64 r) {
    return _mm512_mask_reduce_min_epi64(k, r);
}

#endif

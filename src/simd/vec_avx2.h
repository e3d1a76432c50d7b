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
static inline double vf64_hsum(vf64 a) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
static inline void vf32_store(float *p, vf32 a) {
    _mm256_storeu_ps(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    _mm256_storeu_pd(p, a);
}

#endif

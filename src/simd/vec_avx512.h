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
static inline double vf64_hsum(vf64 a) {
    return _mm512_reduce_add_pd(a);
}
static inline void vf32_store(float *p, vf32 a) {
    _mm512_storeu_ps(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    _mm512_storeu_pd(p, a);
}

#endif

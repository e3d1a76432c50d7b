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
static inline double vf64_hsum(vf64 a) {
    return vaddvq_f64(a);
}
static inline void vf32_store(float *p, vf32 a) {
    vst1q_f32(p, a);
}
static inline void vf64_store(double *p, vf64 a) {
    vst1q_f64(p, a);
}

#endif

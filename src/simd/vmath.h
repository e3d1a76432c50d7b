#ifndef KB_SIMD_VMATH_H
#define KB_SIMD_VMATH_H

/* Vector math on the vector layer's targets: SLEEF's functions of 1.0-ULP accuracy (its "u10"
 * variants), under the layer's names and types, so that an elementwise kernel calls
 * vf32_exp(a) on every target. Included after simd/internal.h, in files compiled with the
 * target's flags (SLEEF's header declares a target's functions only under its macros).
 *
 *   vfS_exp, vfS_expm1, vfS_exp2, vfS_log, vfS_log1p, vfS_log2, vfS_log10, vfS_sin, vfS_cos,
 *   vfS_tan, vfS_arcsin, vfS_arccos, vfS_arctan, vfS_tanh, vfS_sinh, vfS_cosh, vfS_erf (a)
 *   vfS_pow(a, b) */

#include <sleef.h>

#if defined(KB_VEC_AVX512)
#define KB_SLEEF_F32(name) Sleef_##name##f16_u10avx512f
#define KB_SLEEF_F64(name) Sleef_##name##d8_u10avx512f
#elif defined(KB_VEC_AVX2)
#define KB_SLEEF_F32(name) Sleef_##name##f8_u10avx2
#define KB_SLEEF_F64(name) Sleef_##name##d4_u10avx2
#elif defined(KB_VEC_NEON)
#define KB_SLEEF_F32(name) Sleef_##name##f4_u10advsimd
#define KB_SLEEF_F64(name) Sleef_##name##d2_u10advsimd
#else
#error "simd/vmath.h has no SLEEF functions for this target"
#endif

#define KB_VMATH_UNARY(ours, sleef)                                                                \
    static inline vf32 vf32_##ours(vf32 a) {                                                       \
        return KB_SLEEF_F32(sleef)(a);                                                             \
    }                                                                                              \
    static inline vf64 vf64_##ours(vf64 a) {                                                       \
        return KB_SLEEF_F64(sleef)(a);                                                             \
    }

KB_VMATH_UNARY(exp, exp)
KB_VMATH_UNARY(expm1, expm1)
KB_VMATH_UNARY(exp2, exp2)
KB_VMATH_UNARY(log, log)
KB_VMATH_UNARY(log1p, log1p)
KB_VMATH_UNARY(log2, log2)
KB_VMATH_UNARY(log10, log10)
KB_VMATH_UNARY(sin, sin)
KB_VMATH_UNARY(cos, cos)
KB_VMATH_UNARY(tan, tan)
KB_VMATH_UNARY(arcsin, asin)
KB_VMATH_UNARY(arccos, acos)
KB_VMATH_UNARY(arctan, atan)
KB_VMATH_UNARY(tanh, tanh)
KB_VMATH_UNARY(sinh, sinh)
KB_VMATH_UNARY(cosh, cosh)
KB_VMATH_UNARY(erf, erf)

static inline vf32 vf32_pow(vf32 a, vf32 b) {
    return KB_SLEEF_F32(pow)(a, b);
}
static inline vf64 vf64_pow(vf64 a, vf64 b) {
    return KB_SLEEF_F64(pow)(a, b);
}

#endif

#ifndef KB_SIMD_VMATH_H
#define KB_SIMD_VMATH_H

/* Vector math on the vector layer's targets: SLEEF's functions of 1.0-ULP accuracy (its "u10"
 * variants), under the layer's names and types, so that an elementwise kernel calls
 * vf32_exp(a) on every target; exp and tanh are kbench's own (below), at a fraction of SLEEF's
 * time and within 1 ULP as SLEEF's. Included after simd/internal.h, in files compiled with the
 * target's flags (SLEEF's header declares a target's functions only under its macros).
 *
 *   vfS_exp, vfS_expm1, vfS_exp2, vfS_log, vfS_log1p, vfS_log2, vfS_log10, vfS_sin, vfS_cos,
 *   vfS_tan, vfS_arcsin, vfS_arccos, vfS_arctan, vfS_tanh, vfS_sinh, vfS_cosh, vfS_erf (a)
 *   vfS_pow(a, b) */

#include <math.h>
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
KB_VMATH_UNARY(sinh, sinh)
KB_VMATH_UNARY(cosh, cosh)
KB_VMATH_UNARY(erf, erf)

/* exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 = rh + rl: rh = x - n ln2_hi exactly
 * (ln2_hi has few enough bits that n ln2_hi is exact, and x lies within a factor of two of it,
 * Sterbenz), rl = -n ln2_lo. exp(r) = 1 + r + r^2 q(r), q Taylor's; the sum is formed as
 * h = 1 + rh, whose rounding error e (Fast2Sum, |rh| < 1) joins rl and r^2 q before the one
 * last rounding, h + (r^2 q + rl + e): so the result is within that rounding (0.5 ULP) and
 * the little error of the rest, where SLEEF's u10 spends double-word arithmetic to stay within 1
 * ULP (twice the time: it held an exp to 28% of the memory bandwidth). 2^n is added to the
 * exponent's bits: n sits in the low bits of z = x / ln 2 + 1.5 * 2^(mantissa bits), which a
 * shift by the mantissa's width moves to the exponent. Where 2^n exp(r) might not be a normal
 * number (|x| of LIMIT or more: the result may overflow, be subnormal or zero) and for NaN,
 * the lane takes 0, infinity or SLEEF's exp (KB_EXP); the other lanes do not depend on it. It is
 * float64's exp; tanh uses its parts in both types. */
#define KB_EXP_PARTS(S, x, MANT, LOG2E, LN2_HI, LN2_LO)                                            \
    vf##S shifter = vf##S##_set1(0x1.8p0 * (double)(1ull << MANT));                                \
    vf##S z = vf##S##_fma(x, vf##S##_set1(LOG2E), shifter), n = vf##S##_sub(z, shifter);           \
    vf##S rh = vf##S##_fma(n, vf##S##_set1(-(LN2_HI)), x),                                         \
          rl = vf##S##_mul(n, vf##S##_set1(-(LN2_LO)));                                            \
    vf##S r = vf##S##_add(rh, rl), q = exp_q_f##S(r);                                              \
    vf##S one = vf##S##_set1(1), h = vf##S##_add(one, rh);                                         \
    vf##S e = vf##S##_add(vf##S##_sub(one, h), rh);                                                \
    vf##S t = vf##S##_fma(vf##S##_mul(r, r), q, vf##S##_add(rl, e));                               \
    vif##S scale = vif##S##_shl(vf##S##_bits(z), MANT)
/* exp(x) = 2^n (h + t): the parts above, then their sum's one rounding; the lanes of |x| >= LIMIT
 * as KB_EXP_EDGES gives them. */
#define KB_EXP(S, x, LIMIT, ...)                                                                   \
    KB_EXP_PARTS(S, x, __VA_ARGS__);                                                               \
    vf##S y = vf##S##_from_bits(vif##S##_add(vf##S##_bits(vf##S##_add(h, t)), scale));             \
    if (__builtin_expect(vmf##S##_all(vf##S##_lt(vf##S##_abs(x), vf##S##_set1(LIMIT))), 1))        \
        return y;                                                                                  \
    return exp_edges_f##S(x, y)
/* The lanes of exp(x) of |x| >= LIMIT (y holds the others): x below -ZERO gives 0 and x above
 * INF infinity (a softmax's masked -inf lanes, the filled lanes of a row's last vector), and
 * only the bands between, where the result is subnormal or near overflow, and NaN take SLEEF's
 * exp. Out of line: a call in the loop's body would have the loop keep its values across it.
 * LIMIT: below it in magnitude the result is normal (float32: 2^m T_j with -126 <= m <= 125,
 * vf32_exp; float64: 2^n exp(r) with -1020 <= n <= 1020); below -ZERO exp rounds to 0 (under
 * half the least subnormal), above INF it overflows. */
#define KB_EXP_EDGES(S, LIMIT, ZERO, INF)                                                          \
    __attribute__((noinline, cold, unused)) static vf##S exp_edges_f##S(vf##S x, vf##S y) {        \
        vmf##S normal = vf##S##_lt(vf##S##_abs(x), vf##S##_set1(LIMIT));                           \
        vmf##S zero = vf##S##_lt(x, vf##S##_set1(-(ZERO))),                                        \
               inf = vf##S##_gt(x, vf##S##_set1(INF));                                             \
        y = vf##S##_select(vf##S##_select(y, zero, vf##S##_zero()), inf, vf##S##_set1(INFINITY));  \
        vmf##S known = vmf##S##_or(normal, vmf##S##_or(zero, inf));                                \
        return vmf##S##_all(known) ? y : vf##S##_select(KB_SLEEF_F##S(exp)(x), known, y);          \
    }
KB_EXP_EDGES(32, 86.9f, 104.0f, 89.0f)
KB_EXP_EDGES(64, 707.0, 746.0, 710.0)
/* the mantissa's width, log2(e), ln 2's high part (12 and 42 significant bits) and the rest */
#define KB_EXP_CONSTANTS_32 23, 0x1.715476p+0f, 0x1.62ep-1f, 0x1.0bfbe8p-15f
#define KB_EXP_CONSTANTS_64 52, 0x1.71547652b82fep+0, 0x1.62e42fefa38p-1, 0x1.ef35793c7673p-45
#define KB_VMATH_EXPAND(m, ...) m(__VA_ARGS__)

/* The polynomial of coefficients c[0 .. n) at x by Horner's rule, c[0] the highest power's. */
#define KB_HORNER(S, T)                                                                            \
    static inline vf##S horner_f##S(const T *c, int n, vf##S x) {                                  \
        vf##S p = vf##S##_set1(c[0]);                                                              \
        for (int k = 1; k < n; k++)                                                                \
            p = vf##S##_fma(p, x, vf##S##_set1(c[k]));                                             \
        return p;                                                                                  \
    }
KB_HORNER(32, float)
KB_HORNER(64, double)

/* q(r) = 1/2! + r/3! + ... + r^5/7!: its truncation 2^-27.5 of exp(r) at |r| = ln 2 / 2 */
static inline vf32 exp_q_f32(vf32 r) {
    static const float c[] = {0x1.a01a02p-13f, 0x1.6c16c2p-10f, 0x1.111112p-7f,
                              0x1.555556p-5f,  0x1.555556p-3f,  0.5f};
    return horner_f32(c, (int)(sizeof c / sizeof c[0]), r);
}

/* q(r) = 1/2! + r/3! + ... + r^11/13!: its truncation 2^-57.7 of exp(r) at |r| = ln 2 / 2 */
static inline vf64 exp_q_f64(vf64 r) {
    static const double c[] = {0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26,
                               0x1.27e4fb7789f5cp-22, 0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16,
                               0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10, 0x1.1111111111111p-7,
                               0x1.5555555555555p-5,  0x1.5555555555555p-3,  0.5};
    return horner_f64(c, (int)(sizeof c / sizeof c[0]), r);
}

/* P(x^2) of tanh(x) = x + x^3 P(x^2): the Taylor coefficients of x^3 ... x^11 (float32), x^3 ...
 * x^25 (float64) */
static inline vf32 tanh_p_f32(vf32 x2) {
    static const float c[] = {-0x1.226e36p-7f, 0x1.664f48p-6f, -0x1.ba1ba2p-5f, 0x1.111112p-3f,
                              -0x1.555556p-2f};
    return horner_f32(c, (int)(sizeof c / sizeof c[0]), x2);
}

static inline vf64 tanh_p_f64(vf64 x2) {
    static const double c[] = {
        0x1.0b132d39a605p-16,   -0x1.497d8eea25259p-15, 0x1.967e18afcafadp-14,
        -0x1.f57d7734d1664p-13, 0x1.3558248036744p-11,  -0x1.7da36452b75e3p-10,
        0x1.d6d3d0e157de0p-9,   -0x1.226e355e6c23dp-7,  0x1.664f4882c10fap-6,
        -0x1.ba1ba1ba1ba1cp-5,  0x1.1111111111111p-3,   -0x1.5555555555555p-2};
    return horner_f64(c, (int)(sizeof c / sizeof c[0]), x2);
}

/* float32's exp(x) = 2^m 2^(j/8) exp(r): n = round(8x / ln 2) = 8m + j, from the low bits of z
 * = 8x / ln 2 + 1.5 * 2^23 as in KB_EXP_PARTS; r = x - n ln2/8 in two parts as there, |r| <=
 * ln 2 / 16, its rounding under 2^-29 of the result. exp(r) - 1 = r P(r), P of degree 3 (fitted
 * to exp's relative error in double, rounded to float: 2^-31 on that interval). 2^(j/8) = T_j (1 +
 * l_j): T_j, a float, from exp_heads with j << 20 taken from its bits, so that adding n << 20 to
 * them gives S = 2^m T_j; l_j from exp_tails. The result S + S (r P + l_j) rounds once. With the
 * interval sixteen times narrower than KB_EXP's, the polynomial is short and r's rounding small
 * enough that no compensated sum is needed: 6 fewer vector operations than KB_EXP, within 0.601 ULP
 * below LIMIT (every float32 measured) against KB_EXP's 0.733, at 1.2 times its rate (1 KiB
 * arrays in L1, one Zen 3 core). The same for float64 took as long as KB_EXP's: picking 8
 * doubles out of two registers costs what its shorter polynomial saves, and so does a gather
 * (measured). The lanes beyond LIMIT go as in KB_EXP. */
static const float exp_heads[8] = {0x1p+0f,        0x1.f72b84p-1f, 0x1.f06fe0p-1f, 0x1.ebfdaep-1f,
                                   0x1.ea09e6p-1f, 0x1.eace54p-1f, 0x1.ee89fap-1f, 0x1.f5818ep-1f};
static const float exp_tails[8] = {0x0p+0f,          -0x1.9c0c22p-27f, 0x1.125002p-25f,
                                   -0x1.0a3550p-25f, 0x1.26055cp-26f,  0x1.67a1cap-28f,
                                   -0x1.f9c304p-27f, -0x1.a5217cp-28f};

static inline vf32 vf32_exp(vf32 x) {
    static const float p[] = {0x1.556a22p-5f, 0x1.555fbcp-3f, 0.5f, 1.0f};
    vf32 shifter = vf32_set1(0x1.8p23f);
    vf32 z = vf32_fma(x, vf32_set1(0x1.715476p+3f), shifter), n = vf32_sub(z, shifter);
    vf32 r = vf32_fma(n, vf32_set1(-0x1.62ep-4f), x);
    r = vf32_fma(n, vf32_set1(-0x1.0bfbe8p-18f), r);
    vif32 zb = vf32_bits(z);
    vf32 s = vf32_from_bits(vif32_add(vf32_bits(vf32_lookup8(exp_heads, zb)), vif32_shl(zb, 20)));
    vf32 y = vf32_fma(s, vf32_fma(r, horner_f32(p, 4, r), vf32_lookup8(exp_tails, zb)), s);
    if (__builtin_expect(vmf32_all(vf32_lt(vf32_abs(x), vf32_set1(86.9f))), 1))
        return y;
    return exp_edges_f32(x, y);
}

static inline vf64 vf64_exp(vf64 x) {
    KB_VMATH_EXPAND(KB_EXP, 64, x, 707.0, KB_EXP_CONSTANTS_64);
}

/* tanh(x): for |x| below SMALL (0.3) the odd Taylor series, x + x^3 P(x^2), one rounding at the
 * end (P to x^11 in float32, x^25 in float64: 2^-29 and 2^-61 relative); above, 1 - 2 / (E + 1)
 * with E = exp(2|x|) = 2^n (h + t) from exp's parts, carried as two floats through every step
 * (E normalized and E + 1 by Fast2Sum, the quotient corrected once by its FMA residual, 1 - q by
 * Fast2Sum) so that the result rounds once, at the end: the cancellation of 1 - q near SMALL (q =
 * 0.71, the result 0.29) magnifies only the parts' own small error. |x| is clamped to BIG (10, 20),
 * past which tanh rounds to 1; the sign is x's, NaN stays NaN. Every float32 measured: within 0.652
 * ULP (docs/expressions.md), at 0.76 G float32 elements a second on one Zen 3 core from L1,
 * where SLEEF's u10 tanh, within 1.0, did 0.40. */
#define KB_TANH(S, x, SMALL, BIG, ...)                                                             \
    vf##S a = vf##S##_min(vf##S##_abs(x), vf##S##_set1(BIG)), x2 = vf##S##_mul(x, x);              \
    vf##S small = vf##S##_fma(vf##S##_mul(x2, x), tanh_p_f##S(x2), x);                             \
    vf##S two_a = vf##S##_add(a, a);                                                               \
    KB_EXP_PARTS(S, two_a, __VA_ARGS__);                                                           \
    vf##S s = vf##S##_from_bits(vif##S##_add(vf##S##_bits(one), scale));                           \
    vf##S hs = vf##S##_mul(h, s), ts = vf##S##_mul(t, s); /* E, as h and t are: t not small */     \
    vf##S eh = vf##S##_add(hs, ts), el = vf##S##_add(vf##S##_sub(hs, eh), ts);                     \
    vf##S dh = vf##S##_add(eh, one), dl = vf##S##_add(vf##S##_add(vf##S##_sub(eh, dh), one), el);  \
    vf##S two = vf##S##_set1(2), qh = vf##S##_div(two, dh);                                        \
    vf##S res = vf##S##_sub(vf##S##_fma(vf##S##_neg(qh), dh, two), vf##S##_mul(qh, dl));           \
    vf##S ql = vf##S##_mul(res, vf##S##_mul(qh, vf##S##_set1(0.5)));                               \
    vf##S u = vf##S##_sub(one, qh), ue = vf##S##_sub(vf##S##_sub(one, u), qh);                     \
    vf##S big = vf##S##_add(u, vf##S##_sub(ue, ql));                                               \
    big = vf##S##_select(big, vf##S##_lt(x, vf##S##_zero()), vf##S##_neg(big));                    \
    vf##S y = vf##S##_select(big, vf##S##_lt(vf##S##_abs(x), vf##S##_set1(SMALL)), small);         \
    /* zeros keep their sign (x^3 P is +0 for x = -0), NaN stays */                                \
    y = vf##S##_select(y, vf##S##_eq(x, vf##S##_zero()), x);                                       \
    return vf##S##_select(x, vf##S##_eq(x, x), y)

static inline vf32 vf32_pow(vf32 a, vf32 b) {
    return KB_SLEEF_F32(pow)(a, b);
}
static inline vf64 vf64_pow(vf64 a, vf64 b) {
    return KB_SLEEF_F64(pow)(a, b);
}

static inline vf32 vf32_tanh(vf32 x) {
    KB_VMATH_EXPAND(KB_TANH, 32, x, 0.3f, 10.0f, KB_EXP_CONSTANTS_32);
}

static inline vf64 vf64_tanh(vf64 x) {
    KB_VMATH_EXPAND(KB_TANH, 64, x, 0.3, 20.0, KB_EXP_CONSTANTS_64);
}

#endif

#ifndef KB_KERNELS_EW_FLOAT_BODIES_H
#define KB_KERNELS_EW_FLOAT_BODIES_H

/* The vector body of every float elementwise op of the vector levels: the expression that
 * computes a vector of results from the vectors a (and b) of its operands, over the vector
 * layer (simd/internal.h) and its math (simd/vmath.h), for type S (f32 or f64). One home for
 * them, so that the loops of ew_float_target.h and the kernels compiled for a fused
 * expression (expr/kernel_source.c) compute every element with the same instructions and
 * agree bit for bit. Included after simd/vmath.h. */

/* Where exp(x) overflows (EXP_MAX), and where log1p(x) is log(x) (BIG), per type. */
#define EXP_MAX_f32 88.0f
#define EXP_MAX_f64 709.0
#define BIG_f32 1e30f
#define BIG_f64 1e300

/* NumPy's maximum and minimum: NaN from either operand (all bits set here; NaN either way). */
#define NAN_MAX(S) v##S##_nan_or(v##S##_max(a, b), a, b)
#define NAN_MIN(S) v##S##_nan_or(v##S##_min(a, b), a, b)

/* SciPy's expit without overflow: with e = exp(-|x|), 1 / (1 + e) for x >= 0 and e / (1 + e)
 * below. */
#define SIGMOID(S)                                                                                 \
    v##S##_select(v##S##_div(v##S##_set1(1),                                                       \
                             v##S##_add(v##S##_set1(1), v##S##_exp(v##S##_neg(v##S##_abs(a))))),   \
                  v##S##_lt(a, v##S##_zero()),                                                     \
                  v##S##_div(v##S##_exp(v##S##_neg(v##S##_abs(a))),                                \
                             v##S##_add(v##S##_set1(1), v##S##_exp(v##S##_neg(v##S##_abs(a))))))

/* SLEEF's log1p overflows to infinity above about 1e38 (float32) and 1e306 (float64), where
 * log1p(x) is log(x) to within rounding. */
#define LOG1P(S) v##S##_select(v##S##_log1p(a), v##S##_gt(a, v##S##_set1(BIG_##S)), v##S##_log(a))

/* SLEEF's sinh and cosh give infinity once exp(|x|) overflows (|x| > 88.7 in float32, 709.8
 * in float64), short of where they do; there, with e = exp(|x| / 2), they are e * (e / 2),
 * within 2.5 ULP. */
#define SINH_BIG(S)                                                                                \
    v##S##_mul(                                                                                    \
        v##S##_exp(v##S##_mul(v##S##_abs(a), v##S##_set1(0.5))),                                   \
        v##S##_mul(v##S##_exp(v##S##_mul(v##S##_abs(a), v##S##_set1(0.5))), v##S##_set1(0.5)))
#define COSH(S)                                                                                    \
    v##S##_select(v##S##_cosh(a), v##S##_gt(v##S##_abs(a), v##S##_set1(EXP_MAX_##S)), SINH_BIG(S))
#define SINH(S)                                                                                    \
    v##S##_select(                                                                                 \
        v##S##_sinh(a), v##S##_gt(v##S##_abs(a), v##S##_set1(EXP_MAX_##S)),                        \
        v##S##_select(SINH_BIG(S), v##S##_lt(a, v##S##_zero()), v##S##_neg(SINH_BIG(S))))

/* The ops bound by memory (KB_EW_STREAM_OPS), X(S, T, LANES, name, inputs, body) for type S
 * with element T; the names are KB_EW_VECTOR_OPS's. */
#define KB_EW_STREAM_BODIES(X, S, T, LANES)                                                        \
    X(S, T, LANES, add, 2, v##S##_add(a, b))                                                       \
    X(S, T, LANES, sub, 2, v##S##_sub(a, b))                                                       \
    X(S, T, LANES, mul, 2, v##S##_mul(a, b))                                                       \
    X(S, T, LANES, div, 2, v##S##_div(a, b))                                                       \
    X(S, T, LANES, max, 2, NAN_MAX(S))                                                             \
    X(S, T, LANES, min, 2, NAN_MIN(S))                                                             \
    X(S, T, LANES, neg, 1, v##S##_neg(a))                                                          \
    X(S, T, LANES, abs, 1, v##S##_abs(a))                                                          \
    X(S, T, LANES, sqrt, 1, v##S##_sqrt(a))                                                        \
    X(S, T, LANES, square, 1, v##S##_mul(a, a))                                                    \
    X(S, T, LANES, reciprocal, 1, v##S##_div(v##S##_set1(1), a))

/* The ops that compute more an element (simd/vmath.h's functions), with the same X. */
#define KB_EW_MATH_BODIES(X, S, T, LANES)                                                          \
    X(S, T, LANES, pow, 2, v##S##_pow(a, b))                                                       \
    X(S, T, LANES, exp, 1, v##S##_exp(a))                                                          \
    X(S, T, LANES, expm1, 1, v##S##_expm1(a))                                                      \
    X(S, T, LANES, exp2, 1, v##S##_exp2(a))                                                        \
    X(S, T, LANES, log, 1, v##S##_log(a))                                                          \
    X(S, T, LANES, log1p, 1, LOG1P(S))                                                             \
    X(S, T, LANES, log2, 1, v##S##_log2(a))                                                        \
    X(S, T, LANES, log10, 1, v##S##_log10(a))                                                      \
    X(S, T, LANES, sin, 1, v##S##_sin(a))                                                          \
    X(S, T, LANES, cos, 1, v##S##_cos(a))                                                          \
    X(S, T, LANES, tan, 1, v##S##_tan(a))                                                          \
    X(S, T, LANES, arcsin, 1, v##S##_arcsin(a))                                                    \
    X(S, T, LANES, arccos, 1, v##S##_arccos(a))                                                    \
    X(S, T, LANES, arctan, 1, v##S##_arctan(a))                                                    \
    X(S, T, LANES, tanh, 1, v##S##_tanh(a))                                                        \
    X(S, T, LANES, sinh, 1, SINH(S))                                                               \
    X(S, T, LANES, cosh, 1, COSH(S))                                                               \
    X(S, T, LANES, erf, 1, v##S##_erf(a))                                                          \
    X(S, T, LANES, sigmoid, 1, SIGMOID(S))

/* Every op's body as a function of two vectors, kb_ew_body_<name>_<S>(a, b) (b unused by the
 * unary ones), for code that names its ops one by one: the kernels compiled for a fused
 * expression (expr/kernel_source.c), which define them for their type S. */
#define KB_EW_BODY_FUNCTION(S, T, LANES, name, NIN, BODY)                                          \
    static inline v##S kb_ew_body_##name##_##S(v##S a, v##S b) {                                   \
        (void)b;                                                                                   \
        return BODY;                                                                               \
    }
#define KB_EW_BODY_FUNCTIONS(S, T, LANES)                                                          \
    KB_EW_STREAM_BODIES(KB_EW_BODY_FUNCTION, S, T, LANES)                                          \
    KB_EW_MATH_BODIES(KB_EW_BODY_FUNCTION, S, T, LANES)

#endif

/* Elementwise inner loops of float32 and float64, with NumPy's float semantics. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/ew.h"

#define BINARY(NAME, T, EXPR)                                                                      \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define UNARY(NAME, T, EXPR)                                                                       \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0];                                                                        \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define PREDICATE(NAME, T, EXPR)                                                                   \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0];                                                                        \
        bool *o = out;                                                                             \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define COMPARE(NAME, T, OP)                                                                       \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0], *y = in[1];                                                            \
        bool *o = out;                                                                             \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = x[i] OP y[i];                                                                   \
    }

/* NumPy's floor division and remainder of floats (npy_divmod): the remainder takes the
 * divisor's sign, the quotient is floor((a - fmod(a, b)) / b) corrected to the nearest
 * integer, and a zero divisor gives a / b and fmod's NaN. */
#define DIVMOD(T, F)                                                                               \
    static inline T floordiv_one_##F(T a, T b) {                                                   \
        if (b == 0)                                                                                \
            return a / b;                                                                          \
        T mod = fmod##F(a, b);                                                                     \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            div -= 1;                                                                              \
        if (div == 0)                                                                              \
            return copysign##F(0, a / b);                                                          \
        T floordiv = floor##F(div);                                                                \
        if (div - floordiv > (T)0.5)                                                               \
            floordiv += 1;                                                                         \
        return floordiv;                                                                           \
    }                                                                                              \
    static inline T mod_one_##F(T a, T b) {                                                        \
        T mod = fmod##F(a, b);                                                                     \
        if (b == 0)                                                                                \
            return mod;                                                                            \
        if (mod != 0)                                                                              \
            return (b < 0) != (mod < 0) ? mod + b : mod;                                           \
        return copysign##F(0, b);                                                                  \
    }                                                                                              \
    /* SciPy's expit: no overflow on either side. */                                               \
    static inline T sigmoid_one_##F(T a) {                                                         \
        if (a < 0) {                                                                               \
            T e = exp##F(a);                                                                       \
            return e / (1 + e);                                                                    \
        }                                                                                          \
        return 1 / (1 + exp##F(-a));                                                               \
    }                                                                                              \
    /* NaN propagates from either side, as NumPy's maximum and minimum. */                        \
    static inline T max_one_##F(T a, T b) {                                                        \
        return (a >= b || isnan(a)) ? a : b;                                                       \
    }                                                                                              \
    static inline T min_one_##F(T a, T b) {                                                        \
        return (a <= b || isnan(a)) ? a : b;                                                       \
    }                                                                                              \
    static inline T sign_one_##F(T a) {                                                            \
        return a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a;                                            \
    }

/* Every loop of one type T, its libm functions suffixed F ("f" or ""). */
#define FLOAT_LOOPS(S, T, F)                                                                       \
    DIVMOD(T, F)                                                                                   \
    BINARY(add_##S, T, a + b)                                                                      \
    BINARY(sub_##S, T, a - b)                                                                      \
    BINARY(mul_##S, T, a *b)                                                                       \
    BINARY(div_##S, T, a / b)                                                                      \
    BINARY(floordiv_##S, T, floordiv_one_##F(a, b))                                                \
    BINARY(mod_##S, T, mod_one_##F(a, b))                                                          \
    BINARY(pow_##S, T, pow##F(a, b))                                                               \
    BINARY(max_##S, T, max_one_##F(a, b))                                                          \
    BINARY(min_##S, T, min_one_##F(a, b))                                                          \
    COMPARE(lt_##S, T, <)                                                                          \
    COMPARE(le_##S, T, <=)                                                                         \
    COMPARE(gt_##S, T, >)                                                                          \
    COMPARE(ge_##S, T, >=)                                                                         \
    COMPARE(eq_##S, T, ==)                                                                         \
    COMPARE(ne_##S, T, !=)                                                                         \
    UNARY(neg_##S, T, -a)                                                                          \
    UNARY(copy_##S, T, a)                                                                          \
    UNARY(abs_##S, T, fabs##F(a))                                                                  \
    UNARY(sqrt_##S, T, sqrt##F(a))                                                                 \
    UNARY(square_##S, T, a *a)                                                                     \
    UNARY(reciprocal_##S, T, 1 / a)                                                                \
    UNARY(exp_##S, T, exp##F(a))                                                                   \
    UNARY(expm1_##S, T, expm1##F(a))                                                               \
    UNARY(exp2_##S, T, exp2##F(a))                                                                 \
    UNARY(log_##S, T, log##F(a))                                                                   \
    UNARY(log1p_##S, T, log1p##F(a))                                                               \
    UNARY(log2_##S, T, log2##F(a))                                                                 \
    UNARY(log10_##S, T, log10##F(a))                                                               \
    UNARY(sin_##S, T, sin##F(a))                                                                   \
    UNARY(cos_##S, T, cos##F(a))                                                                   \
    UNARY(tan_##S, T, tan##F(a))                                                                   \
    UNARY(arcsin_##S, T, asin##F(a))                                                               \
    UNARY(arccos_##S, T, acos##F(a))                                                               \
    UNARY(arctan_##S, T, atan##F(a))                                                               \
    UNARY(tanh_##S, T, tanh##F(a))                                                                 \
    UNARY(sinh_##S, T, sinh##F(a))                                                                 \
    UNARY(cosh_##S, T, cosh##F(a))                                                                 \
    UNARY(floor_##S, T, floor##F(a))                                                               \
    UNARY(ceil_##S, T, ceil##F(a))                                                                 \
    UNARY(rint_##S, T, rint##F(a))                                                                 \
    UNARY(sign_##S, T, sign_one_##F(a))                                                            \
    UNARY(sigmoid_##S, T, sigmoid_one_##F(a))                                                      \
    UNARY(erf_##S, T, erf##F(a))                                                                   \
    PREDICATE(isnan_##S, T, isnan(a))                                                              \
    PREDICATE(isfinite_##S, T, isfinite(a))                                                        \
    static void where_##S(int64_t n, void *out, const void *const *in, unsigned *found) {          \
        const bool *c = in[0];                                                                     \
        const T *x = in[1], *y = in[2];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = c[i] ? x[i] : y[i];                                                             \
    }                                                                                              \
    static kb_ew_loop loop_##S(kb_ew_op op) {                                                      \
        static const kb_ew_loop loops[KB_EW_OP_COUNT] = {                                          \
            [KB_EW_ADD] = add_##S,                                                                 \
            [KB_EW_SUB] = sub_##S,                                                                 \
            [KB_EW_MUL] = mul_##S,                                                                 \
            [KB_EW_DIV] = div_##S,                                                                 \
            [KB_EW_FLOORDIV] = floordiv_##S,                                                       \
            [KB_EW_MOD] = mod_##S,                                                                 \
            [KB_EW_POW] = pow_##S,                                                                 \
            [KB_EW_MAXIMUM] = max_##S,                                                             \
            [KB_EW_MINIMUM] = min_##S,                                                             \
            [KB_EW_LT] = lt_##S,                                                                   \
            [KB_EW_LE] = le_##S,                                                                   \
            [KB_EW_GT] = gt_##S,                                                                   \
            [KB_EW_GE] = ge_##S,                                                                   \
            [KB_EW_EQ] = eq_##S,                                                                   \
            [KB_EW_NE] = ne_##S,                                                                   \
            [KB_EW_NEG] = neg_##S,                                                                 \
            [KB_EW_COPY] = copy_##S,                                                               \
            [KB_EW_ABS] = abs_##S,                                                                 \
            [KB_EW_SQRT] = sqrt_##S,                                                               \
            [KB_EW_SQUARE] = square_##S,                                                           \
            [KB_EW_RECIPROCAL] = reciprocal_##S,                                                   \
            [KB_EW_EXP] = exp_##S,                                                                 \
            [KB_EW_EXPM1] = expm1_##S,                                                             \
            [KB_EW_EXP2] = exp2_##S,                                                               \
            [KB_EW_LOG] = log_##S,                                                                 \
            [KB_EW_LOG1P] = log1p_##S,                                                             \
            [KB_EW_LOG2] = log2_##S,                                                               \
            [KB_EW_LOG10] = log10_##S,                                                             \
            [KB_EW_SIN] = sin_##S,                                                                 \
            [KB_EW_COS] = cos_##S,                                                                 \
            [KB_EW_TAN] = tan_##S,                                                                 \
            [KB_EW_ARCSIN] = arcsin_##S,                                                           \
            [KB_EW_ARCCOS] = arccos_##S,                                                           \
            [KB_EW_ARCTAN] = arctan_##S,                                                           \
            [KB_EW_TANH] = tanh_##S,                                                               \
            [KB_EW_SINH] = sinh_##S,                                                               \
            [KB_EW_COSH] = cosh_##S,                                                               \
            [KB_EW_FLOOR] = floor_##S,                                                             \
            [KB_EW_CEIL] = ceil_##S,                                                               \
            [KB_EW_RINT] = rint_##S,                                                               \
            [KB_EW_SIGN] = sign_##S,                                                               \
            [KB_EW_ISNAN] = isnan_##S,                                                             \
            [KB_EW_ISFINITE] = isfinite_##S,                                                       \
            [KB_EW_SIGMOID] = sigmoid_##S,                                                         \
            [KB_EW_ERF] = erf_##S,                                                                 \
            [KB_EW_WHERE] = where_##S,                                                             \
        };                                                                                         \
        return (unsigned)op < KB_EW_OP_COUNT ? loops[op] : NULL;                                   \
    }

FLOAT_LOOPS(f32, float, f)
FLOAT_LOOPS(f64, double, )

kb_ew_loop kb_ew_float_loop(kb_ew_op op, kb_dtype dtype) {
    if (dtype == KB_F32)
        return loop_f32(op);
    if (dtype == KB_F64)
        return loop_f64(op);
    return NULL;
}

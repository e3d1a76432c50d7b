#ifndef KB_KERNELS_EW_FLOAT_LOOPS_H
#define KB_KERNELS_EW_FLOAT_LOOPS_H

/* The elementwise loops of float32 and float64 in plain C, with NumPy's float semantics and
 * libm's functions: every loop of the scalar level (ew_float_scalar.c), and the loops the
 * vector levels keep in C (ew_float_target.h: comparisons, floor division, rounding, where,
 * ...), compiled there with the target's flags. Each defines c_<op>_<f32|f64>; a target
 * uses some of them, hence UNUSED. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/ew.h"
#include "kernels/ew_float_table.h"

#define UNUSED __attribute__((unused))

#define BINARY(NAME, T, EXPR)                                                                      \
    UNUSED static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {        \
        const T *x = in[0], *y = in[1];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define UNARY(NAME, T, EXPR)                                                                       \
    UNUSED static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {        \
        const T *x = in[0];                                                                        \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define PREDICATE(NAME, T, EXPR)                                                                   \
    UNUSED static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {        \
        const T *x = in[0];                                                                        \
        bool *o = out;                                                                             \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i];                                                                            \
            o[i] = (EXPR);                                                                         \
        }                                                                                          \
    }
#define COMPARE(NAME, T, OP)                                                                       \
    UNUSED static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {        \
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
    UNUSED static inline T floordiv_one_##F(T a, T b) {                                            \
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
    UNUSED static inline T mod_one_##F(T a, T b) {                                                 \
        T mod = fmod##F(a, b);                                                                     \
        if (b == 0)                                                                                \
            return mod;                                                                            \
        if (mod != 0)                                                                              \
            return (b < 0) != (mod < 0) ? mod + b : mod;                                           \
        return copysign##F(0, b);                                                                  \
    }                                                                                              \
    /* SciPy's expit: no overflow on either side. */                                               \
    UNUSED static inline T sigmoid_one_##F(T a) {                                                  \
        if (a < 0) {                                                                               \
            T e = exp##F(a);                                                                       \
            return e / (1 + e);                                                                    \
        }                                                                                          \
        return 1 / (1 + exp##F(-a));                                                               \
    }                                                                                              \
    /* NaN propagates from either side, as NumPy's maximum and minimum. */                         \
    UNUSED static inline T max_one_##F(T a, T b) {                                                 \
        return (a >= b || isnan(a)) ? a : b;                                                       \
    }                                                                                              \
    UNUSED static inline T min_one_##F(T a, T b) {                                                 \
        return (a <= b || isnan(a)) ? a : b;                                                       \
    }                                                                                              \
    UNUSED static inline T sign_one_##F(T a) {                                                     \
        return a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a;                                            \
    }

/* Every loop of one type T, its libm functions suffixed F ("f" or ""). */
#define FLOAT_LOOPS(S, T, F)                                                                       \
    DIVMOD(T, F)                                                                                   \
    BINARY(c_add_##S, T, a + b)                                                                    \
    BINARY(c_sub_##S, T, a - b)                                                                    \
    BINARY(c_mul_##S, T, a *b)                                                                     \
    BINARY(c_div_##S, T, a / b)                                                                    \
    BINARY(c_floordiv_##S, T, floordiv_one_##F(a, b))                                              \
    BINARY(c_mod_##S, T, mod_one_##F(a, b))                                                        \
    BINARY(c_pow_##S, T, pow##F(a, b))                                                             \
    BINARY(c_max_##S, T, max_one_##F(a, b))                                                        \
    BINARY(c_min_##S, T, min_one_##F(a, b))                                                        \
    COMPARE(c_lt_##S, T, <)                                                                        \
    COMPARE(c_le_##S, T, <=)                                                                       \
    COMPARE(c_gt_##S, T, >)                                                                        \
    COMPARE(c_ge_##S, T, >=)                                                                       \
    COMPARE(c_eq_##S, T, ==)                                                                       \
    COMPARE(c_ne_##S, T, !=)                                                                       \
    UNARY(c_neg_##S, T, -a)                                                                        \
    UNARY(c_copy_##S, T, a)                                                                        \
    UNARY(c_abs_##S, T, fabs##F(a))                                                                \
    UNARY(c_sqrt_##S, T, sqrt##F(a))                                                               \
    UNARY(c_square_##S, T, a *a)                                                                   \
    UNARY(c_reciprocal_##S, T, 1 / a)                                                              \
    UNARY(c_exp_##S, T, exp##F(a))                                                                 \
    UNARY(c_expm1_##S, T, expm1##F(a))                                                             \
    UNARY(c_exp2_##S, T, exp2##F(a))                                                               \
    UNARY(c_log_##S, T, log##F(a))                                                                 \
    UNARY(c_log1p_##S, T, log1p##F(a))                                                             \
    UNARY(c_log2_##S, T, log2##F(a))                                                               \
    UNARY(c_log10_##S, T, log10##F(a))                                                             \
    UNARY(c_sin_##S, T, sin##F(a))                                                                 \
    UNARY(c_cos_##S, T, cos##F(a))                                                                 \
    UNARY(c_tan_##S, T, tan##F(a))                                                                 \
    UNARY(c_arcsin_##S, T, asin##F(a))                                                             \
    UNARY(c_arccos_##S, T, acos##F(a))                                                             \
    UNARY(c_arctan_##S, T, atan##F(a))                                                             \
    UNARY(c_tanh_##S, T, tanh##F(a))                                                               \
    UNARY(c_sinh_##S, T, sinh##F(a))                                                               \
    UNARY(c_cosh_##S, T, cosh##F(a))                                                               \
    UNARY(c_floor_##S, T, floor##F(a))                                                             \
    UNARY(c_ceil_##S, T, ceil##F(a))                                                               \
    UNARY(c_rint_##S, T, rint##F(a))                                                               \
    UNARY(c_sign_##S, T, sign_one_##F(a))                                                          \
    UNARY(c_sigmoid_##S, T, sigmoid_one_##F(a))                                                    \
    UNARY(c_erf_##S, T, erf##F(a))                                                                 \
    PREDICATE(c_isnan_##S, T, isnan(a))                                                            \
    PREDICATE(c_isfinite_##S, T, isfinite(a))                                                      \
    UNUSED static void c_where_##S(int64_t n, void *out, const void *const *in, unsigned *found) { \
        /* The condition's bool bytes (0 or 1) read as unsigned char, and both branches loaded     \
         * for every element: GCC then vectorizes the select as a blend. With bool, or with the    \
         * conditional loads of c[i] ? x[i] : y[i], it stays a branch per element, mispredicted    \
         * on random conditions (a tenth of the DRAM bandwidth; docs/performance.md). */           \
        const unsigned char *c = in[0];                                                            \
        const T *x = in[1], *y = in[2];                                                            \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = x[i], b = y[i];                                                                  \
            o[i] = c[i] ? a : b;                                                                   \
        }                                                                                          \
    }

/* sum(exp(x - shift)) of the scalar level: each term as c_sub and c_exp give it, added in
 * double in order (kb_ew_exp_sum). */
#define EXP_SUM_LOOP(S, T, F)                                                                      \
    UNUSED static double c_exp_sum_##S(int64_t n, const void *xv, double shift) {                  \
        const T *x = xv;                                                                           \
        T s = (T)shift;                                                                            \
        double sum = 0;                                                                            \
        for (int64_t i = 0; i < n; i++)                                                            \
            sum += (double)exp##F(x[i] - s);                                                       \
        return sum;                                                                                \
    }

FLOAT_LOOPS(f32, float, f)
FLOAT_LOOPS(f64, double, )
EXP_SUM_LOOP(f32, float, f)
EXP_SUM_LOOP(f64, double, )

#endif

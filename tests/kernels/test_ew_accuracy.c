/* The accuracy of the float elementwise functions at every level this build and CPU run:
 * each function's float32 and float64 loop against a long double reference (64-bit mantissa
 * on x86-64, 113-bit on aarch64), over random bit patterns (the whole domain: subnormals,
 * infinities and NaN included), random values in the range where the function is neither
 * constant nor overflowing, and special values. The largest error in units in the last place
 * must stay within the bound docs/expressions.md gives, and special values must give the
 * reference's NaN, infinity or zero exactly.
 *
 * KB_EW_ULP_TABLE=1 prints the measured table (docs/expressions.md's, as markdown rows). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/simd.h"
#include "kernels/ew.h"
#include "ulp.h"

typedef long double (*reference_fn)(long double a, long double b);

static long double r_exp(long double a, long double b) {
    (void)b;
    return expl(a);
}
static long double r_expm1(long double a, long double b) {
    (void)b;
    return expm1l(a);
}
static long double r_exp2(long double a, long double b) {
    (void)b;
    return exp2l(a);
}
static long double r_log(long double a, long double b) {
    (void)b;
    return logl(a);
}
static long double r_log1p(long double a, long double b) {
    (void)b;
    return log1pl(a);
}
static long double r_log2(long double a, long double b) {
    (void)b;
    return log2l(a);
}
static long double r_log10(long double a, long double b) {
    (void)b;
    return log10l(a);
}
static long double r_sin(long double a, long double b) {
    (void)b;
    return sinl(a);
}
static long double r_cos(long double a, long double b) {
    (void)b;
    return cosl(a);
}
static long double r_tan(long double a, long double b) {
    (void)b;
    return tanl(a);
}
static long double r_asin(long double a, long double b) {
    (void)b;
    return asinl(a);
}
static long double r_acos(long double a, long double b) {
    (void)b;
    return acosl(a);
}
static long double r_atan(long double a, long double b) {
    (void)b;
    return atanl(a);
}
static long double r_tanh(long double a, long double b) {
    (void)b;
    return tanhl(a);
}
static long double r_sinh(long double a, long double b) {
    (void)b;
    return sinhl(a);
}
static long double r_cosh(long double a, long double b) {
    (void)b;
    return coshl(a);
}
static long double r_erf(long double a, long double b) {
    (void)b;
    return erfl(a);
}
static long double r_sigmoid(long double a, long double b) {
    (void)b;
    return a < 0 ? expl(a) / (1 + expl(a)) : 1 / (1 + expl(-a));
}
static long double r_sqrt(long double a, long double b) {
    (void)b;
    return sqrtl(a);
}
static long double r_pow(long double a, long double b) {
    return powl(a, b);
}

/* A function, its reference, the range its typical inputs come from, and its bounds in ULP
 * at the scalar level (glibc's libm) and the vector levels (SLEEF's, and kbench's own exp and
 * tanh: simd/vmath.h), float32 then float64. */
typedef struct function {
    const char *name;
    kb_ew_op op;
    reference_fn ref;
    double lo, hi;
    double bound_scalar[2], bound_vector[2];
} function;

static const function functions[] = {
    {"exp", KB_EW_EXP, r_exp, -100, 100, {1, 1}, {0.9, 0.9}},
    {"expm1", KB_EW_EXPM1, r_expm1, -20, 100, {1, 1}, {1, 1}},
    {"exp2", KB_EW_EXP2, r_exp2, -150, 150, {1, 1}, {1, 1}},
    {"log", KB_EW_LOG, r_log, 0, 1e6, {1, 1}, {1, 1}},
    {"log1p", KB_EW_LOG1P, r_log1p, -1, 1e6, {1, 1}, {1, 1}},
    {"log2", KB_EW_LOG2, r_log2, 0, 1e6, {1, 1}, {1, 1}},
    {"log10", KB_EW_LOG10, r_log10, 0, 1e6, {2, 2}, {1, 1}},
    {"sin", KB_EW_SIN, r_sin, -1e4, 1e4, {1, 1}, {1, 1}},
    {"cos", KB_EW_COS, r_cos, -1e4, 1e4, {1, 1}, {1, 1}},
    {"tan", KB_EW_TAN, r_tan, -1e4, 1e4, {1.5, 1}, {1, 1}},
    {"arcsin", KB_EW_ARCSIN, r_asin, -1, 1, {1, 1}, {1, 1}},
    {"arccos", KB_EW_ARCCOS, r_acos, -1, 1, {1, 1}, {1, 1}},
    {"arctan", KB_EW_ARCTAN, r_atan, -100, 100, {1, 1}, {1, 1}},
    {"tanh", KB_EW_TANH, r_tanh, -20, 20, {2.5, 2.5}, {0.75, 0.75}},
    {"sinh", KB_EW_SINH, r_sinh, -100, 100, {2, 2}, {2.5, 2.5}},
    {"cosh", KB_EW_COSH, r_cosh, -100, 100, {2, 2}, {2.5, 2.5}},
    {"erf", KB_EW_ERF, r_erf, -6, 6, {1, 1.5}, {1.5, 1}},
    {"sigmoid", KB_EW_SIGMOID, r_sigmoid, -100, 100, {3, 3}, {3, 3}},
    {"sqrt", KB_EW_SQRT, r_sqrt, 0, 1e10, {0.5, 0.5}, {0.5, 0.5}},
    {"pow", KB_EW_POW, r_pow, 0, 10, {1, 1}, {1, 1}},
};
enum { NFUNCTIONS = sizeof functions / sizeof *functions };

/* xorshift64*: reproducible, and the same on every platform. */
static uint64_t next(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static double uniform(uint64_t *s, double lo, double hi) {
    return lo + (hi - lo) * ((double)(next(s) >> 11) * 0x1.0p-53);
}

enum { BLOCK = 4096 };

/* Inputs of sample i: a special value, a random bit pattern or a typical value. */
static void inputs(const function *f, bool f32, uint64_t *s, int64_t i, double *a, double *b) {
    static const double specials[] = {
        0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, 2.0, -2.0, 1e-30, -1e-30, 1e30, -1e30,
        3.14159265358979, 1.5707963267948966, 88.0, 89.0, 709.0, 710.0, -745.0,
        /* about where exp leaves its own path (simd/vmath.h): for SLEEF's, 0 or infinity */
        86.89999, 86.9, -86.89999, -86.9, -87.5, -103.0, -103.97, -104.0, -104.5, 88.7, 88.73, 89.0,
        89.5, 706.99999, 707.0, -706.99999, -707.0, -708.5, -740.0, -745.2, -746.0, -746.5, 709.7,
        709.8, 710.0, 710.5,
        /* about tanh's switch to exp's formula, where it rounds to 1 (float32, float64) and where
         * it is clamped */
        0.29999998, 0.3, 0.30000002, -0.3, 9.01, 9.02, 10.0, 10.5, 19.06, 19.1, 20.0, 21.0,
        0x1p-126, 0x1p-149, 0x1p-1022, 0x1p-1074, 0x1.fffffep127};
    enum { NSPECIALS = sizeof specials / sizeof *specials };
    if (i < NSPECIALS * NSPECIALS && f->op == KB_EW_POW) {
        *a = specials[i / NSPECIALS];
        *b = specials[i % NSPECIALS];
    } else if (i < NSPECIALS) {
        *a = specials[i];
        *b = 2.0;
    } else if (i % 2) {
        uint64_t bits = next(s);
        if (f32) {
            uint32_t u = (uint32_t)(bits >> 32);
            float v;
            memcpy(&v, &u, sizeof v);
            *a = v;
        } else {
            memcpy(a, &bits, sizeof *a);
        }
        *b = f->op == KB_EW_POW ? uniform(s, -30, 30) : 2.0;
    } else {
        *a = uniform(s, f->lo, f->hi);
        if (i % 4 == 0 && f->lo < 0)
            *a *= 1e-3 * uniform(s, 0, 1); /* near zero, where expm1 and log1p matter */
        *b = f->op == KB_EW_POW
                 ? (i % 8 == 0 ? (double)(int)uniform(s, -10, 10) : uniform(s, -30, 30))
                 : 2.0;
    }
    if (f32) {
        *a = (float)*a;
        *b = (float)*b;
    }
}

/* The largest error of f at a level in n samples, and where. */
static double measure(const function *f, bool f32, kb_simd_level level, int64_t n, double *worst) {
    kb_ew_loop loop = kb_ew_float_loop(f->op, f32 ? KB_F32 : KB_F64, level, KB_REACH_CACHE);
    assert_non_null(loop);
    static float a32[BLOCK], b32[BLOCK], o32[BLOCK];
    static double a64[BLOCK], b64[BLOCK], o64[BLOCK];
    double max = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)f->op;
    for (int64_t start = 0; start < n; start += BLOCK) {
        int64_t m = n - start < BLOCK ? n - start : BLOCK;
        for (int64_t i = 0; i < m; i++) {
            double a, b;
            inputs(f, f32, &seed, start + i, &a, &b);
            a64[i] = a;
            b64[i] = b;
            a32[i] = (float)a;
            b32[i] = (float)b;
        }
        unsigned found = 0;
        const void *in[2] = {f32 ? (const void *)a32 : a64, f32 ? (const void *)b32 : b64};
        loop(m, f32 ? (void *)o32 : o64, in, &found);
        for (int64_t i = 0; i < m; i++) {
            double y = f32 ? o32[i] : o64[i];
            long double r = f->ref(a64[i], b64[i]);
            double e = ulp_error(r, y, f32);
            if (e > max) {
                max = e;
                *worst = a64[i];
            }
        }
    }
    return max;
}

/* The levels whose elementwise table is their own, that this CPU runs. */
static bool own_level(kb_simd_level level) {
    return kb_simd_available(level) &&
           kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level) == level;
}

static void functions_are_within_their_bounds(void **state) {
    (void)state;
    const char *env = getenv("KB_EW_ULP_TABLE");
    bool table = env && strcmp(env, "1") == 0;
#if defined(__aarch64__)
    int64_t n = 20000; /* quad-precision references are software, and qemu emulates them */
#else
    int64_t n = table ? 2000000 : 100000;
#endif
    int failures = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        kb_simd_level level = (kb_simd_level)l;
        if (!own_level(level))
            continue;
        for (int i = 0; i < NFUNCTIONS; i++) {
            const function *f = &functions[i];
            double e[2], at[2] = {0, 0};
            for (int t = 0; t < 2; t++) {
                e[t] = measure(f, t == 0, level, n, &at[t]);
                double bound = level == KB_SIMD_SCALAR ? f->bound_scalar[t] : f->bound_vector[t];
                if (!(e[t] <= bound)) {
                    printf("%s %s %s: %.3g ULP at %a, bound %.3g\n", kb_simd_name(level), f->name,
                           t == 0 ? "float32" : "float64", e[t], at[t], bound);
                    failures++;
                }
            }
            if (table)
                printf("| %s | %s | %.3f | %.3f |\n", kb_simd_name(level), f->name, e[0], e[1]);
        }
    }
    assert_int_equal(failures, 0);
}

/* tanh keeps a zero's sign at every level (the ULP measure sees -0 and +0 as equal). */
static void tanh_keeps_the_sign_of_zero(void **state) {
    (void)state;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!own_level((kb_simd_level)l))
            continue;
        for (int t = 0; t < 2; t++) {
            kb_ew_loop loop = kb_ew_float_loop(KB_EW_TANH, t == 0 ? KB_F32 : KB_F64,
                                               (kb_simd_level)l, KB_REACH_CACHE);
            float a32[2] = {0.0f, -0.0f}, o32[2];
            double a64[2] = {0.0, -0.0}, o64[2];
            const void *in[1] = {t == 0 ? (const void *)a32 : a64};
            unsigned found = 0;
            loop(2, t == 0 ? (void *)o32 : o64, in, &found);
            assert_false(t == 0 ? signbit(o32[0]) : signbit(o64[0]));
            assert_true(t == 0 ? signbit(o32[1]) : signbit(o64[1]));
        }
    }
}

/* With KB_EW_EXHAUSTIVE=1, every float32 through exp and tanh at every level against long
 * double, held to the vector levels' bounds: the figures docs/expressions.md quotes (minutes a
 * function and level). */
static void every_float32_of_exp_and_tanh(void **state) {
    (void)state;
    const char *env = getenv("KB_EW_EXHAUSTIVE");
    if (!env || strcmp(env, "1") != 0)
        skip();
    static float a[BLOCK], o[BLOCK];
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        if (!own_level((kb_simd_level)l) || l == KB_SIMD_SCALAR)
            continue;
        for (int i = 0; i < NFUNCTIONS; i++) {
            const function *f = &functions[i];
            if (f->op != KB_EW_EXP && f->op != KB_EW_TANH)
                continue;
            kb_ew_loop loop = kb_ew_float_loop(f->op, KB_F32, (kb_simd_level)l, KB_REACH_CACHE);
            double max = 0, at = 0;
            for (uint64_t start = 0; start < (1ull << 32); start += BLOCK) {
                for (int k = 0; k < BLOCK; k++) {
                    uint32_t bits = (uint32_t)(start + (uint64_t)k);
                    memcpy(&a[k], &bits, sizeof bits);
                }
                const void *in[1] = {a};
                unsigned found = 0;
                loop(BLOCK, o, in, &found);
                for (int k = 0; k < BLOCK; k++) {
                    double e = ulp_error(f->ref(a[k], 0), o[k], true);
                    if (e > max) {
                        max = e;
                        at = a[k];
                    }
                }
            }
            printf("%s %s float32, every input: %.3f ULP at %a\n", kb_simd_name((kb_simd_level)l),
                   f->name, max, at);
            assert_true(max <= f->bound_vector[0]);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(functions_are_within_their_bounds),
        cmocka_unit_test(tanh_keeps_the_sign_of_zero),
        cmocka_unit_test(every_float32_of_exp_and_tanh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* x ** k for a float array and a small integer k, computed by multiplication
 * (src/expr/int_power.c): its error against long double's powl at every SIMD level, eagerly and
 * fused, in float32 and float64, over special values (signed zeros, infinities, NaN, subnormals,
 * the largest finite), values around the overflow and underflow thresholds, random bit patterns
 * and random values whose power is finite. The largest error must stay within the bound
 * docs/expressions.md gives; NaN, infinities, zeros and every sign must be powl's exactly;
 * results must be the same bits at every level, in both evaluators, for a literal, an
 * integer-valued float literal and a scalar bound by name. Past the bound (and for negative k,
 * non-integers, float16, integers) pow keeps computing it: the plans name the ops and the
 * results are those of the pow loop.
 *
 * KB_EW_ULP_TABLE=1 prints the measured errors (docs/expressions.md's table) over 2,000,000
 * inputs per case instead of 100,000 (20,000 on aarch64, as test_ew_accuracy). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/expr.h"
#include "kbench/simd.h"
#include "test_util.h"
#include "ulp.h"

enum { KMIN = 2, KMAX = 4 }; /* KB_EXPR_INT_POWER_MAX, the bound under test */

/* The bound in ULP of x ** k, float32 then float64 (docs/expressions.md): square is correctly
 * rounded; k - 1 multiplications round k - 1 times, each within half a unit of the running
 * value, which the later ones raise to a power: the relative errors add up to (k - 1) u, at
 * most k - 1 ULP of the result (measured 1.28 at k = 3, 1.90 at k = 4). */
static const double bounds[KMAX + 1][2] = {[2] = {0.5, 0.5}, [3] = {2, 2}, [4] = {3, 3}};

static bool table(void) {
    const char *env = getenv("KB_EW_ULP_TABLE");
    return env && strcmp(env, "1") == 0;
}

/* The inputs of x ** k: special values, values around the thresholds where x ** k overflows,
 * turns subnormal and underflows (a part in 2^8 to either side, clear of the rounding there),
 * random bit patterns, and random values whose power is a finite normal number. */
static void fill(double *x, int64_t n, int k, bool f32) {
    double max = f32 ? FLT_MAX : DBL_MAX, tiny = f32 ? FLT_MIN : DBL_MIN;
    double least = f32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    double thresholds[] = {pow(max, 1.0 / k), pow(tiny, 1.0 / k), pow(least, 1.0 / k)};
    double specials[] = {0.0,  -0.0, INFINITY, -INFINITY, NAN,   1.0,    -1.0, 0.5,
                         -2.0, 3.0,  tiny,     -tiny,     least, -least, max,  -max};
    int64_t i = 0;
    for (size_t s = 0; s < sizeof specials / sizeof *specials && i < n; s++)
        x[i++] = specials[s];
    for (size_t t = 0; t < sizeof thresholds / sizeof *thresholds; t++)
        for (int side = -1; side <= 1 && i + 1 < n; side += 2) {
            x[i++] = thresholds[t] * (1 + side * 0x1p-8);
            x[i++] = -thresholds[t] * (1 + side * 0x1p-8);
        }
    test_rng rng = {(uint64_t)k * 1000003u + f32};
    double lo = log2(tiny) / k, hi = log2(max) / k;
    for (; i < n; i++) {
        uint64_t bits = test_rng_next(&rng);
        if (i % 2) {
            if (f32) {
                uint32_t u = (uint32_t)(bits >> 32);
                float v;
                memcpy(&v, &u, sizeof v);
                x[i] = v;
            } else {
                memcpy(&x[i], &bits, sizeof x[i]);
            }
        } else {
            double e = lo + (hi - lo) * test_rng_unit(&rng);
            x[i] = (bits & 1 ? -1 : 1) * exp2(e) * (1 + test_rng_unit(&rng));
        }
    }
    for (i = 0; f32 && i < n; i++)
        x[i] = (float)x[i];
}

/* An array of n elements of x in float32 or float64, owned by the caller. */
static kb_array make(const double *x, int64_t n, bool f32) {
    kb_array a;
    assert_int_equal(kb_array_new(&a, f32 ? KB_F32 : KB_F64, 1, &n, KB_ORDER_C), KB_OK);
    for (int64_t i = 0; i < n; i++) {
        if (f32)
            ((float *)a.data)[i] = (float)x[i];
        else
            ((double *)a.data)[i] = x[i];
    }
    return a;
}

static double element(const kb_array *a, int64_t i) {
    return a->dtype == KB_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

/* source on x (and the scalar k = kvalue, a Python int), evaluated in mode. */
static kb_array eval(const char *source, const kb_array *x, kb_expr_mode mode, int64_t kvalue) {
    kb_expr *e;
    assert_int_equal(kb_expr_parse(source, &e), KB_OK);
    kb_expr_binding b = {"x", x};
    kb_expr_scalar s = {.name = "k", .dtype = KB_INT64, .value.i = kvalue};
    kb_expr_inputs in = {.bindings = &b, .nbindings = 1, .scalars = &s, .nscalars = 1};
    in.mode = mode;
    kb_array out;
    if (kb_expr_eval_inputs(e, &in, &out) != KB_OK)
        fail_msg("'%s': %s", source, kb_last_error());
    kb_expr_free(e);
    return out;
}

/* The ops of the plan of source on x in mode, kernels joined by " | ". */
static void ops(const char *source, const kb_array *x, kb_expr_mode mode, char *buf, size_t size) {
    kb_expr *e;
    assert_int_equal(kb_expr_parse(source, &e), KB_OK);
    kb_expr_binding b = {"x", x};
    kb_expr_inputs in = {.bindings = &b, .nbindings = 1, .mode = mode};
    kb_expr_plan plan;
    assert_int_equal(kb_expr_explain(e, &in, &plan), KB_OK);
    if (plan.note[0])
        fail_msg("'%s' fell back to eager: %s", source, plan.note);
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < plan.nkernels; i++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%s", i ? " | " : "", plan.kernels[i].ops);
    kb_expr_plan_free(&plan);
    kb_expr_free(e);
}

static bool same_bits(const kb_array *a, const kb_array *b) {
    return a->dtype == b->dtype && kb_array_size(a) == kb_array_size(b) &&
           memcmp(a->data, b->data, (size_t)kb_array_size(a) * kb_dtype_size(a->dtype)) == 0;
}

static void powers_are_within_their_bound(void **state) {
    (void)state;
#if defined(__aarch64__)
    int64_t n = 20000; /* quad-precision references are software, and qemu emulates them */
#else
    int64_t n = table() ? 2000000 : 100000;
#endif
    double *x = malloc((size_t)n * sizeof *x);
    assert_non_null(x);
    int failures = 0;
    for (int k = KMIN; k <= KMAX; k++) {
        for (int t = 0; t < 2; t++) {
            bool f32 = t == 0;
            fill(x, n, k, f32);
            kb_array in = make(x, n, f32);
            char literal[32], integral[32]; /* room for any int */
            snprintf(literal, sizeof literal, "x ** %d", k);
            snprintf(integral, sizeof integral, "x ** %d.0", k);
            kb_array first;
            bool have_first = false;
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                if (!kb_simd_available((kb_simd_level)l))
                    continue;
                assert_int_equal(kb_simd_set(l), KB_OK);
                for (int m = 0; m < 2; m++) {
                    kb_expr_mode mode = m ? KB_EXPR_EAGER : KB_EXPR_FUSED;
                    const char *where = kb_simd_name((kb_simd_level)l);
                    const char *how = m ? "eager" : "fused";
                    kb_array y = eval(literal, &in, mode, 0);
                    double max = 0, at = 0;
                    for (int64_t i = 0; i < n; i++) {
                        long double r = powl((long double)x[i], k);
                        double v = element(&y, i);
                        double err = ulp_error(r, v, f32);
                        /* the sign too: of zeros, infinities, and under- or overflowing values */
                        if (!isnan(v) && !signbit(v) != !signbit(r))
                            err = INFINITY;
                        if (err > max) {
                            max = err;
                            at = x[i];
                        }
                    }
                    double bound = bounds[k][t];
                    if (!(max <= bound)) {
                        printf("%s %s %s x ** %d: %.3g ULP at %a, bound %.3g\n", where, how,
                               f32 ? "float32" : "float64", k, max, at, bound);
                        failures++;
                    }
                    if (table())
                        printf("| %s | %s | %s | %d | %.3f |\n", where, how,
                               f32 ? "float32" : "float64", k, max);
                    /* the same bits at every level, in both evaluators, however k is given */
                    kb_array z = eval(integral, &in, mode, 0), w = eval("x ** k", &in, mode, k);
                    if (!same_bits(&y, &z) || !same_bits(&y, &w))
                        fail_msg("%s %s: x ** %d differs from x ** %d.0 or x ** k", where, how, k,
                                 k);
                    kb_array_free(&z);
                    kb_array_free(&w);
                    if (!have_first) {
                        first = y;
                        have_first = true;
                    } else {
                        if (!same_bits(&y, &first))
                            fail_msg("%s %s: x ** %d differs from the first level's", where, how,
                                     k);
                        kb_array_free(&y);
                    }
                }
            }
            kb_array_free(&first);
            kb_array_free(&in);
        }
    }
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
    free(x);
    assert_int_equal(failures, 0);
}

/* source, which pow computes, gives the pow loop's results: those of x ** p with p a 0-d
 * array of x's dtype (strong: never rewritten) holding the exponent. */
static void is_pow(const char *source, const kb_array *x, double exponent, kb_expr_mode mode) {
    kb_array p;
    assert_int_equal(kb_array_new(&p, x->dtype, 0, NULL, KB_ORDER_C), KB_OK);
    if (x->dtype == KB_F32)
        *(float *)p.data = (float)exponent;
    else if (x->dtype == KB_F64)
        *(double *)p.data = exponent;
    else
        fail_msg("unexpected dtype");
    kb_expr *e, *q;
    assert_int_equal(kb_expr_parse(source, &e), KB_OK);
    assert_int_equal(kb_expr_parse("x ** p", &q), KB_OK);
    kb_expr_binding b[2] = {{"x", x}, {"p", &p}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .mode = mode};
    kb_array got, want;
    assert_int_equal(kb_expr_eval_inputs(e, &in, &got), KB_OK);
    assert_int_equal(kb_expr_eval_inputs(q, &in, &want), KB_OK);
    if (!same_bits(&got, &want))
        fail_msg("'%s' is not pow's x ** %g", source, exponent);
    kb_array_free(&got);
    kb_array_free(&want);
    kb_array_free(&p);
    kb_expr_free(e);
    kb_expr_free(q);
}

static void pow_computes_the_others(void **state) {
    (void)state;
    enum { N = 4099 };
    double x[N];
    for (int t = 0; t < 2; t++) {
        bool f32 = t == 0;
        fill(x, N, 3, f32);
        kb_array in = make(x, N, f32);
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            if (!kb_simd_available((kb_simd_level)l))
                continue;
            assert_int_equal(kb_simd_set(l), KB_OK);
            for (int m = 0; m < 2; m++) {
                kb_expr_mode mode = m ? KB_EXPR_EAGER : KB_EXPR_FUSED;
                char buf[512];
                /* the bound and below: multiplications, in one kernel when fused */
                ops("x ** 2", &in, mode, buf, sizeof buf);
                assert_string_equal(buf, "square");
                ops("x ** 3", &in, mode, buf, sizeof buf);
                assert_string_equal(buf, m ? "square | multiply" : "square, multiply");
                ops("x ** 4.0", &in, mode, buf, sizeof buf);
                assert_string_equal(buf, m ? "square | square" : "square, square");
                /* one past it, negative, non-integer: pow */
                static const double others[] = {5, -2, -3, 3.5, 1, 0};
                for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
                    char source[32];
                    snprintf(source, sizeof source, "x ** %g", others[i]);
                    ops(source, &in, mode, buf, sizeof buf);
                    assert_string_equal(buf, "power");
                    is_pow(source, &in, others[i], mode);
                }
                is_pow("x ** 5.0", &in, 5, mode);
            }
        }
        kb_array_free(&in);
    }
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
}

/* float16 keeps pow (computed in float32, rounded once), and integers their exact power. */
static void other_types_keep_their_power(void **state) {
    (void)state;
    int64_t n = 7;
    kb_array h, i32;
    assert_int_equal(kb_array_new(&h, KB_F16, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_new(&i32, KB_INT32, 1, &n, KB_ORDER_C), KB_OK);
    static const int32_t iv[7] = {0, -1, 7, -13, 1290, INT32_MAX, INT32_MIN};
    memcpy(i32.data, iv, sizeof iv);
    kb_array x32;
    double hv[7] = {0.5, -0.0, 3.1, -2.7, 39.9, 1e-3, 70000};
    x32 = make(hv, n, true);
    assert_int_equal(kb_array_copy(&h, &x32), KB_OK); /* float16 from float32 */
    kb_array hp, want32, got;
    /* float16 ** 3 is float32's powf of the float16 values, rounded to float16 */
    assert_int_equal(kb_array_new(&hp, KB_F32, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_copy(&hp, &h), KB_OK);
    for (int64_t i = 0; i < n; i++)
        ((float *)hp.data)[i] = powf(((float *)hp.data)[i], 3);
    assert_int_equal(kb_array_new(&want32, KB_F16, 1, &n, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_array_copy(&want32, &hp), KB_OK);
    for (int m = 0; m < 2; m++) {
        kb_expr_mode mode = m ? KB_EXPR_EAGER : KB_EXPR_FUSED;
        assert_int_equal(kb_simd_set(KB_SIMD_SCALAR), KB_OK); /* libm's powf, as the reference */
        got = eval("x ** 3", &h, mode, 0);
        assert_int_equal(got.dtype, KB_F16);
        assert_memory_equal(got.data, want32.data, (size_t)n * 2);
        kb_array_free(&got);
        /* int32 ** 3 wraps as NumPy's integer power does */
        got = eval("x ** 3", &i32, mode, 0);
        assert_int_equal(got.dtype, KB_INT32);
        for (int64_t i = 0; i < n; i++) {
            uint32_t u = (uint32_t)iv[i];
            assert_int_equal(((int32_t *)got.data)[i], (int32_t)(u * u * u));
        }
        kb_array_free(&got);
    }
    assert_int_equal(kb_simd_set(KB_SIMD_AUTO_REQUEST), KB_OK);
    kb_array_free(&h);
    kb_array_free(&i32);
    kb_array_free(&x32);
    kb_array_free(&hp);
    kb_array_free(&want32);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(powers_are_within_their_bound),
        cmocka_unit_test(pow_computes_the_others),
        cmocka_unit_test(other_types_keep_their_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

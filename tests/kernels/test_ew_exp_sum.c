/* The sum of exp(x - shift) in one pass (kb_ew_float_exp_sum), at every level this build and CPU
 * run, float32 and float64: against the level's own sub and exp loops' terms added in long
 * double, within the rounding of a double sum (and, for float32, a unit in the last place of a
 * term of the last, partial vector, whose filled lanes could move the others where a vector takes
 * SLEEF's exp), at every length
 * to 70 and some longer ones, with the shift at the maximum, below it and above it; -infinity
 * elements add nothing, a NaN element or shift gives NaN, an infinite shift over finite
 * elements 0. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/simd.h"
#include "kernels/ew.h"

enum { MAX_N = 4099 };

static double value(uint64_t *seed) {
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return ((double)(*seed >> 11) * 0x1p-53 - 0.5) * 60;
}

/* The level's sum, and the long double sum of its sub and exp loops' terms with their sum of
 * magnitudes (all terms are positive: the same). */
static double sum_of(kb_simd_level level, kb_dtype dtype, const void *x, int64_t n, double shift,
                     long double *want) {
    static double shifts[MAX_N], diff[MAX_N], terms[MAX_N];
    bool f32 = dtype == KB_F32;
    for (int64_t i = 0; i < n; i++) {
        if (f32)
            ((float *)shifts)[i] = (float)shift;
        else
            shifts[i] = shift;
    }
    kb_ew_loop sub = kb_ew_float_loop(KB_EW_SUB, dtype, level, KB_REACH_CACHE);
    kb_ew_loop exp_loop = kb_ew_float_loop(KB_EW_EXP, dtype, level, KB_REACH_CACHE);
    assert_non_null(sub);
    assert_non_null(exp_loop);
    unsigned found = 0;
    const void *two[2] = {x, shifts}, *one[1] = {diff};
    sub(n, diff, two, &found);
    exp_loop(n, terms, one, &found);
    *want = 0;
    for (int64_t i = 0; i < n; i++)
        *want += f32 ? (long double)((float *)terms)[i] : (long double)terms[i];
    kb_ew_exp_sum exp_sum = kb_ew_float_exp_sum(dtype, level);
    assert_non_null(exp_sum);
    return exp_sum(n, x, shift);
}

static void check(kb_simd_level level, kb_dtype dtype, const void *x, int64_t n, double shift) {
    long double want;
    double got = sum_of(level, dtype, x, n, shift, &want);
    bool f32 = dtype == KB_F32;
    /* a double sum of n terms, and for float32 one ULP of each of a vector's terms */
    long double bound = want * ((long double)n * 0x1p-52L + (f32 ? 16 * 0x1p-23L : 0));
    if (isnan(want) ? !isnan(got) : fabsl((long double)got - want) > bound)
        fail_msg("%s %s n=%lld shift %a: got %a, want %La", kb_simd_name(level),
                 f32 ? "f32" : "f64", (long long)n, shift, got, want);
}

static void fill(kb_dtype dtype, void *x, int64_t n, uint64_t seed, double *max) {
    *max = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        double v = value(&seed);
        if (dtype == KB_F32) {
            ((float *)x)[i] = (float)v;
            v = ((float *)x)[i];
        } else {
            ((double *)x)[i] = v;
        }
        *max = v > *max ? v : *max;
    }
}

static void set(kb_dtype dtype, void *x, int64_t i, double v) {
    if (dtype == KB_F32)
        ((float *)x)[i] = (float)v;
    else
        ((double *)x)[i] = v;
}

static void sums_match_the_loops_terms(void **state) {
    (void)state;
    static double x[MAX_N];
    static const int64_t longer[] = {1029, 4099};
    int levels = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
        kb_simd_level level = (kb_simd_level)l;
        if (!kb_simd_available(level))
            continue;
        levels++;
        for (int t = 0; t < 2; t++) {
            kb_dtype dtype = t ? KB_F64 : KB_F32;
            for (int64_t n = 1; n <= 70 + 2; n++) {
                int64_t len = n <= 70 ? n : longer[n - 71];
                double max;
                fill(dtype, x, len, 11 + (uint64_t)len * 3 + (uint64_t)t, &max);
                check(level, dtype, x, len, max);
                check(level, dtype, x, len, max - 20);
                check(level, dtype, x, len, max + 3);
                /* -infinity adds nothing, NaN spreads, an infinite shift leaves nothing */
                set(dtype, x, len / 2, -INFINITY);
                check(level, dtype, x, len, max);
                check(level, dtype, x, len, INFINITY);
                set(dtype, x, len - 1, NAN);
                check(level, dtype, x, len, max);
                fill(dtype, x, len, 5, &max);
                check(level, dtype, x, len, NAN);
            }
        }
    }
    assert_true(levels >= 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_match_the_loops_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

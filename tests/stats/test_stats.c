/* Statistics against values worked out by hand, and the confidence interval of the median
 * against the binomial definition of its order statistics, computed here independently (a
 * running product in long double rather than the harness's log-gamma sums). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/bench.h"

#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* 1..9 and 100: quartiles by linear interpolation, q1 at (n-1)/4 = 2.25 -> 3.25, q3 at 6.75
 * -> 7.75; deviations from the median 5.5 sort to .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 94.5;
 * squared deviations from the mean 14.5 add up to 8182.5. */
static void hand_computed_sample(void **state) {
    double v[] = {7, 100, 3, 1, 9, 5, 2, 8, 4, 6}; /* order must not matter */
    kb_bench_stats s;
    assert_int_equal(kb_bench_stats_compute(v, 10, &s), KB_OK);
    assert_int_equal(s.n, 10);
    assert_close(s.median, 5.5, 0);
    assert_close(s.mean, 14.5, 1e-12);
    assert_close(s.min, 1, 0);
    assert_close(s.max, 100, 0);
    assert_close(s.q1, 3.25, 1e-12);
    assert_close(s.q3, 7.75, 1e-12);
    assert_close(s.iqr, 4.5, 1e-12);
    assert_close(s.mad, 2.5, 0);
    assert_close(s.stddev, sqrt(8182.5 / 9), 1e-9);
    assert_close(s.cv, sqrt(8182.5 / 9) / 14.5, 1e-12);
    /* n = 10: P(B <= 1) = 11/1024 <= 2.5% < P(B <= 2) = 56/1024, so [x(2), x(9)]. */
    assert_close(s.ci_low, 2, 0);
    assert_close(s.ci_high, 9, 0);
    assert_close(s.ci_coverage, 1 - 2 * 11.0 / 1024, 1e-12);
    /* Tukey's fences: 3.25 - 6.75 and 7.75 + 6.75 = 14.5; only 100 lies beyond. */
    assert_int_equal(s.outliers_low, 0);
    assert_int_equal(s.outliers_high, 1);
    assert_true(s.unstable); /* MAD is 45% of the median */
}

static void odd_count_and_low_outlier(void **state) {
    double v[] = {10, 10.1, 9.9, 10.2, 9.8, 1};
    kb_bench_stats s;
    assert_int_equal(kb_bench_stats_compute(v, 5, &s), KB_OK);
    assert_close(s.median, 10, 0);
    assert_close(s.q1, 9.9, 1e-12); /* (n-1)/4 = 1 exactly */
    assert_close(s.q3, 10.1, 1e-12);
    /* n = 5 is too few for 95%: [min, max], covering 1 - 2/32. */
    assert_close(s.ci_low, 9.8, 0);
    assert_close(s.ci_high, 10.2, 0);
    assert_close(s.ci_coverage, 1 - 2.0 / 32, 1e-12);
    assert_int_equal(s.outliers_low + s.outliers_high, 0);
    assert_int_equal(kb_bench_stats_compute(v, 6, &s), KB_OK);
    assert_close(s.median, 9.95, 1e-12);
    assert_int_equal(s.outliers_low, 1); /* 1 is far below 9.9 - 1.5 IQR */
    assert_int_equal(s.outliers_high, 0);
}

static void constant_and_single(void **state) {
    double v[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    kb_bench_stats s;
    assert_int_equal(kb_bench_stats_compute(v, 12, &s), KB_OK);
    assert_close(s.stddev, 0, 0);
    assert_close(s.mad, 0, 0);
    assert_close(s.iqr, 0, 0);
    assert_int_equal(s.outliers_low + s.outliers_high, 0);
    assert_false(s.unstable);
    assert_int_equal(kb_bench_stats_compute(v, 1, &s), KB_OK);
    assert_close(s.median, 3, 0);
    assert_close(s.ci_low, 3, 0);
    assert_close(s.ci_high, 3, 0);
    assert_close(s.ci_coverage, 0, 0);
    assert_close(s.stddev, 0, 0);
}

static void stability_flag(void **state) {
    /* 20 values within +-1%: stable. The same with every other value 10% higher: the MAD is
     * 5% of the median or more, unstable. */
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = 100 + (i % 5) * 0.5 - 1;
    kb_bench_stats s;
    assert_int_equal(kb_bench_stats_compute(v, 20, &s), KB_OK);
    assert_false(s.unstable);
    for (int i = 0; i < 20; i += 2)
        v[i] *= 1.12;
    assert_int_equal(kb_bench_stats_compute(v, 20, &s), KB_OK);
    assert_true(s.unstable);
}

static void rejects_bad_input(void **state) {
    double v[] = {1, NAN, 2};
    kb_bench_stats s;
    assert_int_equal(kb_bench_stats_compute(v, 0, &s), KB_EINVAL);
    assert_int_equal(kb_bench_stats_compute(v, 3, &s), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "NaN"));
}

/* The largest l with P(B <= l - 1) <= 2.5%, B ~ Bin(n, 1/2), by a running product. */
static void reference_ranks(int n, int *l, long double *coverage) {
    long double pmf = powl(0.5L, n), cdf = 0, used = powl(0.5L, n);
    *l = 1;
    for (int k = 0; 2 * (k + 1) <= n + 1; k++) {
        cdf += pmf;
        if (cdf > 0.025L)
            break;
        *l = k + 1;
        used = cdf;
        pmf = pmf * (n - k) / (k + 1);
    }
    *coverage = 1 - 2 * used;
    if (*coverage < 0)
        *coverage = 0;
}

static void median_ci_matches_binomial(void **state) {
    for (int n = 1; n <= 400; n++) {
        int64_t lo, hi;
        double coverage;
        kb_bench_median_ci_ranks(n, 0.95, &lo, &hi, &coverage);
        int l;
        long double ref;
        reference_ranks(n, &l, &ref);
        assert_int_equal(lo, l);
        assert_int_equal(hi, n + 1 - l);
        assert_close(coverage, ref, 1e-9);
        if (n >= 6)
            assert_true(coverage >= 0.95);
    }
    /* A textbook value: n = 100 gives [x(40), x(61)]. */
    int64_t lo, hi;
    double coverage;
    kb_bench_median_ci_ranks(100, 0.95, &lo, &hi, &coverage);
    assert_int_equal(lo, 40);
    assert_int_equal(hi, 61);
    assert_close(coverage, 0.9648, 1e-4);
}

static void summarize_rates(void **state) {
    int64_t samples[] = {10000, 12000, 11000, 10500, 10200, 9800, 10100, 10300, 9900, 10000};
    int64_t reps[] = {10};
    kb_bench_result r = {.name = "x",
                         .bytes_per_call = 4000,
                         .flops_per_call = 1000,
                         .calls_per_sample = 10,
                         .nrepetitions = 1,
                         .repetition_samples = reps,
                         .nsamples = 10,
                         .sample_ns = samples};
    assert_int_equal(kb_bench_result_summarize(&r), KB_OK);
    /* Per call: 1000, 1200, 1100, 1050, 1020, 980, 1010, 1030, 990, 1000 ns; median 1015. */
    assert_close(r.stats.median, 1015, 1e-9);
    assert_close(r.gb_per_s, 4000 / 1015.0, 1e-12);
    assert_close(r.gflop_per_s, 1000 / 1015.0, 1e-12);
    assert_close(r.gb_per_s_low, 4000 / r.stats.ci_high, 1e-12);
    assert_close(r.gb_per_s_high, 4000 / r.stats.ci_low, 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_computed_sample), cmocka_unit_test(odd_count_and_low_outlier),
        cmocka_unit_test(constant_and_single),  cmocka_unit_test(stability_flag),
        cmocka_unit_test(rejects_bad_input),    cmocka_unit_test(median_ci_matches_binomial),
        cmocka_unit_test(summarize_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

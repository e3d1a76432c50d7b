/* The Mann-Whitney test against p-values worked out by hand and against an independent
 * computation here (enumerating every way to split the ranks between the two sets, and a
 * recursive count of the null distribution), and the bootstrap interval of a ratio of medians
 * against hand-derived cases and its coverage on simulated data. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/significance.h"
#include "test_util.h"

#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static test_rng rng;

/* 3 against 3: of the C(6, 3) = 20 orderings, U = 0..9 occur 1 1 2 3 3 3 3 2 1 1 times. */
static void exact_by_hand(void **state) {
    (void)state;
    kb_mann_whitney r;
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    assert_int_equal(kb_mann_whitney_test(a, 3, b, 3, &r), KB_OK);
    assert_true(r.exact);
    assert_false(r.ties);
    assert_close(r.u, 0, 0);
    assert_close(r.p, 2.0 / 20, 1e-15); /* complete separation */
    assert_close(r.p_min, 0.1, 1e-12);
    assert_int_equal(kb_mann_whitney_test(b, 3, a, 3, &r), KB_OK);
    assert_close(r.u, 9, 0);
    assert_close(r.p, 0.1, 1e-15);
    /* 1 3 5 against 2 4 6: U = 0 + 1 + 2 = 3, P(U <= 3) = 7/20. */
    double c[] = {5, 1, 3}, d[] = {6, 2, 4};
    assert_int_equal(kb_mann_whitney_test(c, 3, d, 3, &r), KB_OK);
    assert_close(r.u, 3, 0);
    assert_close(r.p, 14.0 / 20, 1e-15);
    /* Interleaved perfectly, 1 2 against 3 4 ... : p is capped at 1. */
    double e[] = {1, 4}, f[] = {2, 3};
    assert_int_equal(kb_mann_whitney_test(e, 2, f, 2, &r), KB_OK);
    assert_close(r.u, 2, 0);
    assert_close(r.p, 1, 0);
}

/* The exact two-sided p-value by brute force: every subset of m of the m + n ranks is a
 * possible first set; p = 2 min(P(U <= u), P(U >= u)). */
static double enumerated_p(int m, int n, double u_observed) {
    int total = m + n;
    long below = 0, above = 0, count = 0;
    for (uint32_t mask = 0; mask < (1u << total); mask++) {
        if (__builtin_popcount(mask) != m)
            continue;
        /* U of the first set: for each of its members, the second-set members below it. */
        long u = 0, seen_second = 0;
        for (int rank = 0; rank < total; rank++) {
            if (mask & (1u << rank))
                u += seen_second;
            else
                seen_second++;
        }
        count++;
        below += u <= u_observed;
        above += u >= u_observed;
    }
    double p = 2.0 * (double)(below < above ? below : above) / (double)count;
    return p < 1 ? p : 1;
}

static void exact_against_enumeration(void **state) {
    (void)state;
    rng.state = 7;
    for (int trial = 0; trial < 60; trial++) {
        int m = 1 + trial % 7, n = 1 + (trial * 5) % 9;
        double a[16], b[16];
        for (int i = 0; i < m; i++)
            a[i] = test_rng_open_unit(&rng) + (trial % 3) * 0.2; /* a shift in some trials */
        for (int i = 0; i < n; i++)
            b[i] = test_rng_open_unit(&rng);
        kb_mann_whitney r;
        assert_int_equal(kb_mann_whitney_test(a, m, b, n, &r), KB_OK);
        assert_true(r.exact);
        double p = enumerated_p(m, n, r.u);
        assert_close(r.p, p, 1e-12 * p + 1e-15);
    }
}

/* The null distribution for larger sizes by the recursion on the largest value (it belongs to
 * the first set, adding n to U, or to the second), in long double probabilities. */
static double recursive_p(int m, int n, double u) {
    int top = m * n;
    long double *f = calloc((size_t)(m + 1) * (size_t)(n + 1) * (size_t)(top + 1), sizeof *f);
    assert_non_null(f);
#define F(i, j, k)                                                                                 \
    f[((size_t)(i) * (size_t)(n + 1) + (size_t)(j)) * (size_t)(top + 1) + (size_t)(k)]
    for (int i = 0; i <= m; i++)
        for (int j = 0; j <= n; j++)
            for (int k = 0; k <= i * j; k++) {
                if (i == 0 || j == 0) {
                    F(i, j, k) = k == 0;
                    continue;
                }
                long double first = k >= j ? F(i - 1, j, k - j) : 0, second = F(i, j - 1, k);
                F(i, j, k) = ((long double)i * first + (long double)j * second) / (i + j);
            }
    long double below = 0, above = 0;
    for (int k = 0; k <= top; k++) {
        below += k <= u ? F(m, n, k) : 0;
        above += k >= u ? F(m, n, k) : 0;
    }
#undef F
    free(f);
    double p = (double)(2 * (below < above ? below : above));
    return p < 1 ? p : 1;
}

static void exact_against_recursion(void **state) {
    (void)state;
    rng.state = 11;
    int sizes[][2] = {{10, 10}, {20, 20}, {30, 30}, {5, 40}, {25, 35}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int m = sizes[s][0], n = sizes[s][1];
        double a[64], b[64];
        for (int i = 0; i < m; i++)
            a[i] = exp(0.1 * test_rng_normal(&rng)) * 1.05;
        for (int i = 0; i < n; i++)
            b[i] = exp(0.1 * test_rng_normal(&rng));
        kb_mann_whitney r;
        assert_int_equal(kb_mann_whitney_test(a, m, b, n, &r), KB_OK);
        assert_true(r.exact);
        double p = recursive_p(m, n, r.u);
        assert_close(r.p, p, 1e-9 * p + 1e-15);
    }
}

/* Worked by hand: 1 2 2 3 against 2 3 3 4. Midranks: 1 -> 1, the three 2s -> 3, the three
 * 3s -> 6, 4 -> 8; the first set's rank sum is 1 + 3 + 3 + 6 = 13, U = 13 - 10 = 3, mean 8.
 * Ties: two runs of three, sum(t^3 - t) = 48; variance 16/12 (9 - 48/56) = 10.857142857;
 * z = -(5 - 0.5) / sqrt(10.857142857) = -1.3657; p = erfc(1.3657 / sqrt 2) = 0.17203. */
static void normal_approximation_with_ties(void **state) {
    (void)state;
    double a[] = {1, 2, 2, 3}, b[] = {2, 3, 3, 4};
    kb_mann_whitney r;
    assert_int_equal(kb_mann_whitney_test(a, 4, b, 4, &r), KB_OK);
    assert_false(r.exact);
    assert_true(r.ties);
    assert_close(r.u, 3, 0);
    double z = -4.5 / sqrt(16.0 / 12 * (9 - 48.0 / 56));
    assert_close(r.z, z, 1e-12);
    assert_close(r.z, -1.36570, 1e-5);
    assert_close(r.p, erfc(-z / sqrt(2.0)), 1e-12);
    assert_close(r.p, 0.17203, 1e-5);
    /* All values equal: no evidence at all. */
    double c[] = {5, 5, 5}, d[] = {5, 5};
    assert_int_equal(kb_mann_whitney_test(c, 3, d, 2, &r), KB_OK);
    assert_close(r.p, 1, 0);
}

/* Above the exact limit the approximation takes over, and agrees with the exact p-value where
 * both are defined: 30 against 30 values computed both ways. */
static void normal_approximation_agrees_with_exact(void **state) {
    (void)state;
    rng.state = 5;
    double a[40], b[40];
    for (int i = 0; i < 30; i++) {
        a[i] = exp(0.1 * test_rng_normal(&rng)) * 1.06;
        b[i] = exp(0.1 * test_rng_normal(&rng));
    }
    kb_mann_whitney exact, approx;
    assert_int_equal(kb_mann_whitney_test(a, 30, b, 30, &exact), KB_OK);
    assert_true(exact.exact);
    a[30] = 1e9; /* one more value each, far out, moves U by a known amount */
    b[30] = -1e9;
    assert_int_equal(kb_mann_whitney_test(a, 31, b, 31, &approx), KB_OK);
    assert_false(approx.exact);
    double mean = 31.0 * 31 / 2, sd = sqrt(31.0 * 31 * 63 / 12);
    /* a's extra value is above all 31 of b; b's extra below all of a's 30 others. */
    assert_close(approx.u, exact.u + 31 + 30, 0);
    double z = (fabs(approx.u - mean) - 0.5) / sd;
    assert_close(approx.p, erfc(z / sqrt(2.0)), 1e-12);
    assert_close(approx.p, recursive_p(31, 31, approx.u), 0.1 * approx.p);
}

static void min_p_and_errors(void **state) {
    (void)state;
    assert_close(kb_mann_whitney_min_p(3, 3), 0.1, 1e-12);
    assert_close(kb_mann_whitney_min_p(10, 10), 2.0 / 184756, 1e-15);
    assert_close(kb_mann_whitney_min_p(1, 1), 1, 0);
    kb_mann_whitney r;
    double a[] = {1, NAN};
    assert_int_equal(kb_mann_whitney_test(a, 0, a, 1, &r), KB_EINVAL);
    assert_int_equal(kb_mann_whitney_test(a, 2, a, 1, &r), KB_EINVAL);
}

/* The ratio is of the medians themselves; resamples of {1, 3} have medians 1, 2, 3 with
 * probabilities 1/4, 1/2, 1/4, so the 95% interval of median({1, 3}) / median({1, 1}) runs
 * from 1 to 3 (each end far beyond 2.5% of 2000 resamples). */
static void ratio_by_hand(void **state) {
    (void)state;
    double a[] = {1, 1}, b[] = {1, 3};
    kb_ratio_ci ci;
    assert_int_equal(kb_ratio_ci_bootstrap(a, 2, b, 2, 0.95, 42, &ci), KB_OK);
    assert_close(ci.ratio, 2, 0);
    assert_close(ci.median_a, 1, 0);
    assert_close(ci.median_b, 2, 0);
    assert_close(ci.low, 1, 0);
    assert_close(ci.high, 3, 0);
    assert_int_equal(ci.resamples, KB_RATIO_CI_RESAMPLES);
    /* Odd counts: medians 20 and 30 of unordered input. */
    double c[] = {30, 10, 20}, d[] = {40, 30, 20};
    assert_int_equal(kb_ratio_ci_bootstrap(c, 3, d, 3, 0.95, 42, &ci), KB_OK);
    assert_close(ci.ratio, 1.5, 1e-15);
    assert_true(ci.low <= ci.ratio && ci.ratio <= ci.high);
    /* Constant sets: no spread, the interval is the point. */
    double e[] = {4, 4, 4}, f[] = {6, 6};
    assert_int_equal(kb_ratio_ci_bootstrap(e, 3, f, 2, 0.95, 1, &ci), KB_OK);
    assert_close(ci.low, 1.5, 0);
    assert_close(ci.high, 1.5, 0);
}

/* The median of a resample of 0..10 (n = 11) is the value j with probability
 * P(Bin(11, (j+1)/11) >= 6) - P(Bin(11, j/11) >= 6); with a constant denominator the ends of the
 * interval are the 2.5% and 97.5% quantiles of that distribution, worked out here. */
static double binomial_at_least(int n, double q, int k) {
    double s = 0;
    for (int i = k; i <= n; i++) {
        double c = 1;
        for (int t = 0; t < i; t++)
            c = c * (n - t) / (t + 1);
        s += c * pow(q, i) * pow(1 - q, n - i);
    }
    return s;
}

static void resampled_median_distribution(void **state) {
    (void)state;
    double a[] = {1}, b[11];
    for (int i = 0; i < 11; i++)
        b[i] = i;
    int low = -1, high = -1;
    for (int j = 0; j < 11; j++) {
        double cdf = binomial_at_least(11, (j + 1) / 11.0, 6);
        if (low < 0 && cdf > 0.025)
            low = j;
        if (high < 0 && cdf > 0.975)
            high = j;
    }
    /* The CDF is 0.0072 at 1 and 0.051 at 2, 0.949 at 7 and 0.993 at 8: the ends are 2 and 8,
     * with the quantiles far from the steps, so 2000 resamples find them for any seed. */
    assert_int_equal(low, 2);
    assert_int_equal(high, 8);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        kb_ratio_ci ci;
        assert_int_equal(kb_ratio_ci_bootstrap(a, 1, b, 11, 0.95, seed, &ci), KB_OK);
        assert_close(ci.low, low, 0);
        assert_close(ci.high, high, 0);
    }
}

/* On A/A data from one distribution, the 95% interval of the ratio holds 1 in most trials. */
static void coverage(void **state) {
    (void)state;
    rng.state = 3;
    int covered = 0, trials = 200;
    double a[60], b[60];
    for (int t = 0; t < trials; t++) {
        for (int i = 0; i < 60; i++) {
            a[i] = exp(0.05 * test_rng_normal(&rng));
            b[i] = exp(0.05 * test_rng_normal(&rng));
        }
        kb_ratio_ci ci;
        assert_int_equal(kb_ratio_ci_bootstrap(a, 60, b, 60, 0.95, (uint64_t)t, &ci), KB_OK);
        covered += ci.low <= 1 && 1 <= ci.high;
    }
    print_message("bootstrap 95%% interval covered the true ratio in %d of %d trials\n", covered,
                  trials);
    assert_true(covered >= 180 && covered <= 200);
}

static void reproducible_and_errors(void **state) {
    (void)state;
    double a[] = {3, 1, 4, 1, 5, 9, 2, 6}, b[] = {2, 7, 1, 8, 2, 8, 1, 8};
    kb_ratio_ci x, y;
    assert_int_equal(kb_ratio_ci_bootstrap(a, 8, b, 8, 0.9, 99, &x), KB_OK);
    assert_int_equal(kb_ratio_ci_bootstrap(a, 8, b, 8, 0.9, 99, &y), KB_OK);
    assert_memory_equal(&x, &y, sizeof x);
    double zero[] = {0, 1};
    assert_int_equal(kb_ratio_ci_bootstrap(zero, 2, b, 8, 0.95, 1, &x), KB_EINVAL);
    assert_int_equal(kb_ratio_ci_bootstrap(a, 8, b, 0, 0.95, 1, &x), KB_EINVAL);
    assert_int_equal(kb_ratio_ci_bootstrap(a, 8, b, 8, 1.0, 1, &x), KB_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_by_hand),
        cmocka_unit_test(exact_against_enumeration),
        cmocka_unit_test(exact_against_recursion),
        cmocka_unit_test(normal_approximation_with_ties),
        cmocka_unit_test(normal_approximation_agrees_with_exact),
        cmocka_unit_test(min_p_and_errors),
        cmocka_unit_test(ratio_by_hand),
        cmocka_unit_test(resampled_median_distribution),
        cmocka_unit_test(coverage),
        cmocka_unit_test(reproducible_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Change points on hand-made series: a step found where it is, no change found in noise, two
 * steps, an outlier that is not a change, constant and short series, bad values and options;
 * and the energy statistic against a direct O(n^2) computation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/change_points.h"
#include "test_util.h"

static test_rng rng;

/* n values: level times exp(N(0, sigma)). */
static void noisy(double *v, int64_t n, double level, double sigma) {
    for (int64_t i = 0; i < n; i++)
        v[i] = level * exp(sigma * test_rng_normal(&rng));
}

static kb_change_points detect(const double *v, int64_t n) {
    kb_change_options o;
    kb_change_options_default(&o);
    kb_change_points cp;
    assert_int_equal(kb_change_points_detect(v, n, &o, &cp), KB_OK);
    return cp;
}

/* q of the split [0, t) | [t, n), from its definition. */
static double direct_q(const double *z, int64_t n, int64_t t) {
    double cross = 0, left = 0, right = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) {
            double d = fabs(z[i] - z[j]);
            if (j < t)
                left += d;
            else if (i >= t)
                right += d;
            else
                cross += d;
        }
    double m = (double)t, k = (double)(n - t);
    return m * k / (m + k) *
           (2 * cross / (m * k) - left / (m * (m - 1) / 2) - right / (k * (k - 1) / 2));
}

static void step_found_where_it_is(void **state) {
    (void)state;
    rng.state = 11;
    double v[80];
    noisy(v, 40, 100, 0.005);
    noisy(v + 40, 40, 110, 0.005);
    kb_change_points cp = detect(v, 80);
    assert_int_equal(cp.count, 1);
    kb_change_point *c = &cp.points[0];
    assert_int_equal(c->index, 40);
    assert_int_equal(c->start, 0);
    assert_int_equal(c->end, 80);
    assert_true(c->regression);
    assert_true(fabs(c->change - 0.10) < 0.01);
    assert_true(c->before_low <= c->before && c->before <= c->before_high);
    assert_true(c->before_low < 100 * 1.01 && c->before_high > 100 / 1.01);
    assert_true(c->after_low < 110 * 1.01 && c->after_high > 110 / 1.01);
    assert_true(c->p <= KB_CHANGE_DEFAULT_MAX_P);
    assert_true(fabs(c->p - 1.0 / (KB_CHANGE_DEFAULT_PERMUTATIONS + 1)) < 1e-12);
    /* The statistic is the one of the definition, and no other split beats it. */
    assert_true(fabs(c->q - direct_q(v, 80, 40)) <= 1e-9 * c->q);
    for (int64_t t = KB_CHANGE_DEFAULT_MIN_SEGMENT; t <= 80 - KB_CHANGE_DEFAULT_MIN_SEGMENT; t++)
        assert_true(direct_q(v, 80, t) <= c->q * (1 + 1e-12));
    kb_change_points_free(&cp);

    /* The same step down is an improvement. */
    for (int i = 0; i < 80; i++)
        v[i] = 1e4 / v[i];
    cp = detect(v, 80);
    assert_int_equal(cp.count, 1);
    assert_int_equal(cp.points[0].index, 40);
    assert_false(cp.points[0].regression);
    assert_true(fabs(cp.points[0].change + 0.0909) < 0.01);
    kb_change_points_free(&cp);
}

/* With ties and values far from 0 the sums must still be exact enough (a change of 2e-8: no
 * minimum change). */
static void statistic_with_ties(void **state) {
    (void)state;
    double v[30];
    for (int i = 0; i < 30; i++)
        v[i] = 1e9 + (double)((i * 7) % 5) + (i >= 17 ? 20 : 0);
    kb_change_options o;
    kb_change_options_default(&o);
    o.min_change = 0;
    kb_change_points cp;
    assert_int_equal(kb_change_points_detect(v, 30, &o, &cp), KB_OK);
    assert_int_equal(cp.count, 1);
    assert_int_equal(cp.points[0].index, 17);
    assert_true(fabs(cp.points[0].q - direct_q(v, 30, 17)) <= 1e-6 * cp.points[0].q);
    kb_change_points_free(&cp);
}

static void no_change_in_noise(void **state) {
    (void)state;
    rng.state = 12;
    double v[100];
    for (int series = 0; series < 20; series++) {
        noisy(v, 100, 1000, 0.01);
        kb_change_points cp = detect(v, 100);
        assert_int_equal(cp.count, 0);
        assert_null(cp.points);
        kb_change_points_free(&cp);
    }
}

static void two_steps(void **state) {
    (void)state;
    rng.state = 13;
    double v[90];
    noisy(v, 30, 100, 0.005);
    noisy(v + 30, 30, 110, 0.005);
    noisy(v + 60, 30, 95, 0.005);
    kb_change_points cp = detect(v, 90);
    assert_int_equal(cp.count, 2);
    assert_int_equal(cp.points[0].index, 30);
    assert_int_equal(cp.points[1].index, 60);
    assert_true(cp.points[0].regression);
    assert_false(cp.points[1].regression);
    /* Each level is its own segment's, bounded by the other change point. */
    assert_int_equal(cp.points[0].end, 60);
    assert_int_equal(cp.points[1].start, 30);
    assert_true(fabs(cp.points[1].change - (95.0 / 110 - 1)) < 0.01);
    kb_change_points_free(&cp);
}

static void outlier_is_not_a_change(void **state) {
    (void)state;
    rng.state = 14;
    double v[60];
    for (int where = 0; where < 60; where += 7) {
        noisy(v, 60, 100, 0.01);
        v[where] = 300;
        kb_change_points cp = detect(v, 60);
        assert_int_equal(cp.count, 0);
        kb_change_points_free(&cp);
    }
    /* Two in a row neither. */
    noisy(v, 60, 100, 0.01);
    v[30] = v[31] = 250;
    kb_change_points cp = detect(v, 60);
    assert_int_equal(cp.count, 0);
    kb_change_points_free(&cp);
}

static void constant_and_short(void **state) {
    (void)state;
    double v[50];
    for (int i = 0; i < 50; i++)
        v[i] = 42;
    kb_change_points cp = detect(v, 50);
    assert_int_equal(cp.count, 0);
    kb_change_points_free(&cp);
    /* Fewer than 2 min_segment values: no split can have min_segment on each side. */
    double s[2 * KB_CHANGE_DEFAULT_MIN_SEGMENT - 1];
    for (int i = 0; i < 2 * KB_CHANGE_DEFAULT_MIN_SEGMENT - 1; i++)
        s[i] = i < KB_CHANGE_DEFAULT_MIN_SEGMENT ? 1 : 100;
    cp = detect(s, 2 * KB_CHANGE_DEFAULT_MIN_SEGMENT - 1);
    assert_int_equal(cp.count, 0);
    cp = detect(s, 0);
    assert_int_equal(cp.count, 0);
    /* One more value is enough. */
    double t[2 * KB_CHANGE_DEFAULT_MIN_SEGMENT];
    for (int i = 0; i < 2 * KB_CHANGE_DEFAULT_MIN_SEGMENT; i++)
        t[i] = i < KB_CHANGE_DEFAULT_MIN_SEGMENT ? 1 + 0.001 * i : 2 + 0.001 * i;
    cp = detect(t, 2 * KB_CHANGE_DEFAULT_MIN_SEGMENT);
    assert_int_equal(cp.count, 1);
    assert_int_equal(cp.points[0].index, KB_CHANGE_DEFAULT_MIN_SEGMENT);
    kb_change_points_free(&cp);
}

/* A staircase of 40 levels of 10 values, each 5% above the last: every step found, however
 * deep the bisection. */
static void staircase(void **state) {
    (void)state;
    rng.state = 17;
    double v[400];
    for (int level = 0; level < 40; level++)
        noisy(v + 10 * level, 10, 100 * pow(1.05, level), 0.002);
    kb_change_points cp = detect(v, 400);
    assert_int_equal(cp.count, 39);
    for (int i = 0; i < 39; i++) {
        assert_int_equal(cp.points[i].index, 10 * (i + 1));
        assert_int_equal(cp.points[i].start, 10 * i);
        assert_int_equal(cp.points[i].end, 10 * (i + 2));
    }
    kb_change_points_free(&cp);
}

/* A step smaller than min_change is significant but merged away. */
static void small_step_merged(void **state) {
    (void)state;
    rng.state = 15;
    double v[80];
    noisy(v, 40, 100, 0.001);
    noisy(v + 40, 40, 101, 0.001);
    kb_change_points cp = detect(v, 80);
    assert_int_equal(cp.count, 0);
    kb_change_options o;
    kb_change_options_default(&o);
    o.min_change = 0.005;
    assert_int_equal(kb_change_points_detect(v, 80, &o, &cp), KB_OK);
    assert_int_equal(cp.count, 1);
    assert_int_equal(cp.points[0].index, 40);
    kb_change_points_free(&cp);
}

static void same_seed_same_answer(void **state) {
    (void)state;
    rng.state = 16;
    double v[60];
    noisy(v, 45, 100, 0.02);
    noisy(v + 45, 15, 103, 0.02);
    kb_change_options o;
    kb_change_options_default(&o);
    o.max_p = 0.5;
    o.min_change = 0;
    kb_change_points a, b;
    assert_int_equal(kb_change_points_detect(v, 60, &o, &a), KB_OK);
    assert_int_equal(kb_change_points_detect(v, 60, &o, &b), KB_OK);
    assert_true(a.count > 0);
    assert_int_equal(a.count, b.count);
    for (int64_t i = 0; i < a.count; i++) {
        assert_int_equal(a.points[i].index, b.points[i].index);
        assert_true(a.points[i].p == b.points[i].p);
    }
    kb_change_points_free(&a);
    kb_change_points_free(&b);
}

static void bad_values_and_options(void **state) {
    (void)state;
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = 1 + i;
    kb_change_options o;
    kb_change_options_default(&o);
    kb_change_points cp;
    v[3] = NAN;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    assert_string_equal(kb_last_error(), "value 3 of the series is NaN");
    assert_int_equal(cp.count, 0);
    v[3] = INFINITY;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    assert_string_equal(kb_last_error(), "value 3 of the series is infinite");
    v[3] = 0;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    assert_string_equal(kb_last_error(), "value 3 of the series is not positive");
    v[3] = 4;

    o.max_p = 1;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    kb_change_options_default(&o);
    o.permutations = 50; /* 1/51 > 0.01: nothing could ever be significant */
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    assert_non_null(strstr(kb_last_error(), "cannot give a p-value of 0.01"));
    kb_change_options_default(&o);
    o.min_segment = 1;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
    kb_change_options_default(&o);
    o.min_change = NAN;
    assert_int_equal(kb_change_points_detect(v, 20, &o, &cp), KB_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_found_where_it_is),
        cmocka_unit_test(statistic_with_ties),
        cmocka_unit_test(no_change_in_noise),
        cmocka_unit_test(two_steps),
        cmocka_unit_test(outlier_is_not_a_change),
        cmocka_unit_test(constant_and_short),
        cmocka_unit_test(staircase),
        cmocka_unit_test(small_step_merged),
        cmocka_unit_test(same_seed_same_answer),
        cmocka_unit_test(bad_values_and_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Calibration of change-point detection at its defaults (include/kbench/change_points.h), on
 * synthetic series of run medians whose noise was measured in A/A runs on the development
 * machine (docs/history.md, "Calibration", has the commands and numbers):
 *
 * - each run's median is the case's true time times exp(N(0, sigma)). sigma 0.01 is the
 *   run-to-run sd of log(median) of the median single-threaded case on a quiet machine (0.0098
 *   in docs/compare.md's six runs, and 0.011 as a robust sd, 1.4826 MAD, over ten runs on this
 *   machine under load); sigma 0.02 is the plain sd of the median in-cache case over those ten
 *   runs under a load average of 7 to 9 on 2 cores, or a noisier case on a quiet machine;
 * - heavier tails: Student's t with 3 degrees of freedom scaled to the same sd (a run now and
 *   then several sigma away);
 * - disturbed runs: 5% of runs slowed by another process, by a factor 1 + Exp(mean 10 sigma),
 *   as the outlying runs of the measurement were.
 *
 * Each model gets SERIES series without a change and SERIES with a 5% step (slower) at a
 * uniformly drawn run between 10 and 90, of 100 runs each. Asserted, as issue #15 asks: at
 * most 1 false change point per 1,000 points (every change point of a series without a step,
 * and every one further than 5 runs from the step of the others), and the step found within 5
 * runs of where it happened in at least 95% of the series. On a busy machine (sigma 0.05 and
 * 0.1, the upper quarter of the cases under that load) a 5% step is within the noise and is
 * not always found, but false change points must stay as rare. The rates are printed; fixed
 * seeds make them the same on every run.
 *
 * The test fails with the defaults set wrong either way: at a p-value threshold of 0.5, 5.8
 * false change points per 1,000 points (sigma 0.02); at a minimum change of 20%, no step found. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/change_points.h"
#include "test_util.h"

#define POINTS 100
#define SERIES 200
#define STEP 1.05
#define WITHIN 5
#define STEP_FIRST 10
#define TRUE_NS 250000.0
#define DISTURBED_FRACTION 0.05
#define DISTURBED_MEAN_SIGMAS 10

typedef enum noise { NOISE_NORMAL, NOISE_HEAVY, NOISE_DISTURBED } noise;

static const char *const noise_names[] = {"log-normal", "Student t(3)", "5% disturbed runs"};

static test_rng rng;

static double draw(noise kind, double sigma) {
    double z = test_rng_normal(&rng);
    if (kind == NOISE_HEAVY) {
        double chi2 = 0;
        for (int k = 0; k < 3; k++) {
            double g = test_rng_normal(&rng);
            chi2 += g * g;
        }
        z = z / sqrt(chi2 / 3) / sqrt(3.0); /* t(3) has variance 3 */
    }
    double factor = exp(sigma * z);
    if (kind == NOISE_DISTURBED && test_rng_unit(&rng) < DISTURBED_FRACTION)
        factor *= 1 - DISTURBED_MEAN_SIGMAS * sigma * log(test_rng_open_unit(&rng));
    return TRUE_NS * factor;
}

typedef struct rates {
    double false_per_1000, found;
} rates;

/* The rates over SERIES series without a change and, unless null_only, SERIES with a step. */
static rates measure(noise kind, double sigma, uint64_t seed, bool null_only) {
    rng.state = seed;
    kb_change_options o;
    kb_change_options_default(&o);
    double v[POINTS];
    int64_t false_points = 0, found = 0;
    int nseries = null_only ? SERIES : 2 * SERIES;
    for (int s = 0; s < nseries; s++) {
        bool step = s >= SERIES;
        int64_t at = step ? STEP_FIRST + test_rng_below(&rng, POINTS - 2 * STEP_FIRST + 1) : -1;
        for (int64_t i = 0; i < POINTS; i++)
            v[i] = draw(kind, sigma) * (step && i >= at ? STEP : 1);
        kb_change_points cp;
        assert_int_equal(kb_change_points_detect(v, POINTS, &o, &cp), KB_OK);
        bool credited = false;
        for (int64_t k = 0; k < cp.count; k++) {
            if (step && !credited && llabs(cp.points[k].index - at) <= WITHIN) {
                credited = true;
                found++;
            } else {
                false_points++;
            }
        }
        kb_change_points_free(&cp);
    }
    rates r = {1000.0 * (double)false_points / ((double)nseries * POINTS), (double)found / SERIES};
    if (null_only)
        print_message("%-17s sigma %.3f: %.3f false change points per 1000 points\n",
                      noise_names[kind], sigma, r.false_per_1000);
    else
        print_message("%-17s sigma %.3f: %.3f false change points per 1000 points, 5%% step "
                      "found within %d runs in %.1f%% of series\n",
                      noise_names[kind], sigma, r.false_per_1000, WITHIN, 100 * r.found);
    return r;
}

static void calibrate(noise kind, double sigma, uint64_t seed) {
    rates r = measure(kind, sigma, seed, false);
    assert_true(r.false_per_1000 <= 1);
    assert_true(r.found >= 0.95);
}

static void measured_noise(void **state) {
    (void)state;
    calibrate(NOISE_NORMAL, 0.01, 101);
    calibrate(NOISE_HEAVY, 0.01, 102);
    calibrate(NOISE_DISTURBED, 0.01, 103);
}

static void noisier_cases(void **state) {
    (void)state;
    calibrate(NOISE_NORMAL, 0.02, 201);
    calibrate(NOISE_HEAVY, 0.02, 202);
    calibrate(NOISE_DISTURBED, 0.02, 203);
}

static void busy_machine(void **state) {
    (void)state;
    for (int i = 0; i < 2; i++) {
        double sigma = i == 0 ? 0.05 : 0.1;
        assert_true(measure(NOISE_NORMAL, sigma, 301 + (uint64_t)i, true).false_per_1000 <= 1);
        assert_true(measure(NOISE_DISTURBED, sigma, 311 + (uint64_t)i, true).false_per_1000 <= 1);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measured_noise),
        cmocka_unit_test(noisier_cases),
        cmocka_unit_test(busy_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

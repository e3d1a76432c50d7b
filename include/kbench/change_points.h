#ifndef KBENCH_CHANGE_POINTS_H
#define KBENCH_CHANGE_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where did a series of timings change level? E-divisive means (Matteson and James, "A
 * Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014),
 * the method MongoDB's performance CI and Apache Otava (formerly Hunter) use on the same kind
 * of series: the median time of a case, one value per run, in the order the runs were made.
 *
 * A segment is split where the energy distance between the values before and after is largest
 * (alpha = 1: q = mn/(m+n) [2/(mn) sum|x-y| - sum|x-x'|/C(m,2) - sum|y-y'|/C(n,2)]); the split
 * is kept when a permutation test says such a distance is rare in the segment shuffled
 * (p <= max_p), and both halves are searched again. Every split must leave min_segment values
 * on each side. Splits whose levels (the medians of the segments either side) differ by less
 * than min_change are then merged away, smallest first. docs/history.md explains the method
 * and how the defaults below were measured. */

/* The defaults, in one place, chosen from the run-to-run noise of A/A runs (docs/history.md,
 * "Calibration": the sd of log(median) of a case from one run to the next is about 1% in the
 * median case on a quiet machine, 2% under heavy load) and checked at that noise by
 * tests/stats/test_change_points_calibration.c: at most 1 false change point per 1,000 points,
 * and a 5% step found within 5 runs of where it happened in at least 95% of series.
 *
 * - MAX_P 0.01 with 199 permutations: a series without a change is tested once, so the test
 *   alone lets through about 1 false split per 100 series (0.1 per 1,000 points of 100-point
 *   series), whatever the noise, which the minimum change then mostly removes; 0.5 gives 5.8
 *   false change points per 1,000 points at 2% noise. 199 permutations make 0.01 reachable
 *   (the smallest p is 1/200), and a segment without a change stops after a few of them.
 * - MIN_CHANGE 2%: twice the run-to-run sd of a quiet machine, so that a level that moved by
 *   less is not worth an alert, yet well below the 5% a step must be found at (20% finds none).
 * - MIN_SEGMENT 5: a change is reported once 5 runs show the new level, within a week for a
 *   nightly job; 3 let disturbed runs in a row pass for a level more often (2.7 times the
 *   false change points with 5% disturbed runs at 1% noise). */
#define KB_CHANGE_DEFAULT_MAX_P 0.01
#define KB_CHANGE_DEFAULT_PERMUTATIONS 199
#define KB_CHANGE_DEFAULT_MIN_CHANGE 0.02
#define KB_CHANGE_DEFAULT_MIN_SEGMENT 5
/* Any fixed seed: the permutations, and so the p-values, are the same on every run and
 * platform. */
#define KB_CHANGE_DEFAULT_SEED UINT64_C(0x6b62656e6368)

typedef struct kb_change_options {
    double max_p;        /* in (0, 1): a split is kept when its p-value is at most this */
    int permutations;    /* 1 to 100000, enough that 1 / (permutations + 1) <= max_p */
    double min_change;   /* >= 0: the relative change of level a change point needs */
    int64_t min_segment; /* >= 2: the fewest values on either side of a split */
    uint64_t seed;       /* of the permutations */
} kb_change_options;

void kb_change_options_default(kb_change_options *options);

/* KB_EINVAL with a message for an option out of range. */
kb_status kb_change_options_check(const kb_change_options *options);

typedef struct kb_change_point {
    int64_t index; /* the first value at the new level */
    /* The segments either side: [start, index) and [index, end), bounded by the neighbouring
     * change points or the ends of the series. */
    int64_t start, end;
    /* Their medians, with the 95% confidence interval of each median (order statistics, as
     * kb_bench_stats; [min, max] for segments under 6 values). */
    double before, before_low, before_high;
    double after, after_low, after_high;
    double change;   /* after / before - 1: +0.05 is 5% slower (the values are times) */
    double p;        /* the permutation p-value of the split, in the segment it was found in */
    double q;        /* the energy statistic of the split */
    bool regression; /* after > before: slower; otherwise an improvement */
} kb_change_point;

typedef struct kb_change_points {
    kb_change_point *points; /* in the order of the series */
    int64_t count;
} kb_change_points;

/* Finds the change points of n values (times: finite and positive), in series order. A series
 * shorter than 2 min_segment has none. KB_EINVAL for a value that is NaN, infinite or not
 * positive (naming its index) or bad options; KB_ENOMEM. The caller frees out with
 * kb_change_points_free, also after a failure (it is then empty). */
kb_status kb_change_points_detect(const double *values, int64_t n, const kb_change_options *options,
                                  kb_change_points *out);

void kb_change_points_free(kb_change_points *points);

#ifdef __cplusplus
}
#endif

#endif

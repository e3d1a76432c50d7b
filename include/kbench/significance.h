#ifndef KBENCH_SIGNIFICANCE_H
#define KBENCH_SIGNIFICANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Is a difference between two sample sets real? A rank test (Mann-Whitney U) for "do the two
 * sets come from the same distribution", and a bootstrap confidence interval for "by what
 * factor did the median move". Both are distribution-free: timings are skewed, heavy-tailed
 * and often bimodal, so nothing here assumes normality. docs/compare.md shows how `kbench
 * compare` combines them. */

/* ---- Mann-Whitney U test (Wilcoxon rank-sum), two-sided ---- */

/* Up to this many values in both sets together, and no ties, the p-value comes from the exact
 * null distribution of U; otherwise from the normal approximation with the tie correction of
 * the variance and a continuity correction. C(60, 30) = 1.2e17 arrangements still count
 * exactly in 64-bit integers, and from about 30 per side the normal approximation is as good
 * as the exact p-value for any alpha a gate would use. */
#define KB_MANN_WHITNEY_EXACT_MAX 60

typedef struct kb_mann_whitney {
    double u; /* U of the first set: pairs (a_i, b_j) with a_i > b_j, a tie counting 1/2 */
    double z; /* the standardized statistic of the normal approximation; 0 when exact */
    double p; /* two-sided p-value, in (0, 1] */
    double
        p_min;  /* the smallest p-value any data could give at these sizes: kb_mann_whitney_min_p */
    bool exact; /* p from the exact distribution */
    bool ties;  /* some value occurs more than once in the two sets together */
} kb_mann_whitney;

/* Tests whether a (na values) and b (nb values) come from the same continuous distribution
 * against a shift either way. KB_EINVAL for na or nb below 1 or a NaN; KB_ENOMEM. */
kb_status kb_mann_whitney_test(const double *a, int64_t na, const double *b, int64_t nb,
                               kb_mann_whitney *out);

/* The two-sided p-value of complete separation without ties, 2 / C(na + nb, na) (capped at 1):
 * no data can do better, so when it exceeds alpha the test cannot detect anything at all and
 * another criterion is needed (3 against 3 values: 0.1). */
double kb_mann_whitney_min_p(int64_t na, int64_t nb);

/* ---- Confidence interval of a ratio of medians, by bootstrap ---- */

/* Resamples per interval: enough that the ends of a 95% interval move by a small fraction of
 * its width between seeds (each end is an order statistic of 2000 ratios, near the 50th from
 * either end), few enough that an interval costs well under a millisecond. */
#define KB_RATIO_CI_RESAMPLES 2000

typedef struct kb_ratio_ci {
    double ratio;     /* median(b) / median(a) */
    double low, high; /* the percentile bootstrap interval of the ratio */
    double level;     /* as asked, such as 0.95 */
    int resamples;    /* KB_RATIO_CI_RESAMPLES */
    double median_a, median_b;
} kb_ratio_ci;

/* Percentile bootstrap interval of median(b) / median(a) at the given level (0 < level < 1):
 * each resample draws na values of a and nb of b with replacement, independently, and takes
 * the ratio of their medians (the middle value, or the mean of the two middle ones as in
 * kb_bench_stats). The same seed gives the same interval on every platform. KB_EINVAL for an
 * empty set, a NaN, a value of 0 or below in a (the ratio would be undefined) or a level
 * outside (0, 1); KB_ENOMEM. */
kb_status kb_ratio_ci_bootstrap(const double *a, int64_t na, const double *b, int64_t nb,
                                double level, uint64_t seed, kb_ratio_ci *out);

#ifdef __cplusplus
}
#endif

#endif

/* Summary statistics of samples: median with its confidence interval, MAD, outliers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/bench.h"
#include "util/internal.h"

void kb_bench_median_ci_ranks(int64_t n, double level, int64_t *low, int64_t *high,
                              double *coverage) {
    /* The interval [x(l), x(n+1-l)] misses the median exactly when fewer than l values lie
     * below it or fewer than l above, each with probability P(B <= l - 1) for B ~ Bin(n, 1/2)
     * whatever the distribution (continuous). The pmf is summed in log space, as 2^-n
     * underflows for n above about a thousand. */
    double tail = (1 - level) / 2, cdf = 0, cdf_used = 0;
    int64_t l = 0;
    double log_all = lgamma((double)n + 1) + (double)n * log(0.5);
    for (int64_t k = 0; 2 * (k + 1) <= n + 1; k++) {
        cdf += exp(log_all - lgamma((double)k + 1) - lgamma((double)(n - k) + 1));
        if (cdf > tail)
            break;
        l = k + 1;
        cdf_used = cdf;
    }
    if (l == 0) {
        /* Too few values for the level: the widest interval, with what it covers. */
        l = 1;
        cdf_used = n >= 1 ? exp((double)n * log(0.5)) : 1;
    }
    *low = l;
    *high = n + 1 - l;
    *coverage = fmax(0, 1 - 2 * cdf_used);
}

kb_status kb_bench_stats_compute(const double *values, int64_t n, kb_bench_stats *out) {
    memset(out, 0, sizeof *out);
    if (n < 1)
        return kb_fail(KB_EINVAL, "statistics need at least one value");
    double *sorted = malloc((size_t)n * sizeof *sorted);
    double *dev = malloc((size_t)n * sizeof *dev);
    if (!sorted || !dev) {
        free(sorted);
        free(dev);
        return kb_fail(KB_ENOMEM, "out of memory for the statistics of %lld values", (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        if (isnan(values[i])) {
            free(sorted);
            free(dev);
            return kb_fail(KB_EINVAL, "value %lld is NaN", (long long)i);
        }
        sorted[i] = values[i];
    }
    kb_sort_doubles(sorted, (size_t)n);

    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += sorted[i];
    double mean = sum / (double)n, ss = 0;
    for (int64_t i = 0; i < n; i++)
        ss += (sorted[i] - mean) * (sorted[i] - mean);

    out->n = n;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    out->cv = mean > 0 ? out->stddev / mean : 0;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->median = kb_quantile_sorted(sorted, (size_t)n, 0.5);
    out->q1 = kb_quantile_sorted(sorted, (size_t)n, 0.25);
    out->q3 = kb_quantile_sorted(sorted, (size_t)n, 0.75);
    out->iqr = out->q3 - out->q1;

    for (int64_t i = 0; i < n; i++)
        dev[i] = fabs(sorted[i] - out->median);
    kb_sort_doubles(dev, (size_t)n);
    out->mad = kb_quantile_sorted(dev, (size_t)n, 0.5);

    int64_t lo, hi;
    kb_bench_median_ci_ranks(n, 0.95, &lo, &hi, &out->ci_coverage);
    out->ci_low = sorted[lo - 1];
    out->ci_high = sorted[hi - 1];

    double fence_low = out->q1 - 1.5 * out->iqr, fence_high = out->q3 + 1.5 * out->iqr;
    for (int64_t i = 0; i < n; i++) {
        out->outliers_low += sorted[i] < fence_low;
        out->outliers_high += sorted[i] > fence_high;
    }
    if (out->median > 0)
        out->unstable = out->mad / out->median > KB_BENCH_UNSTABLE_MAD ||
                        (out->ci_high - out->ci_low) / out->median > KB_BENCH_UNSTABLE_CI;
    free(sorted);
    free(dev);
    return KB_OK;
}

/* Bootstrap confidence intervals of the ratio of two medians. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "core/internal.h"
#include "kbench/significance.h"

static int64_t index_of(double u, int64_t n) {
    int64_t i = (int64_t)floor(u * (double)n);
    return i < n ? i : n - 1;
}

/* The median of n values drawn with replacement from sorted x, without drawing them: with the
 * draws written as floor(n U_i) for uniform U_i, their k-th smallest is x[floor(n U_(k))],
 * and the k-th order statistic of n uniforms is Beta(k, n + 1 - k). For an even n the next
 * one, U_(k+1), is the smallest of the n - k uniforms above U_(k). This is the plain bootstrap
 * of the median, exactly, at a cost that does not grow with n (a resample of a thousand
 * samples would otherwise cost a thousand draws and a selection). */
static double resampled_median(kb_rng *rng, const double *x, int64_t n) {
    int64_t k = (n + 1) / 2;
    double u = kb_rng_beta(rng, (double)k, (double)(n + 1 - k));
    if (n % 2)
        return x[index_of(u, n)];
    double v = 1 - kb_rng_uniform(rng); /* in (0, 1] */
    double next = u + (1 - u) * -expm1(log(v) / (double)(n - k));
    return (x[index_of(u, n)] + x[index_of(next, n)]) / 2;
}

static kb_status sorted_copy(const double *x, int64_t n, const char *which, bool positive,
                             double **out) {
    *out = NULL;
    if (n < 1)
        return kb_fail(KB_EINVAL, "the %s set is empty", which);
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return kb_fail(KB_ENOMEM, "out of memory for %lld values", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i]) || (positive && !(x[i] > 0))) {
            free(s);
            return kb_fail(KB_EINVAL, "value %lld of the %s set is %s", (long long)i, which,
                           isnan(x[i]) ? "NaN" : "not positive");
        }
        s[i] = x[i];
    }
    kb_sort_doubles(s, (size_t)n);
    *out = s;
    return KB_OK;
}

kb_status kb_ratio_ci_bootstrap(const double *a, int64_t na, const double *b, int64_t nb,
                                double level, uint64_t seed, kb_ratio_ci *out) {
    memset(out, 0, sizeof *out);
    if (!(level > 0 && level < 1))
        return kb_fail(KB_EINVAL, "confidence level %g is not between 0 and 1", level);
    double *sa, *sb, *ratios = NULL;
    kb_status st = sorted_copy(a, na, "first", true, &sa);
    if (st != KB_OK)
        return st;
    st = sorted_copy(b, nb, "second", false, &sb);
    if (st == KB_OK && !(ratios = malloc(KB_RATIO_CI_RESAMPLES * sizeof *ratios)))
        st = kb_fail(KB_ENOMEM, "out of memory for the bootstrap");
    if (st == KB_OK) {
        kb_rng rng;
        kb_rng_seed(&rng, seed);
        for (int r = 0; r < KB_RATIO_CI_RESAMPLES; r++) {
            double ma = resampled_median(&rng, sa, na);
            ratios[r] = resampled_median(&rng, sb, nb) / ma;
        }
        kb_sort_doubles(ratios, KB_RATIO_CI_RESAMPLES);
        out->median_a = kb_median_sorted(sa, (size_t)na);
        out->median_b = kb_median_sorted(sb, (size_t)nb);
        out->ratio = out->median_b / out->median_a;
        out->low = kb_quantile_sorted(ratios, KB_RATIO_CI_RESAMPLES, (1 - level) / 2);
        out->high = kb_quantile_sorted(ratios, KB_RATIO_CI_RESAMPLES, (1 + level) / 2);
        out->level = level;
        out->resamples = KB_RATIO_CI_RESAMPLES;
    }
    free(sa);
    free(sb);
    free(ratios);
    return st;
}

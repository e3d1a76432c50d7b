/* The Mann-Whitney U test, exact for small samples, normal approximation otherwise. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/significance.h"

typedef struct tagged {
    double value;
    int from_a;
} tagged;

static int compare_tagged(const void *x, const void *y) {
    double a = ((const tagged *)x)->value, b = ((const tagged *)y)->value;
    return (a > b) - (a < b);
}

double kb_mann_whitney_min_p(int64_t na, int64_t nb) {
    if (na < 1 || nb < 1)
        return 1;
    double log_arrangements =
        lgamma((double)(na + nb) + 1) - lgamma((double)na + 1) - lgamma((double)nb + 1);
    return fmin(1, 2 * exp(-log_arrangements));
}

/* Without ties, every one of the C(m + n, m) orderings of the two sets is equally likely under
 * the null hypothesis, and the number of them with U = u is the coefficient of q^u in the
 * Gaussian binomial [m + n choose m] = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Building the
 * product one factor at a time (dividing by 1 - q^i is a running sum with stride i, then
 * multiplying by 1 - q^(n+i)) keeps every coefficient a count no larger than C(m + n, m), so
 * 64-bit integers hold them exactly up to KB_MANN_WHITNEY_EXACT_MAX values. */
static kb_status exact_p(int64_t m, int64_t n, double u, double *p) {
    int64_t top = m * n;
    uint64_t *c = calloc((size_t)top + 1, sizeof *c);
    if (!c)
        return kb_fail(KB_ENOMEM, "out of memory for the exact distribution of U");
    c[0] = 1;
    for (int64_t i = 1; i <= m; i++) {
        for (int64_t k = i; k <= top; k++)
            c[k] += c[k - i];
        for (int64_t k = top; k >= n + i; k--)
            c[k] -= c[k - n - i];
    }
    int64_t observed = (int64_t)u; /* an integer: no ties */
    uint64_t below = 0, above = 0, total = 0;
    for (int64_t k = 0; k <= top; k++) {
        total += c[k];
        if (k <= observed)
            below += c[k];
        if (k >= observed)
            above += c[k];
    }
    free(c);
    uint64_t tail = below < above ? below : above;
    *p = fmin(1, 2 * ((double)tail / (double)total));
    return KB_OK;
}

kb_status kb_mann_whitney_test(const double *a, int64_t na, const double *b, int64_t nb,
                               kb_mann_whitney *out) {
    memset(out, 0, sizeof *out);
    if (na < 1 || nb < 1)
        return kb_fail(KB_EINVAL, "the Mann-Whitney test needs at least one value on each side");
    int64_t n = na + nb;
    tagged *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return kb_fail(KB_ENOMEM, "out of memory for %lld ranks", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        double v = i < na ? a[i] : b[i - na];
        if (isnan(v)) {
            free(all);
            return kb_fail(KB_EINVAL, "value %lld of the %s set is NaN",
                           (long long)(i < na ? i : i - na), i < na ? "first" : "second");
        }
        all[i] = (tagged){v, i < na};
    }
    qsort(all, (size_t)n, sizeof *all, compare_tagged);

    /* Midranks: a run of t equal values shares the mean of the ranks it spans, and adds
     * t^3 - t to the tie correction of the variance. */
    double rank_sum_a = 0, tie_term = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        int64_t from_a = 0;
        while (j < n && all[j].value == all[i].value)
            from_a += all[j++].from_a;
        double t = (double)(j - i), midrank = (double)(i + 1 + j) / 2;
        rank_sum_a += midrank * (double)from_a;
        tie_term += t * t * t - t;
        i = j;
    }
    free(all);

    out->u = rank_sum_a - (double)na * (double)(na + 1) / 2;
    out->ties = tie_term > 0;
    out->p_min = kb_mann_whitney_min_p(na, nb);
    if (!out->ties && n <= KB_MANN_WHITNEY_EXACT_MAX) {
        out->exact = true;
        return exact_p(na < nb ? na : nb, na < nb ? nb : na, out->u, &out->p);
    }
    double mean = (double)na * (double)nb / 2;
    double var =
        (double)na * (double)nb / 12 * ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
    if (!(var > 0)) { /* every value equal: nothing to tell the sets apart */
        out->p = 1;
        return KB_OK;
    }
    double distance = fmax(0, fabs(out->u - mean) - 0.5);
    out->z = (out->u < mean ? -distance : distance) / sqrt(var);
    out->p = fmin(1, erfc(fabs(out->z) / sqrt(2.0)));
    return KB_OK;
}

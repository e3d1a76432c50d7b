/* Sorting doubles, and the median and quantiles of sorted values, for statistics and peaks. */
#include <math.h>
#include <stdlib.h>

#include "util/sort.h"

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void kb_sort_doubles(double *v, size_t n) {
    qsort(v, n, sizeof *v, ascending);
}

double kb_median_sorted(const double *v, size_t n) {
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double kb_quantile_sorted(const double *v, size_t n, double p) {
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

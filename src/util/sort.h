#ifndef KB_UTIL_SORT_H
#define KB_UTIL_SORT_H

#include <stddef.h>

/* Sorts v ascending in place. */
void kb_sort_doubles(double *v, size_t n);

/* The median of n >= 1 sorted values: the middle one, or the mean of the middle two. */
double kb_median_sorted(const double *v, size_t n);

/* The p-quantile (0 <= p <= 1) of n >= 1 sorted values by linear interpolation between the
 * order statistics around (n - 1) p: NumPy's default ("linear", Hyndman and Fan's type 7), so
 * that numbers can be checked with np.quantile. */
double kb_quantile_sorted(const double *v, size_t n, double p);

#endif

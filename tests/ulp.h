/* Errors in units in the last place against a long double reference, as the accuracy tests
 * measure them (tests/kernels/test_ew_accuracy.c, tests/expr/test_int_power.c) and
 * docs/expressions.md reports them. */
#ifndef KB_TESTS_ULP_H
#define KB_TESTS_ULP_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

/* The error of y against the exact r in units of the last place of T at r (the spacing of T
 * where r lies; the least subnormal below the normal range): 0 when y is r correctly rounded,
 * INFINITY when they disagree on NaN, an infinity or a zero's existence. */
static inline double ulp_error(long double r, double y, bool f32) {
    if (isnan(r) || isnan(y))
        return isnan(r) && isnan(y) ? 0 : INFINITY;
    long double rounded = f32 ? (long double)(float)r : (long double)(double)r;
    if ((long double)y == rounded)
        return 0;
    if (isinf(y) || isinf(r))
        return INFINITY;
    int mant = f32 ? FLT_MANT_DIG : DBL_MANT_DIG;
    int min_exp = f32 ? FLT_MIN_EXP : DBL_MIN_EXP;
    int e;
    frexpl(r, &e);
    if (e < min_exp)
        e = min_exp;
    long double ulp = ldexpl(1.0L, e - mant);
    return (double)(fabsl((long double)y - r) / ulp);
}

#endif

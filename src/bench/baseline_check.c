/* The check of a group's output against a baseline's: same shape, then every element within
 * tolerance (kb_bench_baseline_case). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/baseline_check.h"
#include "core/internal.h"

double kb_bench_baseline_rtol(kb_dtype dtype) {
    switch (dtype) {
        case KB_F16:
        case KB_BF16:
            return 1e-2;
        case KB_F32:
            return 1e-4;
        case KB_F64:
            return 1e-12;
        default:
            return 0;
    }
}

static kb_status as_doubles(const kb_array *a, kb_array *out) {
    kb_status st = kb_array_new(out, KB_F64, a->ndim, a->shape, KB_ORDER_C);
    if (st == KB_OK && (st = kb_array_copy(out, a)) != KB_OK)
        kb_array_free(out);
    return st;
}

kb_status kb_baseline_check(const kb_bench_baseline_case *bc, const kb_array *theirs, double *error,
                            char *detail, size_t size) {
    const kb_array *ours = bc->output;
    *error = 0;
    detail[0] = '\0';
    bool same_shape = ours->ndim == theirs->ndim;
    for (int d = 0; same_shape && d < ours->ndim; d++)
        same_shape = ours->shape[d] == theirs->shape[d];
    if (!same_shape) {
        *error = INFINITY;
        snprintf(detail, size, "the baseline's result has another shape (%d dimensions)",
                 theirs->ndim);
        return KB_OK;
    }
    kb_array a, b;
    kb_status st = as_doubles(ours, &a);
    if (st != KB_OK)
        return st;
    if ((st = as_doubles(theirs, &b)) != KB_OK) {
        kb_array_free(&a);
        return st;
    }
    const double *x = a.data, *y = b.data;
    /* A library may return a coarser type than kbench (JAX's mean of integers is float32):
     * the result cannot be closer than that type's rounding. */
    double rtol = bc->exact ? 0
                            : fmax(kb_bench_baseline_rtol(ours->dtype),
                                   kb_bench_baseline_rtol(theirs->dtype));
    int64_t n = kb_array_size(&a);
    for (int64_t i = 0; i < n; i++) {
        double diff = x[i] == y[i] || (isnan(x[i]) && isnan(y[i])) ? 0 : fabs(x[i] - y[i]);
        double allowed = rtol * ((fabs(x[i]) + fabs(y[i])) / 2 + bc->atol);
        double ratio = diff == 0 ? 0 : allowed > 0 ? diff / allowed : INFINITY;
        if (isnan(ratio))
            ratio = INFINITY;
        if (ratio > 1 && *error <= 1)
            snprintf(detail, size, "element %lld: kbench %.17g, baseline %.17g (tolerance %.3g)",
                     (long long)i, x[i], y[i], allowed);
        if (ratio > *error)
            *error = ratio;
    }
    kb_array_free(&a);
    kb_array_free(&b);
    return KB_OK;
}

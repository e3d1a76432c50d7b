#ifndef KB_EXPR_REDUCTION_CALL_H
#define KB_EXPR_REDUCTION_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/graph.h"
#include "kbench/reduce.h"

/* A call to a reduction, checked against NumPy's signature of the function (np.sum(a, axis,
 * dtype, out, keepdims), np.var(a, axis, dtype, out, ddof, keepdims), np.argmax(a, axis, out,
 * keepdims), ...; dtype and out only as None), before anything is computed. Axes are kept as
 * written (int64): whether one is in range depends on the array, known only once the
 * argument is evaluated. */
typedef struct kb_expr_reduction {
    kb_reduce_op op;
    int array; /* the node of the array argument */
    int naxes; /* -1 for None */
    int64_t axes[KB_MAX_DIMS];
    int axes_column; /* where the axis value is written; the call's column without one */
    bool axis_tuple; /* the axes were written as a tuple */
    bool keepdims;
    double ddof; /* an integer, a float or a bool, as NumPy takes it */
} kb_expr_reduction;

/* Resolves the call node (an optional "np." prefix is allowed on the name). Fails with the
 * column of the offending name or value: an unknown function or keyword, a repeated
 * keyword, a missing or extra positional argument, a value of the wrong type. */
kb_status kb_expr_reduction_resolve(const kb_expr *expr, int call, kb_expr_reduction *out);

/* The arguments for kb_reduce on an array of ndim dimensions. Fails only on values beyond
 * int, which no array's axes reach. On a 0-d array, sum, prod, min, max, argmin and argmax
 * take axis 0 or -1 (not as a tuple) as NumPy's ufunc reductions do: as the whole array. */
kb_status kb_expr_reduction_args(const kb_expr_reduction *call, int ndim, kb_reduce_args *out);

#endif

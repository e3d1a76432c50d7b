#ifndef KB_EXPR_REDUCTION_CALL_H
#define KB_EXPR_REDUCTION_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/graph.h"
#include "kbench/reduce.h"

/* A call to a reduction, checked against its signature, f(array, axis=None, keepdims=False,
 * ddof=0), before anything is computed. Values are kept as written (int64): whether an axis
 * is in range depends on the array, known only once the argument is evaluated. */
typedef struct kb_expr_reduction {
    kb_reduce_op op;
    int array; /* the node of the array argument */
    int naxes; /* -1 for None */
    int64_t axes[KB_MAX_DIMS];
    int axes_column; /* where the axis value is written; the call's column without one */
    bool keepdims;
    int64_t ddof;
    int ddof_column;
} kb_expr_reduction;

/* Resolves the call node (an optional "np." prefix is allowed on the name). Fails with the
 * column of the offending name or value: an unknown function or keyword, a repeated
 * keyword, a missing or extra positional argument, a value of the wrong type. */
kb_status kb_expr_reduction_resolve(const kb_expr *expr, int call, kb_expr_reduction *out);

/* The arguments for kb_reduce on an array of ndim dimensions. Fails only on values beyond
 * int, which no array's axes reach. */
kb_status kb_expr_reduction_args(const kb_expr_reduction *call, int ndim, kb_reduce_args *out);

#endif

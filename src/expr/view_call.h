#ifndef KB_EXPR_VIEW_CALL_H
#define KB_EXPR_VIEW_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/graph.h"
#include "kbench/array.h"

/* Calls that reorder an array's axes without computing: transpose(x), transpose(x, axes),
 * permute_dims(x, axes) and permute(x, axes) (NumPy's np.transpose and np.permute_dims; permute
 * is PyTorch's name). The result is a view: the same elements under permuted shape and
 * strides. */
typedef struct kb_expr_view {
    int array; /* the node of the array argument */
    int naxes; /* -1: reverse the axes (transpose without axes) */
    int64_t axes[KB_MAX_DIMS];
    int axes_column; /* where the axes are written; the call's column without them */
    int column;      /* the call's */
} kb_expr_view;

/* Whether name (an optional "np." prefix allowed) is one of these calls. */
bool kb_expr_is_view(const char *name);

/* Resolves the call node: its arguments' number, keywords and types. */
kb_status kb_expr_view_resolve(const kb_expr *expr, int call, kb_expr_view *out);

/* The permutation for an array of ndim dimensions: perm[i] is the input axis that becomes
 * axis i. Fails as NumPy does on axes that do not match the array, repeat, or are out of
 * range. */
kb_status kb_expr_view_perm(const kb_expr_view *view, int ndim, int *perm);

/* Applies perm to a's shape and strides in place. */
void kb_expr_view_apply(kb_array *a, const int *perm);

#endif

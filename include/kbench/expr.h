#ifndef KBENCH_EXPR_H
#define KBENCH_EXPR_H

#include "kbench/array.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Expressions over arrays, written in NumPy's syntax.
 *
 * An expression is parsed once into a graph (kb_expr) and evaluated on arrays bound to its
 * variable names. The language today is one reduction call, possibly nested:
 *
 *     mean(x, axis=0)    np.var(x, axis=(0, 2), ddof=1, keepdims=True)    sum(max(x, axis=-1))
 *
 * The functions are sum, prod, mean, min, max, argmin, argmax, var and std (with or without
 * NumPy's "np." prefix); each takes one array and NumPy's parameters after it, by position or
 * keyword: axis (an integer, a tuple of integers or None; axis 0 or -1 of a 0-d array is all
 * of it for the ufunc reductions, as in NumPy), keepdims (True, False or an integer), for var
 * and std ddof (an integer, a float or a bool), and dtype and out only as None. A bare
 * variable is the identity, and a number is a 0-d array (int64, float64; True and False are
 * bool). The grammar also accepts + - * / for the elementwise arithmetic to come; evaluating
 * them fails for now.
 *
 * An error in the expression fails with a one-line message that ends with " at column N"
 * (1-based, counted in bytes of the source) and points at the offending token, such as
 * "unknown keyword 'axes' at column 9": KB_EFORMAT for syntax, KB_EINVAL for names and
 * values (including kb_reduce's own complaints, such as an axis out of range, which point at
 * the call), KB_EUNSUPPORTED for the limits below and for arithmetic. */

/* Parsing refuses sources longer than this, and nesting deeper than KB_EXPR_MAX_DEPTH
 * (parentheses, calls, arguments and operators each count one level), so that neither the
 * parser nor the evaluator, both recursive, can exhaust the stack. */
#define KB_EXPR_MAX_LENGTH (1 << 20)
#define KB_EXPR_MAX_DEPTH 64

typedef struct kb_expr kb_expr;

/* Parses a NUL-terminated source into a new expression, freed with kb_expr_free. On failure
 * *out is NULL. */
kb_status kb_expr_parse(const char *source, kb_expr **out);

/* Frees an expression; NULL is allowed. */
void kb_expr_free(kb_expr *expr);

/* A variable of the expression and the array it stands for. */
typedef struct kb_expr_binding {
    const char *name;
    const kb_array *array;
} kb_expr_binding;

/* Evaluates the expression into a new array that the caller frees with kb_array_free. The
 * bindings are only read; a name bound twice takes the first binding. Reductions run at the
 * dispatch level and thread count in force (kbench/simd.h, kbench/threads.h). */
kb_status kb_expr_eval(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                       kb_array *out);

/* Receives each warning NumPy would raise as a RuntimeWarning, in NumPy's words ("Mean of
 * empty slice", "Degrees of freedom <= 0 for slice", "invalid value encountered in reduce",
 * ...); the results are those NumPy gives (NaN, inf). */
typedef void (*kb_expr_warning)(const char *message, void *context);

/* kb_expr_eval, calling warn (when not NULL) with the warnings of each reduction and
 * elementwise operation. */
kb_status kb_expr_eval_warn(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                            kb_array *out, kb_expr_warning warn, void *context);

/* A Python scalar bound to a name (alpha=0.5): weak in promotion, as NEP 50 says, so that
 * x * alpha keeps a float32 x in float32. dtype is KB_BOOL, KB_INT64 or KB_F64 (Python's
 * bool, int and float), with the value in the matching member. */
typedef struct kb_expr_scalar {
    const char *name;
    kb_dtype dtype;
    union {
        bool b;
        int64_t i;
        double f;
    } value;
} kb_expr_scalar;

/* Everything an evaluation reads besides the expression; zero-initialize, then set what is
 * used. A name is looked up among the expression's own assignments, then the arrays, then the
 * scalars. */
typedef struct kb_expr_inputs {
    const kb_expr_binding *bindings;
    int nbindings;
    const kb_expr_scalar *scalars;
    int nscalars;
    kb_expr_warning warn; /* NULL: no warnings */
    void *context;        /* passed to warn */
} kb_expr_inputs;

/* kb_expr_eval with scalars as well as arrays. */
kb_status kb_expr_eval_inputs(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *out);

#ifdef __cplusplus
}
#endif

#endif

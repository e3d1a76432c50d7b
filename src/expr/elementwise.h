#ifndef KB_EXPR_ELEMENTWISE_H
#define KB_EXPR_ELEMENTWISE_H

#include <stdbool.h>

#include "kbench/array.h"
#include "expr/hooks.h"
#include "kernels/ew.h"
#include "kbench/expr.h"

/* Values of expression nodes, and the elementwise operators and functions on them
 * (elementwise.c).
 *
 * What the evaluator computes for a node: an array, owned or borrowed, and whether it is a
 * Python scalar (a literal, a scalar binding, or arithmetic on those only), which promotion
 * treats as weak (expr/promote.h). A weak value is a 0-d bool, int64 or float64 array. */
typedef struct kb_expr_value {
    kb_array array;
    bool borrowed; /* a view of a binding or a variable; must not be written or freed */
    bool weak;
} kb_expr_value;

static inline void kb_expr_value_free(kb_expr_value *v) {
    if (!v->borrowed)
        kb_array_free(&v->array);
    v->borrowed = true; /* freed once */
}

/* The elementwise functions of the language (NumPy's and SciPy's names): abs, sqrt, ...,
 * maximum, where, clip, astype. Whether name (with an optional "np." prefix) is one. */
bool kb_expr_is_elementwise(const char *name);

/* How many leading arguments of the function are arrays, to be evaluated (astype's second is
 * a dtype); 0 for a name that is not an elementwise function. */
int kb_expr_elementwise_arrays(const char *name);

/* Calls the elementwise function of call node index on the values of its arguments, already
 * evaluated (args, nargs; consumed: freed here). Keywords are refused. */
kb_status kb_expr_call_elementwise(const kb_expr *expr, int index, kb_expr_value *args, int nargs,
                                   kb_expr_value *out, const kb_expr_hooks *hooks);

/* The operator of a UNARY or BINARY node on its operands' values (consumed). */
kb_status kb_expr_operator(const kb_expr *expr, int index, kb_expr_value *args, kb_expr_value *out,
                           const kb_expr_hooks *hooks);

/* One kernel op of an elementwise call or operator, as the fused planner runs it: op on nin
 * operands, each an argument of the node (its index) or -1 for the previous step's result,
 * computed in loop (each operand cast to it, where's condition to bool) into out. */
typedef struct kb_expr_ew_step {
    const char *ufunc; /* its name, as the eager evaluator's plans give it */
    kb_ew_op op;
    int nin;
    int operand[3];
    kb_dtype loop, out;
} kb_expr_ew_step;

/* The most steps one node takes: clip's two, or x ** k's (expr/int_power.h). */
enum { KB_EXPR_EW_MAX_STEPS = 2 };

/* The steps (one; two for clip; those of x ** k for a small integer k) by which the eager evaluator
 * would compute node index on operands like args (their dtypes, weak flags and weak values; strong
 * arrays' data is not read), and whether the result is weak. Fails with the eager evaluator's
 * error, or KB_EUNSUPPORTED for what the fused executor leaves to the eager one (astype, integer
 * clip, uint64 compared with a signed type). */
kb_status kb_expr_ew_steps(const kb_expr *expr, int index, kb_expr_value *args, int nargs,
                           kb_expr_ew_step *steps, int *nsteps, bool *weak);

#endif

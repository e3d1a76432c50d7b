#ifndef KB_EXPR_EAGER_H
#define KB_EXPR_EAGER_H

#include "expr/hooks.h"
#include "kbench/expr.h"

/* The evaluators' common entry points (eval.c) and the fused one (fused_eval.c). */

/* The node that gives the results: the root, or a program's last statement. */
int kb_expr_result_node(const kb_expr *expr);

/* Checks what kb_expr_eval_results is given: the arguments, the mode, and that nouts is the
 * number of results. */
kb_status kb_expr_check_inputs(const kb_expr *expr, const kb_expr_inputs *inputs, int nouts);

/* The eager evaluator, recording each kernel it runs in trace when not NULL. */
kb_status kb_expr_eval_eager(const kb_expr *expr, const kb_expr_inputs *inputs,
                             kb_expr_trace *trace, kb_array *outs, int nouts);

/* The fused evaluator: plans, then runs the plan's kernels; an expression it does not plan
 * is evaluated by the eager one. */
kb_status kb_expr_eval_fused(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                             int nouts);

#endif

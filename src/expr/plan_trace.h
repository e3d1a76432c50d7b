#ifndef KB_EXPR_PLAN_TRACE_H
#define KB_EXPR_PLAN_TRACE_H

#include "kbench/expr.h"

/* The eager plan of an expression on these inputs, traced from an eager evaluation (whose
 * results are dropped) into plan, which the caller has zeroed. */
kb_status kb_expr_trace_eager(const kb_expr *expr, const kb_expr_inputs *inputs,
                              kb_expr_plan *plan);

#endif

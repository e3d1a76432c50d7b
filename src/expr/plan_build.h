#ifndef KB_EXPR_PLAN_BUILD_H
#define KB_EXPR_PLAN_BUILD_H

#include <stddef.h>

#include "kbench/expr.h"

/* Building a kb_expr_plan kernel by kernel, for the eager tracer (plan_trace.c) and the fused
 * planner (plan_fuse.c), so that both count traffic by the same rules: a buffer counts once
 * per kernel (by name), with all its elements. */

/* Appends an empty kernel; *out stays valid until the next kernel is added. */
kb_status kb_plan_add_kernel(kb_expr_plan *plan, kb_expr_kernel **out);

/* Appends op to the kernel's list of operations ("max, sub, exp"). */
void kb_plan_kernel_op(kb_expr_kernel *k, const char *op);

/* Counts a buffer read or written by the kernel, once per name. */
kb_status kb_plan_kernel_read(kb_expr_kernel *k, const char *name, kb_dtype dtype,
                              int64_t elements);
kb_status kb_plan_kernel_write(kb_expr_kernel *k, const char *name, kb_dtype dtype,
                               int64_t elements);

/* Sums the kernels' traffic into the plan's numel and bytes. */
void kb_plan_total(kb_expr_plan *plan);

/* A shape as NumPy prints it, "(10,10)", "(10,)", "()". */
void kb_plan_shape_text(char *buf, size_t size, int ndim, const int64_t *shape);

#endif

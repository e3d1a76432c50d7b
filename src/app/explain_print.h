#ifndef KB_APP_EXPLAIN_PRINT_H
#define KB_APP_EXPLAIN_PRINT_H

#include <stdio.h>

#include "kbench/expr.h"

/* `kbench eval --explain`: a plan as text (a block per kernel: its ops, loops and traffic,
 * then the totals) or as JSON (top-level "mode", "numel", "bytes", "kernels" (the count),
 * "note" and "plan": one object per kernel). KB_ENOMEM or KB_EIO with a message when it cannot
 * be written. */
kb_status kb_explain_print_text(const kb_expr_plan *plan, FILE *out);
kb_status kb_explain_print_json(const kb_expr_plan *plan, FILE *out);

#endif

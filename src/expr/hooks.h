#ifndef KB_EXPR_HOOKS_H
#define KB_EXPR_HOOKS_H

#include "kbench/array.h"
#include "kbench/expr.h"

/* What an eager evaluation calls out to as it goes: the caller's handler of NumPy's warnings,
 * and, when kb_expr_explain traces an eager plan, the tracer that records each kernel the
 * evaluation runs (plan_trace.c). */
typedef struct kb_expr_trace kb_expr_trace;

typedef struct kb_expr_hooks {
    kb_expr_warning warn; /* NULL: none */
    void *context;
    kb_expr_trace *trace; /* NULL: none */
} kb_expr_hooks;

/* Records one kernel of an eager evaluation: op reads the strong arrays among in (weak ones,
 * Python scalars, are constants) and writes out. A failure to record (memory) is kept and
 * reported when the trace is finished. */
void kb_expr_trace_kernel(kb_expr_trace *trace, const char *op, const kb_array *const *in,
                          const bool *weak, int nin, const kb_array *out);

static inline void kb_expr_hooks_warn(const kb_expr_hooks *h, const char *message) {
    if (h->warn)
        h->warn(message, h->context);
}

#endif

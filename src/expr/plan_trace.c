/* Eager plans, traced: each kernel the eager evaluator runs, with the buffers it reads and
 * writes, recorded as it runs (kb_expr_explain in eager mode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/eager.h"
#include "expr/hooks.h"
#include "expr/plan_build.h"
#include "expr/plan_trace.h"

/* Buffers are told apart by their data pointers: a binding's is its name; each array the
 * evaluator writes gets the next "tN" (a pointer freed and reused names the new array). Views
 * such as a transpose share their buffer's pointer, and its name. */
typedef struct named {
    const void *data;
    char name[32];
} named;

struct kb_expr_trace {
    kb_expr_plan *plan;
    named *names;
    int count, capacity, temporaries;
    kb_status failed;
};

static const char *name_of(kb_expr_trace *t, const void *data) {
    for (int i = t->count - 1; i >= 0; i--)
        if (t->names[i].data == data)
            return t->names[i].name;
    return "?";
}

static kb_status add_name(kb_expr_trace *t, const void *data, const char *name) {
    if (t->count == t->capacity) {
        int capacity = t->capacity ? 2 * t->capacity : 16;
        named *grown = realloc(t->names, (size_t)capacity * sizeof *grown);
        if (!grown)
            return kb_fail(KB_ENOMEM, "out of memory for a plan");
        t->names = grown;
        t->capacity = capacity;
    }
    t->names[t->count].data = data;
    snprintf(t->names[t->count].name, sizeof t->names[t->count].name, "%s", name);
    t->count++;
    return KB_OK;
}

static int64_t numel(const kb_array *a) {
    int64_t n = 1;
    for (int d = 0; d < a->ndim; d++)
        n *= a->shape[d];
    return n;
}

void kb_expr_trace_kernel(kb_expr_trace *t, const char *op, const kb_array *const *in,
                          const bool *weak, int nin, const kb_array *out) {
    if (t->failed != KB_OK)
        return;
    kb_expr_kernel *k;
    kb_status st = kb_plan_add_kernel(t->plan, &k);
    kb_plan_kernel_op(k, op);
    char from[96], to[96];
    kb_plan_shape_text(from, sizeof from, in[0]->ndim, in[0]->shape);
    kb_plan_shape_text(to, sizeof to, out->ndim, out->shape);
    for (int i = 0; i < nin && st == KB_OK; i++) {
        if (weak[i])
            continue;
        st = kb_plan_kernel_read(k, name_of(t, in[i]->data), in[i]->dtype, numel(in[i]));
    }
    if (nin == 1 && numel(out) < numel(in[0]))
        snprintf(k->loops, sizeof k->loops, "%s reduced to %s", from, to);
    else
        snprintf(k->loops, sizeof k->loops, "over %s", to);
    char name[32];
    snprintf(name, sizeof name, "t%d", ++t->temporaries);
    if (st == KB_OK)
        st = add_name(t, out->data, name);
    if (st == KB_OK)
        st = kb_plan_kernel_write(k, name, out->dtype, numel(out));
    t->failed = st;
}

kb_status kb_expr_trace_eager(const kb_expr *expr, const kb_expr_inputs *inputs,
                              kb_expr_plan *plan) {
    kb_expr_trace t = {.plan = plan};
    kb_status st = KB_OK;
    for (int i = 0; i < inputs->nbindings && st == KB_OK; i++)
        st = add_name(&t, inputs->bindings[i].array->data, inputs->bindings[i].name);
    int nouts = kb_expr_result_count(expr);
    kb_array *outs = NULL;
    if (st == KB_OK && !(outs = calloc((size_t)(nouts > 0 ? nouts : 1), sizeof *outs)))
        st = kb_fail(KB_ENOMEM, "out of memory for a plan");
    if (st == KB_OK)
        st = kb_expr_eval_eager(expr, inputs, &t, outs, nouts);
    if (st == KB_OK) {
        for (int i = 0; i < nouts; i++)
            kb_array_free(&outs[i]);
        st = t.failed;
    }
    free(outs);
    free(t.names);
    if (st == KB_OK)
        kb_plan_total(plan);
    return st;
}

/* The eager evaluator of expression graphs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/graph.h"
#include "expr/eager.h"
#include "expr/elementwise.h"
#include "expr/reduction_call.h"
#include "expr/view_call.h"
#include "kbench/expr.h"
#include "kbench/reduce.h"

/* The eager evaluator: each node becomes an array, children first, as NumPy computes each
 * operation into a temporary. A variable evaluates to a borrowed view of its binding (or of
 * the value an earlier statement assigned to it), so sum(x) reads x in place; everything else
 * is a new array that the evaluator frees as soon as its consumer is done with it. */

/* A name assigned by a statement, and its value, owned until the evaluation ends. */
typedef struct assigned {
    const char *name;
    kb_expr_value value;
} assigned;

typedef struct evaluator {
    const kb_expr *expr;
    const kb_expr_binding *bindings;
    int nbindings;
    const kb_expr_scalar *scalars;
    int nscalars;
    kb_expr_hooks hooks;
    assigned *vars; /* one per ASSIGN statement at most */
    int nvars;
} evaluator;

typedef kb_expr_value value;

static void value_free(value *v) {
    kb_expr_value_free(v);
}

static kb_status borrow(const kb_array *a, value *out) {
    out->borrowed = true;
    return kb_array_view(&out->array, a->dtype, a->ndim, a->shape, a->strides, a->data,
                         a->flags | KB_ARRAY_READONLY);
}

static kb_status eval_node(evaluator *ev, int index, value *out);

/* A statement that is neither an assignment nor the last: evaluated for its errors, as
 * Python would, and dropped. */
static kb_status eval_discarded(evaluator *ev, int index) {
    value v = {.borrowed = false};
    kb_status st = eval_node(ev, index, &v);
    if (st == KB_OK)
        value_free(&v);
    return st;
}

/* A Python scalar: a weak 0-d array of the type NumPy maps it to. */
static kb_status make_scalar(kb_dtype dtype, const void *bytes, value *out) {
    kb_status st = kb_array_new(&out->array, dtype, 0, NULL, KB_ORDER_C);
    if (st != KB_OK)
        return st;
    memcpy(out->array.data, bytes, kb_dtype_size(dtype));
    out->weak = true;
    return KB_OK;
}

static kb_status eval_variable(evaluator *ev, const kb_expr_node *n, value *out) {
    /* The latest assignment wins, as in Python. */
    for (int i = ev->nvars - 1; i >= 0; i--)
        if (strcmp(ev->vars[i].name, n->name) == 0) {
            out->weak = ev->vars[i].value.weak;
            return borrow(&ev->vars[i].value.array, out);
        }
    for (int i = 0; i < ev->nbindings; i++)
        if (strcmp(ev->bindings[i].name, n->name) == 0)
            return borrow(ev->bindings[i].array, out);
    for (int i = 0; i < ev->nscalars; i++) {
        const kb_expr_scalar *s = &ev->scalars[i];
        if (strcmp(s->name, n->name) != 0)
            continue;
        if (s->dtype == KB_INT64)
            return make_scalar(KB_INT64, &s->value.i, out);
        if (s->dtype == KB_F64)
            return make_scalar(KB_F64, &s->value.f, out);
        bool b = s->value.b;
        return make_scalar(KB_BOOL, &b, out);
    }
    return kb_expr_fail_at(KB_EINVAL, n->column, "unknown variable '%s'", n->name);
}

/* A number is a 0-d array of Python's types as NumPy maps them, and weak. */
static kb_status eval_literal(const kb_expr_node *n, value *out) {
    if (n->kind == KB_EXPR_INT)
        return make_scalar(KB_INT64, &n->value.i, out);
    if (n->kind == KB_EXPR_FLOAT)
        return make_scalar(KB_F64, &n->value.f, out);
    bool b = n->value.b;
    return make_scalar(KB_BOOL, &b, out);
}

/* Whether a float array holds a NaN (nan) or an infinity (!nan). */
static bool has_value(const kb_array *a, bool nan) {
    if (!kb_dtype_is_float(a->dtype))
        return false;
    kb_walk w;
    kb_walk_init(&w, a);
    char *row;
    while (kb_walk_next(&w, &row))
        for (int64_t i = 0; i < w.row_length; i++) {
            double v = (double)kb_element_load(a->dtype, row + i * w.row_stride).real;
            if (nan ? isnan(v) : isinf(v))
                return true;
        }
    return false;
}

/* NumPy's RuntimeWarnings of one reduction of in into result, in its words and order (NumPy
 * 2.4): an empty mean, a variance with no degrees of freedom, each followed by the warnings of
 * NumPy's divisions, and an invalid value (NaN out of inputs without one, such as inf - inf).
 * argmin, argmax, min and max of NaN-free inputs raise none. */
static void warn_reduction(evaluator *ev, const kb_reduce_args *args, const kb_array *in,
                           const kb_array *result) {
    kb_reduce_work work;
    if (!ev->hooks.warn || kb_reduce_work_of(in, args, &work) != KB_OK || work.outputs == 0)
        return;
    int64_t count = work.elements / work.outputs;
    const char *divide = result->ndim == 0 ? "scalar divide" : "divide";
    char message[96];
    bool nan = has_value(result, true);
    if (args->op == KB_REDUCE_MEAN && count == 0) {
        kb_expr_hooks_warn(&ev->hooks, "Mean of empty slice");
        snprintf(message, sizeof message, "invalid value encountered in %s", divide);
        kb_expr_hooks_warn(&ev->hooks, message);
    } else if ((args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD) &&
               (double)count - args->ddof <= 0) {
        kb_expr_hooks_warn(&ev->hooks, "Degrees of freedom <= 0 for slice");
        if (count == 0) /* the mean's 0 / 0, always an array division in NumPy */
            kb_expr_hooks_warn(&ev->hooks, "invalid value encountered in divide");
        if (nan || has_value(result, false)) {
            snprintf(message, sizeof message, "%s encountered in %s",
                     nan ? "invalid value" : "divide by zero", divide);
            kb_expr_hooks_warn(&ev->hooks, message);
        }
    } else if (nan && args->op != KB_REDUCE_MIN && args->op != KB_REDUCE_MAX &&
               !has_value(in, true)) {
        /* inf - inf: in the sum for sum, prod and mean, in the deviations for var and std */
        bool moments = args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD;
        kb_expr_hooks_warn(&ev->hooks, moments ? "invalid value encountered in subtract"
                                               : "invalid value encountered in reduce");
    }
}

/* An elementwise function: its array arguments evaluated in order (astype's second is a
 * dtype, read by the call). */
static kb_status eval_elementwise(evaluator *ev, const kb_expr_node *n, int index, value *out) {
    value args[3];
    int nargs = 0;
    kb_status st = KB_OK;
    for (int c = n->first_child; c >= 0 && st == KB_OK;
         c = kb_expr_node_at(ev->expr, c)->next_sibling) {
        const kb_expr_node *arg = kb_expr_node_at(ev->expr, c);
        if (arg->kind == KB_EXPR_KEYWORD || nargs == kb_expr_elementwise_arrays(n->name))
            break; /* the call refuses it, with its column, or reads it (a dtype) */
        memset(&args[nargs], 0, sizeof args[nargs]);
        st = eval_node(ev, c, &args[nargs]);
        if (st == KB_OK)
            nargs++;
    }
    if (st != KB_OK) {
        for (int i = 0; i < nargs; i++)
            value_free(&args[i]);
        return st;
    }
    return kb_expr_call_elementwise(ev->expr, index, args, nargs, out, &ev->hooks);
}

/* transpose and permute: a view of the argument's value, which keeps its ownership (a
 * temporary moves into the view, a borrowed value stays borrowed). NumPy's transpose of a
 * Python scalar is a 0-d array, no longer weak. */
static kb_status eval_view(evaluator *ev, int index, value *out) {
    kb_expr_view view;
    KB_TRY(kb_expr_view_resolve(ev->expr, index, &view));
    KB_TRY(eval_node(ev, view.array, out));
    int perm[KB_MAX_DIMS];
    kb_status st = kb_expr_view_perm(&view, out->array.ndim, perm);
    if (st != KB_OK) {
        value_free(out);
        return st;
    }
    kb_expr_view_apply(&out->array, perm);
    out->weak = false;
    return KB_OK;
}

static kb_status eval_call(evaluator *ev, const kb_expr_node *n, int index, value *out) {
    if (kb_expr_is_elementwise(n->name))
        return eval_elementwise(ev, n, index, out);
    if (kb_expr_is_view(n->name))
        return eval_view(ev, index, out);
    kb_expr_reduction call;
    kb_status st = kb_expr_reduction_resolve(ev->expr, index, &call);
    if (st != KB_OK)
        return st;
    value in = {.borrowed = false};
    st = eval_node(ev, call.array, &in);
    if (st != KB_OK)
        return st;
    kb_reduce_args args;
    st = kb_expr_reduction_args(&call, in.array.ndim, &args);
    if (st == KB_OK) {
        /* What kb_reduce_result refuses (an axis out of range or repeated, an empty min) is
         * the call's fault: say which call, as there may be several. What only kb_reduce can
         * fail on (memory, an invalid KB_SIMD) has no column. */
        kb_dtype dtype;
        int ndim;
        int64_t shape[KB_MAX_DIMS];
        st = kb_reduce_result(&in.array, &args, &dtype, &ndim, shape);
        if (st != KB_OK)
            st = kb_expr_fail_here(st, n->column);
        else if ((st = kb_reduce(&in.array, &args, &out->array)) == KB_OK) {
            warn_reduction(ev, &args, &in.array, &out->array);
            if (ev->hooks.trace) {
                const kb_array *arrays[1] = {&in.array};
                bool weak = false;
                kb_expr_trace_kernel(ev->hooks.trace, kb_reduce_op_name(args.op), arrays, &weak, 1,
                                     &out->array);
            }
        }
    }
    value_free(&in);
    return st;
}

static kb_status eval_operator(evaluator *ev, const kb_expr_node *n, int index, value *out) {
    value args[2];
    int nargs = 0;
    kb_status st = KB_OK;
    for (int c = n->first_child; c >= 0 && st == KB_OK;
         c = kb_expr_node_at(ev->expr, c)->next_sibling) {
        memset(&args[nargs], 0, sizeof args[nargs]);
        if ((st = eval_node(ev, c, &args[nargs])) == KB_OK)
            nargs++;
    }
    if (st != KB_OK) {
        for (int i = 0; i < nargs; i++)
            value_free(&args[i]);
        return st;
    }
    return kb_expr_operator(ev->expr, index, args, out, &ev->hooks);
}

/* The statements before the last, in order; each assignment's value joins the evaluator's
 * variables for the names after it. */
static kb_status run_statements(evaluator *ev, const kb_expr_node *n) {
    for (int c = n->first_child; c != n->last_child;
         c = kb_expr_node_at(ev->expr, c)->next_sibling) {
        const kb_expr_node *statement = kb_expr_node_at(ev->expr, c);
        if (statement->kind != KB_EXPR_ASSIGN) {
            KB_TRY(eval_discarded(ev, c));
            continue;
        }
        value v = {.borrowed = false};
        KB_TRY(eval_node(ev, statement->first_child, &v));
        /* y = x keeps a view of x's binding or of an earlier variable: both outlive it. */
        ev->vars[ev->nvars].name = statement->name;
        ev->vars[ev->nvars].value = v;
        ev->nvars++;
    }
    return KB_OK;
}

static kb_status eval_node(evaluator *ev, int index, value *out) {
    const kb_expr_node *n = kb_expr_node_at(ev->expr, index);
    memset(out, 0, sizeof *out);
    switch (n->kind) {
        case KB_EXPR_NAME:
            return eval_variable(ev, n, out);
        case KB_EXPR_INT:
        case KB_EXPR_FLOAT:
        case KB_EXPR_BOOL:
            return eval_literal(n, out);
        case KB_EXPR_CALL:
            return eval_call(ev, n, index, out);
        case KB_EXPR_NONE:
            return kb_expr_fail_at(KB_EINVAL, n->column, "expected an array, not None");
        case KB_EXPR_TUPLE:
            return kb_expr_fail_at(KB_EINVAL, n->column, "expected an array, not a tuple");
        case KB_EXPR_UNARY:
        case KB_EXPR_BINARY:
            return eval_operator(ev, n, index, out);
        case KB_EXPR_STRING:
            return kb_expr_fail_at(KB_EINVAL, n->column, "expected an array, not a string");
        case KB_EXPR_PROGRAM: /* only ever the root, run by the entry point */
        case KB_EXPR_ASSIGN:  /* only ever a program's child, run by the program */
        case KB_EXPR_KEYWORD: /* only ever a call's child, read by the call */
            break;
    }
    return kb_expr_fail_at(KB_EINVAL, n->column, "unexpected node in the expression");
}

int kb_expr_result_node(const kb_expr *expr) {
    const kb_expr_node *root = kb_expr_node_at(expr, expr->root);
    return root->kind == KB_EXPR_PROGRAM ? root->last_child : expr->root;
}

int kb_expr_result_count(const kb_expr *expr) {
    if (!expr || expr->root < 0)
        return 0;
    const kb_expr_node *last = kb_expr_node_at(expr, kb_expr_result_node(expr));
    return last->kind == KB_EXPR_TUPLE ? last->nchildren : 1;
}

kb_status kb_expr_check_inputs(const kb_expr *expr, const kb_expr_inputs *inputs, int nouts) {
    if (!expr || expr->root < 0 || !inputs || inputs->nbindings < 0 || inputs->nscalars < 0 ||
        (inputs->nbindings > 0 && !inputs->bindings) || (inputs->nscalars > 0 && !inputs->scalars))
        return kb_fail(KB_EINVAL, "kb_expr_eval: invalid arguments");
    for (int i = 0; i < inputs->nbindings; i++)
        if (!inputs->bindings[i].name || !inputs->bindings[i].array)
            return kb_fail(KB_EINVAL, "kb_expr_eval: binding %d has no name or no array", i);
    for (int i = 0; i < inputs->nscalars; i++) {
        kb_dtype t = inputs->scalars[i].dtype;
        if (!inputs->scalars[i].name || (t != KB_BOOL && t != KB_INT64 && t != KB_F64))
            return kb_fail(KB_EINVAL,
                           "kb_expr_eval: scalar %d has no name or is not bool, int64 or float64",
                           i);
    }
    if (inputs->mode != KB_EXPR_FUSED && inputs->mode != KB_EXPR_EAGER)
        return kb_fail(KB_EINVAL, "kb_expr_eval: unknown mode %d", (int)inputs->mode);
    int count = kb_expr_result_count(expr);
    if (count == 0) {
        const kb_expr_node *last = kb_expr_node_at(expr, kb_expr_result_node(expr));
        return kb_expr_fail_at(KB_EINVAL, last->column, "an empty tuple gives no result");
    }
    if (nouts != count) {
        const kb_expr_node *last = kb_expr_node_at(expr, kb_expr_result_node(expr));
        return kb_expr_fail_at(KB_EINVAL, last->column,
                               "the expression gives %d result%s, not %d%s", count,
                               count == 1 ? "" : "s", nouts,
                               nouts == 1 ? " (evaluate it with kb_expr_eval_results)" : "");
    }
    return KB_OK;
}

/* One result: a variable's value is copied, so that the caller gets its own array, as from
 * any other expression, never a view of memory it lent or the evaluator frees. */
static kb_status take_result(evaluator *ev, value *result, kb_array *out) {
    if (!result->borrowed) {
        *out = result->array;
        return KB_OK;
    }
    const kb_array *in = &result->array;
    kb_status st = kb_array_new(out, in->dtype, in->ndim, in->shape, KB_ORDER_C);
    if (st == KB_OK)
        st = kb_array_copy(out, in);
    if (st != KB_OK) {
        kb_array_free(out);
        return st;
    }
    if (ev->hooks.trace) {
        bool weak = false;
        kb_expr_trace_kernel(ev->hooks.trace, "copy", &in, &weak, 1, out);
    }
    return KB_OK;
}

kb_status kb_expr_eval_eager(const kb_expr *expr, const kb_expr_inputs *inputs,
                             kb_expr_trace *trace, kb_array *outs, int nouts) {
    for (int i = 0; i < nouts; i++)
        memset(&outs[i], 0, sizeof outs[i]);
    KB_TRY(kb_expr_check_inputs(expr, inputs, nouts));
    evaluator ev = {expr,
                    inputs->bindings,
                    inputs->nbindings,
                    inputs->scalars,
                    inputs->nscalars,
                    {inputs->warn, inputs->context, trace},
                    NULL,
                    0};
    const kb_expr_node *root = kb_expr_node_at(expr, expr->root);
    kb_status st = KB_OK;
    if (root->kind == KB_EXPR_PROGRAM) {
        ev.vars = calloc((size_t)root->nchildren, sizeof *ev.vars);
        if (!ev.vars)
            return kb_fail(KB_ENOMEM, "out of memory for an expression's variables");
        st = run_statements(&ev, root);
    }
    int last = kb_expr_result_node(expr);
    const kb_expr_node *result = kb_expr_node_at(expr, last);
    bool tuple = result->kind == KB_EXPR_TUPLE;
    int done = 0;
    for (int c = tuple ? result->first_child : last; st == KB_OK && c >= 0;
         c = tuple ? kb_expr_node_at(expr, c)->next_sibling : -1) {
        value v = {.borrowed = false};
        if ((st = eval_node(&ev, c, &v)) == KB_OK &&
            (st = take_result(&ev, &v, &outs[done])) == KB_OK)
            done++;
    }
    if (st != KB_OK)
        for (int i = 0; i < done; i++)
            kb_array_free(&outs[i]);
    for (int i = 0; i < ev.nvars; i++)
        value_free(&ev.vars[i].value);
    free(ev.vars);
    return st;
}

kb_status kb_expr_eval_results(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                               int nouts) {
    if (inputs && inputs->mode == KB_EXPR_FUSED)
        return kb_expr_eval_fused(expr, inputs, outs, nouts);
    return kb_expr_eval_eager(expr, inputs, NULL, outs, nouts);
}

kb_status kb_expr_eval_inputs(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *out) {
    return kb_expr_eval_results(expr, inputs, out, 1);
}

kb_status kb_expr_eval_warn(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                            kb_array *out, kb_expr_warning warn, void *context) {
    kb_expr_inputs inputs = {
        .bindings = bindings, .nbindings = nbindings, .warn = warn, .context = context};
    return kb_expr_eval_inputs(expr, &inputs, out);
}

kb_status kb_expr_eval(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                       kb_array *out) {
    return kb_expr_eval_warn(expr, bindings, nbindings, out, NULL, NULL);
}

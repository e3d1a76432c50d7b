/* The eager evaluator of expression graphs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/graph.h"
#include "expr/reduction_call.h"
#include "kbench/expr.h"
#include "kbench/reduce.h"

/* The eager evaluator: each node becomes an array, children first. A variable evaluates to a
 * borrowed view of its binding, so sum(x) reads x in place; everything else is a new array
 * that the evaluator frees as soon as its consumer is done with it. */

typedef struct evaluator {
    const kb_expr *expr;
    const kb_expr_binding *bindings;
    int nbindings;
    kb_expr_warning warn;
    void *context;
} evaluator;

typedef struct value {
    kb_array array;
    bool borrowed; /* a view of a binding; must not be written or outlive the call */
} value;

static void value_free(value *v) {
    if (!v->borrowed)
        kb_array_free(&v->array);
}

static kb_status eval_node(const evaluator *ev, int index, value *out);

static kb_status eval_variable(const evaluator *ev, const kb_expr_node *n, value *out) {
    for (int i = 0; i < ev->nbindings; i++) {
        const kb_array *a = ev->bindings[i].array;
        if (strcmp(ev->bindings[i].name, n->name) != 0)
            continue;
        out->borrowed = true;
        return kb_array_view(&out->array, a->dtype, a->ndim, a->shape, a->strides, a->data,
                             a->flags | KB_ARRAY_READONLY);
    }
    return kb_expr_fail_at(KB_EINVAL, n->column, "unknown variable '%s'", n->name);
}

/* A number is a 0-d array of Python's types as NumPy maps them. */
static kb_status eval_literal(const kb_expr_node *n, value *out) {
    kb_dtype dtype = n->kind == KB_EXPR_INT     ? KB_INT64
                     : n->kind == KB_EXPR_FLOAT ? KB_F64
                                                : KB_BOOL;
    kb_status st = kb_array_new(&out->array, dtype, 0, NULL, KB_ORDER_C);
    if (st != KB_OK)
        return st;
    if (dtype == KB_INT64)
        memcpy(out->array.data, &n->value.i, sizeof n->value.i);
    else if (dtype == KB_F64)
        memcpy(out->array.data, &n->value.f, sizeof n->value.f);
    else
        *(unsigned char *)out->array.data = n->value.b;
    return KB_OK;
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
static void warn_reduction(const evaluator *ev, const kb_reduce_args *args, const kb_array *in,
                           const kb_array *result) {
    kb_reduce_work work;
    if (!ev->warn || kb_reduce_work_of(in, args, &work) != KB_OK || work.outputs == 0)
        return;
    int64_t count = work.elements / work.outputs;
    const char *divide = result->ndim == 0 ? "scalar divide" : "divide";
    char message[96];
    bool nan = has_value(result, true);
    if (args->op == KB_REDUCE_MEAN && count == 0) {
        ev->warn("Mean of empty slice", ev->context);
        snprintf(message, sizeof message, "invalid value encountered in %s", divide);
        ev->warn(message, ev->context);
    } else if ((args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD) &&
               (double)count - args->ddof <= 0) {
        ev->warn("Degrees of freedom <= 0 for slice", ev->context);
        if (count == 0) /* the mean's 0 / 0, always an array division in NumPy */
            ev->warn("invalid value encountered in divide", ev->context);
        if (nan || has_value(result, false)) {
            snprintf(message, sizeof message, "%s encountered in %s",
                     nan ? "invalid value" : "divide by zero", divide);
            ev->warn(message, ev->context);
        }
    } else if (nan && args->op != KB_REDUCE_MIN && args->op != KB_REDUCE_MAX &&
               !has_value(in, true)) {
        /* inf - inf: in the sum for sum, prod and mean, in the deviations for var and std */
        bool moments = args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD;
        ev->warn(moments ? "invalid value encountered in subtract"
                         : "invalid value encountered in reduce",
                 ev->context);
    }
}

static kb_status eval_call(const evaluator *ev, const kb_expr_node *n, int index, value *out) {
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
        else if ((st = kb_reduce(&in.array, &args, &out->array)) == KB_OK)
            warn_reduction(ev, &args, &in.array, &out->array);
    }
    value_free(&in);
    return st;
}

static kb_status eval_node(const evaluator *ev, int index, value *out) {
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
            return kb_expr_fail_at(KB_EUNSUPPORTED, n->column,
                                   "elementwise '%c' is not supported yet", n->op);
        case KB_EXPR_KEYWORD: /* only ever a call's child, read by the call */
            break;
    }
    return kb_expr_fail_at(KB_EINVAL, n->column, "unexpected node in the expression");
}

kb_status kb_expr_eval_warn(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                            kb_array *out, kb_expr_warning warn, void *context) {
    memset(out, 0, sizeof *out);
    if (!expr || expr->root < 0 || nbindings < 0 || (nbindings > 0 && !bindings))
        return kb_fail(KB_EINVAL, "kb_expr_eval: invalid arguments");
    for (int i = 0; i < nbindings; i++)
        if (!bindings[i].name || !bindings[i].array)
            return kb_fail(KB_EINVAL, "kb_expr_eval: binding %d has no name or no array", i);

    evaluator ev = {expr, bindings, nbindings, warn, context};
    value result;
    kb_status st = eval_node(&ev, expr->root, &result);
    if (st != KB_OK)
        return st;
    if (!result.borrowed) {
        *out = result.array;
        return KB_OK;
    }
    /* The expression was a bare variable: the caller gets its own copy, as from any other
     * expression, never a view of memory it lent. */
    const kb_array *in = &result.array;
    st = kb_array_new(out, in->dtype, in->ndim, in->shape, KB_ORDER_C);
    if (st == KB_OK)
        st = kb_array_copy(out, in);
    if (st != KB_OK)
        kb_array_free(out);
    return st;
}

kb_status kb_expr_eval(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                       kb_array *out) {
    return kb_expr_eval_warn(expr, bindings, nbindings, out, NULL, NULL);
}

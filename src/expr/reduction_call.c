/* Reduction calls in expressions (sum(x, axis=0, ...)): arguments checked and resolved. */
#include <limits.h>
#include <string.h>

#include "expr/fail_at.h"
#include "expr/reduction_call.h"

static const kb_expr_node *at(const kb_expr *expr, int index) {
    return kb_expr_node_at(expr, index);
}

static kb_status resolve_function(const kb_expr_node *call, kb_reduce_op *op) {
    const char *name = call->name;
    /* NumPy's spelling, np.sum(x), is accepted so that expressions can be pasted from
     * Python; no other module prefix means anything here. */
    if (strncmp(name, "np.", 3) == 0)
        name += 3;
    if (strchr(name, '.') || kb_reduce_op_from_name(name, op) != KB_OK)
        return kb_expr_fail_at(KB_EINVAL, call->column, "unknown function '%s'", call->name);
    return KB_OK;
}

static kb_status type_error(const kb_expr_node *value, const char *keyword, const char *what) {
    return kb_expr_fail_at(KB_EINVAL, value->column, "%s must be %s", keyword, what);
}

static const char *const axis_types = "an integer, a tuple of integers or None";

static kb_status read_axis(const kb_expr *expr, const kb_expr_node *value, kb_expr_reduction *out) {
    out->axes_column = value->column;
    switch (value->kind) {
        case KB_EXPR_NONE:
            out->naxes = -1;
            return KB_OK;
        case KB_EXPR_INT:
            out->naxes = 1;
            out->axes[0] = value->value.i;
            return KB_OK;
        case KB_EXPR_TUPLE:
            out->axis_tuple = true;
            break;
        default:
            return type_error(value, "axis", axis_types);
    }
    /* NumPy refuses any tuple here, even (0,), which kb_reduce cannot tell from 0. */
    if (out->op == KB_REDUCE_ARGMIN || out->op == KB_REDUCE_ARGMAX)
        return kb_expr_fail_at(KB_EINVAL, value->column,
                               "%s takes one axis or None, not a tuple of axes",
                               kb_reduce_op_name(out->op));
    if (value->nchildren > KB_MAX_DIMS)
        return kb_expr_fail_at(KB_EINVAL, value->column, "axis tuple has more than %d entries",
                               KB_MAX_DIMS);
    out->naxes = 0;
    for (int c = value->first_child; c >= 0; c = at(expr, c)->next_sibling) {
        const kb_expr_node *element = at(expr, c);
        if (element->kind != KB_EXPR_INT)
            return type_error(element, "axis", axis_types);
        out->axes[out->naxes++] = element->value.i;
    }
    return KB_OK;
}

/* The parameters after the array, in NumPy's order for each function; dtype and out are
 * accepted only as None. */
enum { P_AXIS, P_DTYPE, P_OUT, P_DDOF, P_KEEPDIMS, P_COUNT };
static const char *const param_names[P_COUNT] = {"axis", "dtype", "out", "ddof", "keepdims"};

static int signature(kb_reduce_op op, const int **params) {
    static const int sums[] = {P_AXIS, P_DTYPE, P_OUT, P_KEEPDIMS};
    static const int extremes[] = {P_AXIS, P_OUT, P_KEEPDIMS};
    static const int args[] = {P_AXIS, P_OUT}; /* keepdims is keyword-only */
    static const int moments[] = {P_AXIS, P_DTYPE, P_OUT, P_DDOF, P_KEEPDIMS};
    switch (op) {
        case KB_REDUCE_MIN:
        case KB_REDUCE_MAX:
            *params = extremes;
            return 3;
        case KB_REDUCE_ARGMIN:
        case KB_REDUCE_ARGMAX:
            *params = args;
            return 2;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD:
            *params = moments;
            return 5;
        default:
            *params = sums;
            return 4;
    }
}

static int param_of(const char *name) {
    for (int p = 0; p < P_COUNT; p++)
        if (strcmp(name, param_names[p]) == 0)
            return p;
    return -1;
}

static kb_status read_param(const kb_expr *expr, int param, const kb_expr_node *value,
                            kb_expr_reduction *out) {
    switch (param) {
        case P_AXIS:
            return read_axis(expr, value, out);
        case P_DTYPE:
        case P_OUT:
            if (value->kind != KB_EXPR_NONE)
                return kb_expr_fail_at(KB_EUNSUPPORTED, value->column,
                                       "%s is not supported (only None)", param_names[param]);
            return KB_OK;
        case P_DDOF:
            if (value->kind == KB_EXPR_INT)
                out->ddof = (double)value->value.i;
            else if (value->kind == KB_EXPR_FLOAT)
                out->ddof = value->value.f;
            else if (value->kind == KB_EXPR_BOOL)
                out->ddof = value->value.b;
            else
                return type_error(value, "ddof", "a number");
            return KB_OK;
        default: /* keepdims: a bool or an integer, by its truth as Python takes it */
            if (value->kind == KB_EXPR_BOOL)
                out->keepdims = value->value.b;
            else if (value->kind == KB_EXPR_INT)
                out->keepdims = value->value.i != 0;
            else
                return type_error(value, "keepdims", "True or False");
            return KB_OK;
    }
}

kb_status kb_expr_reduction_resolve(const kb_expr *expr, int call, kb_expr_reduction *out) {
    const kb_expr_node *n = at(expr, call);
    memset(out, 0, sizeof *out);
    out->array = -1;
    out->naxes = -1;
    out->axes_column = n->column;
    kb_status st = resolve_function(n, &out->op);
    if (st != KB_OK)
        return st;
    const char *name = kb_reduce_op_name(out->op);
    const int *params;
    int nparams = signature(out->op, &params);

    /* One flag per parameter finds a value given twice in linear time, however many
     * arguments the call has. */
    bool seen[P_COUNT] = {false}, by_position[P_COUNT] = {false};
    int positional = 0;
    for (int c = n->first_child; c >= 0; c = at(expr, c)->next_sibling) {
        const kb_expr_node *arg = at(expr, c);
        int param;
        const kb_expr_node *value = arg;
        if (arg->kind != KB_EXPR_KEYWORD) {
            if (positional++ == 0) {
                out->array = c;
                continue;
            }
            if (positional - 1 > nparams)
                return kb_expr_fail_at(KB_EINVAL, arg->column,
                                       "%s takes at most %d positional arguments", name,
                                       nparams + 1);
            param = params[positional - 2];
            if (seen[param])
                return kb_expr_fail_at(KB_EINVAL, arg->column,
                                       "%s got multiple values for argument '%s'", name,
                                       param_names[param]);
        } else {
            value = at(expr, arg->first_child);
            param = param_of(arg->name);
            bool known = param == P_KEEPDIMS;
            for (int p = 0; p < nparams && !known; p++)
                known = params[p] == param;
            if (param == P_DDOF && !known)
                return kb_expr_fail_at(KB_EINVAL, arg->column,
                                       "ddof is only valid for var and std");
            if (!known)
                return kb_expr_fail_at(KB_EINVAL, arg->column, "unknown keyword '%s'", arg->name);
            if (seen[param] && by_position[param])
                return kb_expr_fail_at(KB_EINVAL, arg->column,
                                       "%s got multiple values for argument '%s'", name,
                                       param_names[param]);
            if (seen[param])
                return kb_expr_fail_at(KB_EINVAL, arg->column, "keyword argument '%s' repeated",
                                       arg->name);
        }
        by_position[param] = arg->kind != KB_EXPR_KEYWORD;
        seen[param] = true;
        if ((st = read_param(expr, param, value, out)) != KB_OK)
            return st;
    }
    if (out->array < 0)
        return kb_expr_fail_at(KB_EINVAL, n->column, "%s needs an array argument", name);
    return KB_OK;
}

kb_status kb_expr_reduction_args(const kb_expr_reduction *call, int ndim, kb_reduce_args *out) {
    *out = kb_reduce_args_all(call->op);
    out->naxes = call->naxes;
    out->keepdims = call->keepdims;
    kb_reduce_op op = call->op;
    bool ufunc = op != KB_REDUCE_MEAN && op != KB_REDUCE_VAR && op != KB_REDUCE_STD;
    if (ndim == 0 && ufunc && call->naxes == 1 && !call->axis_tuple &&
        (call->axes[0] == 0 || call->axes[0] == -1)) {
        out->naxes = -1; /* NumPy's ufunc reductions take axis 0 of a 0-d array as all of it */
        return KB_OK;
    }
    for (int i = 0; i < call->naxes; i++) {
        /* kb_reduce_result words every other out-of-range axis; these could not be passed on. */
        if (call->axes[i] < INT_MIN || call->axes[i] > INT_MAX)
            return kb_expr_fail_at(KB_EINVAL, call->axes_column,
                                   "axis %lld out of range for a %d-d array",
                                   (long long)call->axes[i], ndim);
        out->axes[i] = (int)call->axes[i];
    }
    out->ddof = call->ddof;
    return KB_OK;
}

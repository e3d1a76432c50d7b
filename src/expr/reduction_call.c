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

static kb_status read_keyword(const kb_expr *expr, const kb_expr_node *keyword,
                              kb_expr_reduction *out) {
    const kb_expr_node *value = at(expr, keyword->first_child);
    if (strcmp(keyword->name, "axis") == 0)
        return read_axis(expr, value, out);
    if (strcmp(keyword->name, "keepdims") == 0) {
        if (value->kind != KB_EXPR_BOOL)
            return type_error(value, "keepdims", "True or False");
        out->keepdims = value->value.b;
        return KB_OK;
    }
    if (strcmp(keyword->name, "ddof") == 0) {
        if (out->op != KB_REDUCE_VAR && out->op != KB_REDUCE_STD)
            return kb_expr_fail_at(KB_EINVAL, keyword->column,
                                   "ddof is only valid for var and std");
        if (value->kind != KB_EXPR_INT)
            return type_error(value, "ddof", "an integer");
        out->ddof = value->value.i;
        out->ddof_column = value->column;
        return KB_OK;
    }
    return kb_expr_fail_at(KB_EINVAL, keyword->column, "unknown keyword '%s'", keyword->name);
}

kb_status kb_expr_reduction_resolve(const kb_expr *expr, int call, kb_expr_reduction *out) {
    const kb_expr_node *n = at(expr, call);
    memset(out, 0, sizeof *out);
    out->array = -1;
    out->naxes = -1;
    out->axes_column = n->column;
    out->ddof_column = n->column;
    kb_status st = resolve_function(n, &out->op);
    if (st != KB_OK)
        return st;
    const char *name = kb_reduce_op_name(out->op);

    /* Keywords are the few the signature knows, so a repeat is found with one flag each and
     * any call, however many arguments it has, is checked in linear time. */
    bool seen_axis = false, seen_keepdims = false, seen_ddof = false;
    for (int c = n->first_child; c >= 0; c = at(expr, c)->next_sibling) {
        const kb_expr_node *arg = at(expr, c);
        if (arg->kind != KB_EXPR_KEYWORD) {
            if (out->array >= 0)
                return kb_expr_fail_at(KB_EINVAL, arg->column, "%s takes one positional argument",
                                       name);
            out->array = c;
            continue;
        }
        bool *seen = strcmp(arg->name, "axis") == 0       ? &seen_axis
                     : strcmp(arg->name, "keepdims") == 0 ? &seen_keepdims
                     : strcmp(arg->name, "ddof") == 0     ? &seen_ddof
                                                          : NULL;
        if (seen && *seen)
            return kb_expr_fail_at(KB_EINVAL, arg->column, "keyword argument '%s' repeated",
                                   arg->name);
        if (seen)
            *seen = true;
        st = read_keyword(expr, arg, out);
        if (st != KB_OK)
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
    for (int i = 0; i < call->naxes; i++) {
        /* kb_reduce_result words every other out-of-range axis; these could not be passed on. */
        if (call->axes[i] < INT_MIN || call->axes[i] > INT_MAX)
            return kb_expr_fail_at(KB_EINVAL, call->axes_column,
                                   "axis %lld out of range for a %d-d array",
                                   (long long)call->axes[i], ndim);
        out->axes[i] = (int)call->axes[i];
    }
    if (call->ddof < INT_MIN || call->ddof > INT_MAX)
        return kb_expr_fail_at(KB_EINVAL, call->ddof_column, "ddof %lld out of range",
                               (long long)call->ddof);
    out->ddof = (int)call->ddof;
    return KB_OK;
}

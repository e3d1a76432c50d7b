/* Reduction arguments: ops by name, axes, and the result dtype NumPy gives. */
#include <string.h>

#include "core/internal.h"
#include "kbench/reduce.h"
#include "kernels/reduce_plan.h"

static const char *const op_names[KB_REDUCE_OP_COUNT] = {
    [KB_REDUCE_SUM] = "sum",       [KB_REDUCE_PROD] = "prod", [KB_REDUCE_MEAN] = "mean",
    [KB_REDUCE_MIN] = "min",       [KB_REDUCE_MAX] = "max",   [KB_REDUCE_ARGMIN] = "argmin",
    [KB_REDUCE_ARGMAX] = "argmax", [KB_REDUCE_VAR] = "var",   [KB_REDUCE_STD] = "std",
};

const char *kb_reduce_op_name(kb_reduce_op op) {
    return (unsigned)op < KB_REDUCE_OP_COUNT ? op_names[op] : "?";
}

kb_status kb_reduce_op_from_name(const char *name, kb_reduce_op *out) {
    for (int op = 0; op < KB_REDUCE_OP_COUNT; op++) {
        if (strcmp(name, op_names[op]) == 0) {
            *out = (kb_reduce_op)op;
            return KB_OK;
        }
    }
    return kb_fail(KB_EINVAL, "unknown reduction '%s'", name);
}

kb_reduce_args kb_reduce_args_all(kb_reduce_op op) {
    kb_reduce_args args = {.op = op, .naxes = -1};
    return args;
}

kb_reduce_args kb_reduce_args_axis(kb_reduce_op op, int axis) {
    kb_reduce_args args = {.op = op, .naxes = 1, .axes = {axis}};
    return args;
}

/* NumPy's default result types (see reduce.h). */
static kb_dtype result_dtype(kb_reduce_op op, kb_dtype in) {
    bool integral = kb_dtype_is_integer(in) || in == KB_BOOL;
    switch (op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_PROD:
            if (!integral)
                return in;
            return in >= KB_UINT8 && in <= KB_UINT64 ? KB_UINT64 : KB_INT64;
        case KB_REDUCE_MEAN:
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD:
            return integral ? KB_F64 : in;
        case KB_REDUCE_ARGMIN:
        case KB_REDUCE_ARGMAX:
            return KB_INT64;
        default:
            return in;
    }
}

kb_status kb_reduce_plan_axes(const kb_array *in, const kb_reduce_args *args, bool *reduced) {
    if ((unsigned)args->op >= KB_REDUCE_OP_COUNT)
        return kb_fail(KB_EINVAL, "invalid reduction %d", (int)args->op);
    if (kb_dtype_size(in->dtype) == 0)
        return kb_fail(KB_EINVAL, "invalid dtype %d", (int)in->dtype);
    bool arg = args->op == KB_REDUCE_ARGMIN || args->op == KB_REDUCE_ARGMAX;
    if (args->naxes < -1 || args->naxes > KB_MAX_DIMS)
        return kb_fail(KB_EINVAL, "invalid number of axes %d", args->naxes);
    if (arg && args->naxes > 1)
        return kb_fail(KB_EINVAL, "%s takes one axis or None, not a tuple of axes",
                       op_names[args->op]);
    if (args->ddof != 0 && args->op != KB_REDUCE_VAR && args->op != KB_REDUCE_STD)
        return kb_fail(KB_EINVAL, "ddof is only valid for var and std");
    for (int i = 0; i < in->ndim; i++)
        reduced[i] = args->naxes == -1;
    for (int k = 0; k < args->naxes; k++) {
        int axis = args->axes[k];
        if (axis < -in->ndim || axis >= in->ndim)
            return kb_fail(KB_EINVAL, "axis %d out of range for a %d-d array", axis, in->ndim);
        if (axis < 0)
            axis += in->ndim;
        if (reduced[axis])
            return kb_fail(KB_EINVAL, "axis %d repeated", args->axes[k]);
        reduced[axis] = true;
    }
    int64_t count = 1;
    for (int i = 0; i < in->ndim; i++)
        if (reduced[i])
            count *= in->shape[i];
    bool needs_element = args->op == KB_REDUCE_MIN || args->op == KB_REDUCE_MAX || arg;
    if (needs_element && count == 0)
        return kb_fail(KB_EINVAL, "zero-size array to reduction operation %s which has no identity",
                       op_names[args->op]);
    return KB_OK;
}

kb_status kb_reduce_result(const kb_array *in, const kb_reduce_args *args, kb_dtype *dtype,
                           int *ndim, int64_t *shape) {
    bool reduced[KB_MAX_DIMS];
    kb_status st = kb_reduce_plan_axes(in, args, reduced);
    if (st != KB_OK)
        return st;
    /* keepdims keeps each reduced axis as length 1, for argmin/argmax over None too. */
    int n = 0;
    for (int i = 0; i < in->ndim; i++) {
        if (!reduced[i])
            shape[n++] = in->shape[i];
        else if (args->keepdims)
            shape[n++] = 1;
    }
    *ndim = n;
    *dtype = result_dtype(args->op, in->dtype);
    return KB_OK;
}

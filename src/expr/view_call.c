/* transpose and permute calls in expressions: arguments checked, axes resolved, views made. */
#include <string.h>

#include "core/internal.h"
#include "expr/fail_at.h"
#include "expr/view_call.h"

static const char *bare(const char *name) {
    return strncmp(name, "np.", 3) == 0 ? name + 3 : name;
}

bool kb_expr_is_view(const char *name) {
    const char *n = bare(name);
    return strcmp(n, "transpose") == 0 || strcmp(n, "permute_dims") == 0 ||
           strcmp(n, "permute") == 0;
}

static kb_status read_axes(const kb_expr *expr, const kb_expr_node *value, kb_expr_view *out) {
    out->axes_column = value->column;
    if (value->kind == KB_EXPR_NONE) {
        out->naxes = -1;
        return KB_OK;
    }
    if (value->kind != KB_EXPR_TUPLE)
        return kb_expr_fail_at(KB_EINVAL, value->column, "axes must be a tuple of integers");
    if (value->nchildren > KB_MAX_DIMS)
        return kb_expr_fail_at(KB_EINVAL, value->column, "axes has more than %d entries",
                               KB_MAX_DIMS);
    out->naxes = 0;
    for (int c = value->first_child; c >= 0; c = kb_expr_node_at(expr, c)->next_sibling) {
        const kb_expr_node *element = kb_expr_node_at(expr, c);
        if (element->kind != KB_EXPR_INT)
            return kb_expr_fail_at(KB_EINVAL, element->column, "axes must be a tuple of integers");
        out->axes[out->naxes++] = element->value.i;
    }
    return KB_OK;
}

kb_status kb_expr_view_resolve(const kb_expr *expr, int call, kb_expr_view *out) {
    const kb_expr_node *n = kb_expr_node_at(expr, call);
    const char *name = bare(n->name);
    /* transpose's axes are optional (None reverses); permute_dims and permute need them. */
    bool optional = strcmp(name, "transpose") == 0;
    memset(out, 0, sizeof *out);
    out->array = -1;
    out->naxes = -1;
    out->column = out->axes_column = n->column;
    int positional = 0;
    bool have_axes = false;
    for (int c = n->first_child; c >= 0; c = kb_expr_node_at(expr, c)->next_sibling) {
        const kb_expr_node *arg = kb_expr_node_at(expr, c);
        if (arg->kind == KB_EXPR_KEYWORD) {
            if (strcmp(arg->name, "axes") != 0)
                return kb_expr_fail_at(KB_EINVAL, arg->column, "%s takes no keyword '%s'", name,
                                       arg->name);
            if (have_axes)
                return kb_expr_fail_at(KB_EINVAL, arg->column, "%s got axes twice", name);
            have_axes = true;
            KB_TRY(read_axes(expr, kb_expr_node_at(expr, arg->first_child), out));
            continue;
        }
        if (positional == 0) {
            out->array = c;
        } else if (positional == 1 && !have_axes) {
            have_axes = true;
            KB_TRY(read_axes(expr, arg, out));
        } else {
            return kb_expr_fail_at(KB_EINVAL, arg->column, "%s takes at most 2 arguments", name);
        }
        positional++;
    }
    if (out->array < 0)
        return kb_expr_fail_at(KB_EINVAL, n->column, "%s needs an array", name);
    if (!optional && (!have_axes || out->naxes < 0))
        return kb_expr_fail_at(KB_EINVAL, n->column, "%s needs axes, such as (1, 0)", name);
    return KB_OK;
}

kb_status kb_expr_view_perm(const kb_expr_view *view, int ndim, int *perm) {
    if (view->naxes < 0) {
        for (int i = 0; i < ndim; i++)
            perm[i] = ndim - 1 - i;
        return KB_OK;
    }
    if (view->naxes != ndim)
        return kb_expr_fail_at(KB_EINVAL, view->axes_column, "axes don't match array");
    bool seen[KB_MAX_DIMS] = {false};
    for (int i = 0; i < ndim; i++) {
        int64_t a = view->axes[i];
        if (a < -ndim || a >= ndim)
            return kb_expr_fail_at(KB_EINVAL, view->axes_column,
                                   "axis %lld is out of bounds for array of dimension %d",
                                   (long long)a, ndim);
        int k = (int)(a < 0 ? a + ndim : a);
        if (seen[k])
            return kb_expr_fail_at(KB_EINVAL, view->axes_column, "repeated axis in transpose");
        seen[k] = true;
        perm[i] = k;
    }
    return KB_OK;
}

void kb_expr_view_apply(kb_array *a, const int *perm) {
    int64_t shape[KB_MAX_DIMS], strides[KB_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    memcpy(a->shape, shape, sizeof(int64_t) * (size_t)a->ndim);
    memcpy(a->strides, strides, sizeof(int64_t) * (size_t)a->ndim);
}

/* The fused planner's op graph: an expression's values with their shapes and types, built
 * from the syntax graph and the inputs bound to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/eager.h"
#include "expr/elementwise.h"
#include "expr/plan.h"
#include "expr/reduction_call.h"
#include "expr/view_call.h"
#include "kernels/reduce_plan.h"

typedef struct builder {
    const kb_expr *expr;
    const kb_expr_inputs *inputs;
    kb_pgraph *g;
    /* assigned names and their nodes, latest last */
    const char **var_names;
    int *var_nodes;
    int nvars;
    /* the INPUT node of each binding, once read (-1 before) */
    int *binding_nodes;
} builder;

/* What the fused executor leaves to the eager one, with the reason as the message. */
#define unsupported(...) kb_fail(KB_EUNSUPPORTED, __VA_ARGS__)

static kb_status add(kb_pgraph *g, kb_pnode_kind kind, int *index) {
    if (g->count == g->capacity) {
        int capacity = g->capacity ? 2 * g->capacity : 32;
        kb_pnode *nodes = realloc(g->nodes, (size_t)capacity * sizeof *nodes);
        if (!nodes)
            return kb_fail(KB_ENOMEM, "out of memory for a plan");
        g->nodes = nodes;
        g->capacity = capacity;
    }
    kb_pnode *n = &g->nodes[g->count];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->source = -1;
    n->kernel = -1;
    n->result = -1;
    *index = g->count++;
    return KB_OK;
}

static bool is_float(kb_dtype t) {
    return t == KB_F32 || t == KB_F64;
}

static kb_status build(builder *b, int index, int *out);

static kb_status binding_input(builder *b, int i, int *out) {
    if (b->binding_nodes[i] >= 0) {
        *out = b->binding_nodes[i];
        return KB_OK;
    }
    const kb_expr_binding *bind = &b->inputs->bindings[i];
    const kb_array *a = bind->array;
    if (!is_float(a->dtype))
        return kb_fail(KB_EUNSUPPORTED, "%s is %s: the fused executor computes float32 and float64",
                       bind->name, kb_dtype_name(a->dtype));
    KB_TRY(add(b->g, KB_PNODE_INPUT, out));
    kb_pnode *n = &b->g->nodes[*out];
    n->view = *a;
    n->view.owned = NULL;
    n->view.owned_size = 0;
    n->ndim = a->ndim;
    memcpy(n->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    n->dtype = a->dtype;
    snprintf(n->buffer, sizeof n->buffer, "%s", bind->name);
    snprintf(n->label, sizeof n->label, "%s", bind->name);
    n->buffer_elements = kb_array_size(a);
    b->binding_nodes[i] = *out;
    return KB_OK;
}

static kb_status constant(builder *b, kb_dtype dtype, const void *bytes, int *out) {
    KB_TRY(add(b->g, KB_PNODE_CONST, out));
    kb_pnode *n = &b->g->nodes[*out];
    n->dtype = dtype;
    memcpy(&n->value, bytes, kb_dtype_size(dtype));
    snprintf(n->label, sizeof n->label, "const");
    return KB_OK;
}

static kb_status variable(builder *b, const kb_expr_node *e, int *out) {
    for (int i = b->nvars - 1; i >= 0; i--)
        if (strcmp(b->var_names[i], e->name) == 0) {
            *out = b->var_nodes[i];
            return KB_OK;
        }
    for (int i = 0; i < b->inputs->nbindings; i++)
        if (strcmp(b->inputs->bindings[i].name, e->name) == 0)
            return binding_input(b, i, out);
    for (int i = 0; i < b->inputs->nscalars; i++) {
        const kb_expr_scalar *s = &b->inputs->scalars[i];
        if (strcmp(s->name, e->name) != 0)
            continue;
        if (s->dtype == KB_INT64)
            return constant(b, KB_INT64, &s->value.i, out);
        if (s->dtype == KB_F64)
            return constant(b, KB_F64, &s->value.f, out);
        bool v = s->value.b;
        return constant(b, KB_BOOL, &v, out);
    }
    return kb_fail(KB_EINVAL, "unknown variable '%s'", e->name);
}

/* NumPy's broadcast of the operands' shapes into n's. */
static kb_status broadcast(kb_pgraph *g, kb_pnode *n, const int *in, int nin) {
    int ndim = 0;
    for (int i = 0; i < nin; i++)
        if (g->nodes[in[i]].kind != KB_PNODE_CONST && g->nodes[in[i]].ndim > ndim)
            ndim = g->nodes[in[i]].ndim;
    n->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        n->shape[d] = 1;
        for (int i = 0; i < nin; i++) {
            const kb_pnode *o = &g->nodes[in[i]];
            int k = d - (ndim - o->ndim);
            if (o->kind == KB_PNODE_CONST || k < 0 || o->shape[k] == 1)
                continue;
            if (n->shape[d] != 1 && n->shape[d] != o->shape[k])
                return kb_fail(KB_EINVAL, "operands could not be broadcast together");
            n->shape[d] = o->shape[k];
        }
    }
    return KB_OK;
}

static kb_status elementwise(builder *b, int index, int *out) {
    const kb_expr_node *e = kb_expr_node_at(b->expr, index);
    int operands[3], nargs = 0;
    int limit = e->kind == KB_EXPR_CALL ? kb_expr_elementwise_arrays(e->name) : 2;
    for (int c = e->first_child; c >= 0; c = kb_expr_node_at(b->expr, c)->next_sibling) {
        if (kb_expr_node_at(b->expr, c)->kind == KB_EXPR_KEYWORD || nargs == limit)
            return kb_fail(KB_EINVAL, "unexpected argument");
        KB_TRY(build(b, c, &operands[nargs]));
        nargs++;
    }
    kb_expr_value args[3];
    memset(args, 0, sizeof args);
    for (int i = 0; i < nargs; i++) {
        kb_pnode *o = &b->g->nodes[operands[i]];
        args[i].array.dtype = o->dtype;
        args[i].array.data = &o->value;
        args[i].weak = o->kind == KB_PNODE_CONST;
        if (!args[i].weak && !is_float(o->dtype) && o->dtype != KB_BOOL)
            return unsupported("%s values are not fused", kb_dtype_name(o->dtype));
    }
    kb_expr_ew_step steps[KB_EXPR_EW_MAX_STEPS];
    int nsteps = 0;
    bool weak = false;
    KB_TRY(kb_expr_ew_steps(b->expr, index, args, nargs, steps, &nsteps, &weak));
    if (weak)
        return unsupported("%s", "arithmetic on Python scalars alone is not fused");
    int previous = -1;
    for (int s = 0; s < nsteps; s++) {
        const kb_expr_ew_step *st = &steps[s];
        bool where_ok = st->op == KB_EW_WHERE;
        if (!is_float(st->loop))
            return unsupported("%s loops are not fused", kb_dtype_name(st->loop));
        if (!is_float(st->out) && st->out != KB_BOOL)
            return unsupported("%s results are not fused", kb_dtype_name(st->out));
        int in[3];
        for (int i = 0; i < st->nin; i++) {
            in[i] = st->operand[i] < 0 ? previous : operands[st->operand[i]];
            const kb_pnode *o = &b->g->nodes[in[i]];
            /* bool values feed only where's condition: their casts to floats stay eager */
            if (o->kind != KB_PNODE_CONST && o->dtype == KB_BOOL && !(where_ok && i == 0))
                return unsupported("%s",
                                   "bool operands other than where's condition are not fused");
        }
        int node = -1;
        KB_TRY(add(b->g, KB_PNODE_EW, &node));
        kb_pnode *n = &b->g->nodes[node];
        n->op = st->op;
        n->loop = st->loop;
        n->dtype = st->out;
        n->nin = st->nin;
        memcpy(n->in, in, sizeof in);
        KB_TRY(broadcast(b->g, n, in, st->nin));
        snprintf(n->label, sizeof n->label, "%s", st->ufunc);
        previous = node;
    }
    *out = previous;
    return KB_OK;
}

static kb_status reduction(builder *b, int index, int *out) {
    kb_expr_reduction call;
    KB_TRY(kb_expr_reduction_resolve(b->expr, index, &call));
    switch (call.op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
        case KB_REDUCE_PROD:
        case KB_REDUCE_MIN:
        case KB_REDUCE_MAX:
            break;
        default:
            return unsupported("%s is not fused", kb_reduce_op_name(call.op));
    }
    int operand;
    KB_TRY(build(b, call.array, &operand));
    const kb_pnode *o = &b->g->nodes[operand];
    if (o->kind == KB_PNODE_CONST || !is_float(o->dtype))
        return unsupported("%s", "reductions of Python scalars and bool values are not fused");
    kb_reduce_args args;
    KB_TRY(kb_expr_reduction_args(&call, o->ndim, &args));
    kb_array shaped;
    int64_t strides[KB_MAX_DIMS];
    int64_t step = (int64_t)kb_dtype_size(o->dtype);
    for (int d = o->ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= o->shape[d] > 1 ? o->shape[d] : 1;
    }
    memset(&shaped, 0, sizeof shaped);
    shaped.dtype = o->dtype;
    shaped.ndim = o->ndim;
    memcpy(shaped.shape, o->shape, sizeof(int64_t) * (size_t)o->ndim);
    memcpy(shaped.strides, strides, sizeof(int64_t) * (size_t)o->ndim);
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    KB_TRY(kb_reduce_result(&shaped, &args, &dtype, &ndim, shape));
    if (args.naxes == 0 || o->ndim == 0)
        return unsupported("%s", "reductions over no axis are not fused");
    int node = -1;
    KB_TRY(add(b->g, KB_PNODE_REDUCE, &node));
    kb_pnode *n = &b->g->nodes[node];
    n->reduce = call.op;
    n->in[0] = operand;
    n->nin = 1;
    n->dtype = dtype;
    n->ndim = ndim;
    memcpy(n->shape, shape, sizeof(int64_t) * (size_t)ndim);
    KB_TRY(kb_reduce_plan_axes(&shaped, &args, n->axis));
    snprintf(n->label, sizeof n->label, "%s", kb_reduce_op_name(call.op));
    *out = node;
    return KB_OK;
}

static kb_status view(builder *b, int index, int *out) {
    kb_expr_view v;
    KB_TRY(kb_expr_view_resolve(b->expr, index, &v));
    int operand;
    KB_TRY(build(b, v.array, &operand));
    if (b->g->nodes[operand].kind == KB_PNODE_CONST)
        return unsupported("%s", "transposes of Python scalars are not fused");
    int perm[KB_MAX_DIMS];
    KB_TRY(kb_expr_view_perm(&v, b->g->nodes[operand].ndim, perm));
    KB_TRY(add(b->g, KB_PNODE_INPUT, out));
    kb_pnode *n = &b->g->nodes[*out];
    const kb_pnode *o = &b->g->nodes[operand];
    n->dtype = o->dtype;
    n->ndim = o->ndim;
    snprintf(n->label, sizeof n->label, "transpose");
    if (o->kind == KB_PNODE_INPUT && o->source < 0) {
        /* a view of a view: the binding's buffer, read in another order */
        n->view = o->view;
        kb_expr_view_apply(&n->view, perm);
        char buffer[sizeof n->buffer];
        memcpy(buffer, o->buffer, sizeof buffer);
        memcpy(n->buffer, buffer, sizeof buffer);
        n->buffer_elements = o->buffer_elements;
    } else {
        /* a computed value is materialised, then read in the new order */
        int source = o->kind == KB_PNODE_INPUT ? o->source : operand;
        int base[KB_MAX_DIMS];
        for (int d = 0; d < o->ndim; d++)
            base[d] = o->kind == KB_PNODE_INPUT ? o->perm[perm[d]] : perm[d];
        n->source = source;
        memcpy(n->perm, base, sizeof base);
    }
    for (int d = 0; d < o->ndim; d++)
        n->shape[d] = o->shape[perm[d]];
    return KB_OK;
}

static kb_status build(builder *b, int index, int *out) {
    const kb_expr_node *e = kb_expr_node_at(b->expr, index);
    switch (e->kind) {
        case KB_EXPR_NAME:
            return variable(b, e, out);
        case KB_EXPR_INT:
            return constant(b, KB_INT64, &e->value.i, out);
        case KB_EXPR_FLOAT:
            return constant(b, KB_F64, &e->value.f, out);
        case KB_EXPR_BOOL: {
            bool v = e->value.b;
            return constant(b, KB_BOOL, &v, out);
        }
        case KB_EXPR_UNARY:
        case KB_EXPR_BINARY:
            return elementwise(b, index, out);
        case KB_EXPR_CALL:
            if (kb_expr_is_elementwise(e->name))
                return elementwise(b, index, out);
            if (kb_expr_is_view(e->name))
                return view(b, index, out);
            return reduction(b, index, out);
        default:
            return kb_fail(KB_EINVAL, "not an array");
    }
}

/* A result must be a value a kernel computes: an input read as it is gets a copy op. */
static kb_status add_result(builder *b, int node, int index) {
    kb_pgraph *g = b->g;
    if (g->nodes[node].kind == KB_PNODE_CONST)
        return unsupported("%s", "a Python scalar as a result is not fused");
    if (g->nodes[node].kind == KB_PNODE_INPUT) {
        int copy = -1;
        KB_TRY(add(g, KB_PNODE_EW, &copy));
        kb_pnode *n = &g->nodes[copy];
        const kb_pnode *o = &g->nodes[node];
        n->op = KB_EW_COPY;
        n->loop = n->dtype = o->dtype;
        n->nin = 1;
        n->in[0] = node;
        n->ndim = o->ndim;
        memcpy(n->shape, o->shape, sizeof(int64_t) * (size_t)o->ndim);
        snprintf(n->label, sizeof n->label, "copy");
        node = copy;
    }
    for (int i = 0; i < index; i++)
        if (g->results[i] == node)
            return unsupported("%s", "a value given twice as a result is not fused");
    g->results[index] = node;
    g->nodes[node].result = index;
    return KB_OK;
}

static kb_status build_all(builder *b) {
    const kb_expr *expr = b->expr;
    const kb_expr_node *root = kb_expr_node_at(expr, expr->root);
    if (root->kind == KB_EXPR_PROGRAM)
        for (int c = root->first_child; c != root->last_child;
             c = kb_expr_node_at(expr, c)->next_sibling) {
            const kb_expr_node *s = kb_expr_node_at(expr, c);
            if (s->kind != KB_EXPR_ASSIGN)
                return unsupported("%s", "statements whose value is dropped are not fused");
            int node;
            KB_TRY(build(b, s->first_child, &node));
            b->var_names[b->nvars] = s->name;
            b->var_nodes[b->nvars++] = node;
        }
    int last = kb_expr_result_node(expr);
    const kb_expr_node *result = kb_expr_node_at(expr, last);
    bool tuple = result->kind == KB_EXPR_TUPLE;
    int i = 0;
    for (int c = tuple ? result->first_child : last; c >= 0;
         c = tuple ? kb_expr_node_at(expr, c)->next_sibling : -1) {
        int node;
        KB_TRY(build(b, c, &node));
        KB_TRY(add_result(b, node, i++));
    }
    for (int n = 0; n < b->g->count; n++) {
        const kb_pnode *p = &b->g->nodes[n];
        int64_t count = 1;
        for (int d = 0; d < p->ndim; d++)
            count *= p->shape[d];
        if (p->kind != KB_PNODE_CONST && count == 0)
            return unsupported("%s", "empty arrays are not fused");
    }
    return KB_OK;
}

kb_status kb_pgraph_build(const kb_expr *expr, const kb_expr_inputs *inputs, kb_pgraph *out) {
    memset(out, 0, sizeof *out);
    int nresults = kb_expr_result_count(expr);
    const kb_expr_node *root = kb_expr_node_at(expr, expr->root);
    int nstatements = root->kind == KB_EXPR_PROGRAM ? root->nchildren : 1;
    builder b = {.expr = expr, .inputs = inputs, .g = out};
    b.var_names = calloc((size_t)nstatements, sizeof *b.var_names);
    b.var_nodes = calloc((size_t)nstatements, sizeof *b.var_nodes);
    b.binding_nodes = calloc((size_t)inputs->nbindings + 1, sizeof *b.binding_nodes);
    out->results = calloc((size_t)nresults + 1, sizeof *out->results);
    out->nresults = nresults;
    kb_status st = KB_OK;
    if (!b.var_names || !b.var_nodes || !b.binding_nodes || !out->results)
        st = kb_fail(KB_ENOMEM, "out of memory for a plan");
    for (int i = 0; st == KB_OK && i < inputs->nbindings; i++)
        b.binding_nodes[i] = -1;
    if (st == KB_OK)
        st = build_all(&b);
    free(b.var_names);
    free(b.var_nodes);
    free(b.binding_nodes);
    if (st != KB_OK)
        kb_pgraph_free(out);
    return st;
}

void kb_pgraph_free(kb_pgraph *g) {
    free(g->nodes);
    free(g->kernels);
    free(g->results);
    memset(g, 0, sizeof *g);
}

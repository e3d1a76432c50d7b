/* The fusion rules: which op graph nodes share a kernel, and which values are materialised
 * (docs/fusion.md states the rules; this is their implementation, in the same order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache_size.h"
#include "core/internal.h"
#include "expr/fused_compile.h"
#include "expr/plan.h"
#include "expr/plan_build.h"

int64_t kb_pgraph_row_budget(int nvalues) {
    /* the row's values, eight bytes per element at most, in half the L2 cache */
    int64_t budget = kb_cache_l2_bytes() / 2 / 8 / (nvalues > 0 ? nvalues : 1);
    return budget > 0 ? budget : 1;
}

static bool computed(const kb_pnode *n) {
    return n->kind == KB_PNODE_EW || n->kind == KB_PNODE_REDUCE;
}

static bool same_shape(const kb_pnode *n, const kb_pkernel *k) {
    if (n->ndim != k->ndim)
        return false;
    for (int d = 0; d < n->ndim; d++)
        if (n->shape[d] != k->shape[d])
            return false;
    return true;
}

/* Whether n holds one value per row of k: its shape, aligned to the kernel's from the right,
 * is the kernel's with the reduced dimensions of length 1 or absent. */
static bool maps_to_rows(const kb_pnode *n, const kb_pkernel *k) {
    int off = k->ndim - n->ndim;
    if (off < 0 || !k->has_reduce)
        return false;
    for (int d = 0; d < k->ndim; d++) {
        int64_t extent = d >= off ? n->shape[d - off] : 1;
        if (k->reduced[d] ? extent != 1 : extent != k->shape[d])
            return false;
    }
    return true;
}

static int64_t row_length(const kb_pkernel *k) {
    int64_t m = 1;
    for (int d = 0; d < k->ndim; d++)
        if (k->reduced[d] || !k->has_reduce)
            m *= k->shape[d];
    return m;
}

/* Values a row of kernel k keeps per element: its nodes and their operands. */
static int kernel_values(const kb_pgraph *g, int k) {
    int values = 3;
    for (int i = 0; i < g->count; i++)
        if (g->nodes[i].kernel == k)
            values += 1 + g->nodes[i].nin;
    return values;
}

static kb_status new_kernel(kb_pgraph *g, const kb_pnode *shape_of, int *out) {
    kb_pkernel *grown = realloc(g->kernels, (size_t)(g->nkernels + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory for a plan");
    g->kernels = grown;
    kb_pkernel *k = &grown[g->nkernels];
    memset(k, 0, sizeof *k);
    k->ndim = shape_of->ndim;
    memcpy(k->shape, shape_of->shape, sizeof(int64_t) * (size_t)k->ndim);
    *out = g->nkernels++;
    return KB_OK;
}

/* The kernel that materialises the buffer node o reads from, or -1 for a binding. */
static int buffer_kernel(const kb_pgraph *g, const kb_pnode *o) {
    if (computed(o))
        return o->kernel;
    if (o->kind == KB_PNODE_INPUT && o->source >= 0)
        return g->nodes[o->source].kernel;
    return -1;
}

/* Whether n's shape is the rows' dimensions of k alone, in order (a flat row value). */
static bool is_row_shape(const kb_pnode *n, const kb_pkernel *k) {
    int i = 0;
    for (int d = 0; d < k->ndim; d++) {
        if (k->reduced[d])
            continue;
        if (i >= n->ndim || n->shape[i] != k->shape[d])
            return false;
        i++;
    }
    return k->has_reduce && i == n->ndim;
}

/* Whether a flat row value, broadcast by NumPy's rule (aligned from the right) against k's
 * shape, lands on the rows' dimensions: the row's dimensions come first. */
static bool flat_broadcasts(const kb_pkernel *k) {
    int nr = 0;
    for (int d = 0; d < k->ndim; d++)
        nr += k->reduced[d];
    for (int d = 0; d < nr; d++)
        if (!k->reduced[d])
            return false;
    return true;
}

/* Whether node n can join kernel k, and in which role (*row, *flat). Operands in other
 * kernels are read from memory, which must be written by an earlier kernel. */
static bool fits(kb_pgraph *g, const kb_pnode *n, int k, bool *row, bool *flat, bool *phased) {
    const kb_pkernel *K = &g->kernels[k];
    bool all_row = true, after = false, any_row = false, has_input = false;
    int form = -1; /* the flat flag all in-kernel row operands share, -2 when they differ */
    for (int i = 0; i < n->nin; i++) {
        const kb_pnode *o = &g->nodes[n->in[i]];
        int bk = buffer_kernel(g, o);
        if (computed(o) && o->kernel == k) {
            all_row &= o->row;
            after |= o->after_reduce;
            if (o->row) {
                any_row = true;
                form = form == -1 || form == o->flat ? o->flat : -2;
            }
        } else if (bk >= k) {
            return false;
        } else if (o->kind != KB_PNODE_CONST) {
            has_input = true;
        }
    }
    *phased = *flat = false;
    if (n->kind == KB_PNODE_REDUCE) {
        const kb_pnode *o = &g->nodes[n->in[0]];
        bool in_k = computed(o) && o->kernel == k;
        if ((in_k && o->row) || !same_shape(o, K))
            return false;
        if (K->has_reduce && memcmp(K->reduced, n->axis, sizeof(bool) * (size_t)K->ndim) != 0)
            return false;
        *row = true;
        *flat = n->ndim != o->ndim;
        /* a shifted sum of exp needs its row's finished maximum, when the kernel computes it */
        const kb_pnode *m = n->shifted ? &g->nodes[n->in[1]] : NULL;
        *phased = (in_k && o->after_reduce) || (m && computed(m) && m->kernel == k);
    } else if (all_row && any_row && form == 1 && !has_input && is_row_shape(n, K)) {
        *row = *flat = true;
    } else if (all_row && form != 1 && form != -2 && maps_to_rows(n, K)) {
        *row = true;
    } else if (same_shape(n, K)) {
        /* an element op after a reduction of its kernel needs the whole row first */
        *row = false;
        *phased = after || any_row;
        if (any_row && form != 0 && !flat_broadcasts(K))
            return false;
    } else {
        return false;
    }
    if (*phased && row_length(K) > kb_pgraph_row_budget(kernel_values(g, k) + 1 + n->nin))
        return false;
    return true;
}

/* Whether n reads a buffer that kernel k reads too (a reason to join it with no operand in
 * it). */
static bool shares_input(const kb_pgraph *g, const kb_pnode *n, int k) {
    for (int i = 0; i < n->nin; i++) {
        const kb_pnode *o = &g->nodes[n->in[i]];
        if (o->kind != KB_PNODE_INPUT)
            continue;
        for (int j = 0; j < g->count; j++) {
            const kb_pnode *m = &g->nodes[j];
            if (m->kernel != k)
                continue;
            for (int a = 0; a < m->nin; a++) {
                const kb_pnode *p = &g->nodes[m->in[a]];
                if (p->kind == KB_PNODE_INPUT && (p == o || (o->source < 0 && p->source < 0 &&
                                                             strcmp(p->buffer, o->buffer) == 0)))
                    return true;
            }
        }
    }
    return false;
}

static void place(kb_pgraph *g, kb_pnode *n, int k, bool row, bool flat, bool phased) {
    kb_pkernel *K = &g->kernels[k];
    n->kernel = k;
    n->row = row;
    n->flat = flat;
    if (n->kind == KB_PNODE_REDUCE && !K->has_reduce) {
        K->has_reduce = true;
        memcpy(K->reduced, n->axis, sizeof(bool) * (size_t)K->ndim);
    }
    K->phased |= phased;
    n->after_reduce = n->kind == KB_PNODE_REDUCE;
    for (int i = 0; i < n->nin; i++) {
        kb_pnode *o = &g->nodes[n->in[i]];
        if (computed(o) && o->kernel == k)
            n->after_reduce |= o->after_reduce;
        else if (computed(o))
            o->output = true;
        else if (o->kind == KB_PNODE_INPUT && o->source >= 0)
            g->nodes[o->source].output = true;
    }
}

/* Whether a node other than `except` uses node i, or i is a result. */
static bool used_elsewhere(const kb_pgraph *g, int i, int except) {
    if (g->nodes[i].result >= 0)
        return true;
    for (int k = 0; k < g->count; k++)
        for (int a = 0; k != except && a < g->nodes[k].nin; a++)
            if (g->nodes[k].in[a] == i)
                return true;
    return false;
}

/* Rule 0: s = sum(exp(X - m)) with m = max(X) over the same axes (keepdims), the softmax's
 * and logsumexp's denominator, becomes one reduction of X that computes its terms and adds them
 * without storing them (kb_ew_exp_sum). Over rows that fit a phased kernel it reads the row's m
 * (shifted), where nothing else uses exp(X - m): a logsumexp, whose X - m and exp(X - m) then
 * are never computed apart (a softmax divides by s the terms it computes once anyway). Over
 * rows too long, it is one streaming reduction of X by a running maximum and a rescaled sum
 * (online): it needs no finished m, so it shares m's pass, and the ops that use exp(X - m)
 * recompute it in the next pass. */
static void rewrite_exp_sums(kb_pgraph *g) {
    int values = 6; /* an upper bound of any kernel's values per element */
    for (int i = 0; i < g->count; i++)
        values += computed(&g->nodes[i]) ? 1 + g->nodes[i].nin : 0;
    for (int i = 0; i < g->count; i++) {
        kb_pnode *s = &g->nodes[i];
        if (s->kind != KB_PNODE_REDUCE || s->reduce != KB_REDUCE_SUM)
            continue;
        const kb_pnode *e = &g->nodes[s->in[0]];
        if (e->kind != KB_PNODE_EW || e->op != KB_EW_EXP)
            continue;
        const kb_pnode *d = &g->nodes[e->in[0]];
        if (d->kind != KB_PNODE_EW || d->op != KB_EW_SUB)
            continue;
        const kb_pnode *X = &g->nodes[d->in[0]], *m = &g->nodes[d->in[1]];
        if (m->kind != KB_PNODE_REDUCE || m->reduce != KB_REDUCE_MAX || m->in[0] != d->in[0] ||
            m->ndim != X->ndim || X->ndim != e->ndim || X->dtype != e->dtype ||
            d->loop != X->dtype || memcmp(m->axis, s->axis, sizeof s->axis) != 0)
            continue;
        int64_t row = 1;
        for (int a = 0; a < X->ndim; a++)
            if (s->axis[a])
                row *= X->shape[a];
        bool fits = row <= kb_pgraph_row_budget(values);
        /* over a row kept in cache, only where nothing else needs the terms (a logsumexp): a
         * softmax divides by s the same exp(X - m), computed once for both */
        if (fits && used_elsewhere(g, s->in[0], i))
            continue;
        s->online = !fits;
        s->shifted = fits;
        s->nin = 2;
        s->in[1] = d->in[1];
        s->in[0] = d->in[0];
        snprintf(s->label, sizeof s->label, fits ? "sum(exp(x - max))" : "sum(exp) online");
    }
}

/* Marks the nodes no result depends on. */
static void mark_dead(kb_pgraph *g) {
    for (int i = 0; i < g->count; i++)
        g->nodes[i].dead = true;
    for (int r = 0; r < g->nresults; r++)
        g->nodes[g->results[r]].dead = false;
    for (int i = g->count - 1; i >= 0; i--) {
        const kb_pnode *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int a = 0; a < n->nin; a++)
            g->nodes[n->in[a]].dead = false;
        if (n->kind == KB_PNODE_INPUT && n->source >= 0)
            g->nodes[n->source].dead = false;
    }
}

kb_status kb_pgraph_fuse(kb_pgraph *g) {
    rewrite_exp_sums(g);
    mark_dead(g);
    for (int i = 0; i < g->count; i++) {
        kb_pnode *n = &g->nodes[i];
        if (!computed(n) || n->dead)
            continue;
        /* Rule 1: a node joins the latest kernel that computes one of its operands, if its
         * shape fits that kernel's iteration (elementwise over it, one value per row of it, or
         * a reduction over the kernel's reduced dimensions) and, where it uses a value reduced
         * in the kernel, if the row fits the cache. */
        int candidate = -1;
        for (int a = 0; a < n->nin; a++) {
            const kb_pnode *o = &g->nodes[n->in[a]];
            if (computed(o) && o->kernel > candidate)
                candidate = o->kernel;
        }
        bool row = false, flat = false, phased = false;
        if (candidate >= 0 && fits(g, n, candidate, &row, &flat, &phased)) {
            place(g, n, candidate, row, flat, phased);
            continue;
        }
        /* Rule 2: a node with no computed operand joins the latest kernel it fits that reads
         * one of its input buffers (siblings share the pass over their input), else the latest
         * kernel it fits (independent chains of one shape share a pass). */
        int joined = -1;
        for (int pass = 0; pass < 2 && joined < 0 && candidate < 0; pass++)
            for (int k = g->nkernels - 1; k >= 0 && joined < 0; k--)
                if ((pass == 1 || shares_input(g, n, k)) && fits(g, n, k, &row, &flat, &phased))
                    joined = k;
        if (joined >= 0) {
            place(g, n, joined, row, flat, phased);
            continue;
        }
        /* Rule 3: otherwise a new kernel over the node's operand (a reduction) or its own
         * shape; the operands computed elsewhere are materialised. */
        int k = -1;
        const kb_pnode *shape_of = n->kind == KB_PNODE_REDUCE ? &g->nodes[n->in[0]] : n;
        KB_TRY(new_kernel(g, shape_of, &k));
        /* a new kernel fits: its operands are all read from memory */
        (void)fits(g, n, k, &row, &flat, &phased);
        place(g, n, k, row, flat, false);
    }
    for (int r = 0; r < g->nresults; r++)
        g->nodes[g->results[r]].output = true;
    for (int i = 0; i < g->count; i++) {
        kb_pnode *n = &g->nodes[i];
        if (n->result >= 0)
            snprintf(n->name, sizeof n->name, "out%d", n->result);
        else if (n->output)
            snprintf(n->name, sizeof n->name, "t%d", ++g->temporaries);
    }
    return KB_OK;
}

static kb_status loops_text(const kb_pgraph *g, int k, char *buf, size_t size) {
    const kb_pkernel *K = &g->kernels[k];
    kb_fused_compiled compiled;
    KB_TRY(kb_fused_compile(g, k, &compiled));
    kb_fused_run *runs;
    int nruns;
    KB_TRY(kb_fused_compile_runs(g, k, &runs, &nruns));
    free(runs);
    int64_t rows = 1, m = row_length(K);
    for (int d = 0; d < K->ndim; d++)
        if (K->has_reduce && !K->reduced[d])
            rows *= K->shape[d];
    char shape[96];
    kb_plan_shape_text(shape, sizeof shape, K->ndim, K->shape);
    if (!K->has_reduce)
        snprintf(buf, size, "over %s in tiles%s", shape,
                 compiled.fn ? ", compiled (a vector through all its ops)" : "");
    else
        snprintf(buf, size, "over %s: %lld row%s of %lld%s%s", shape, (long long)rows,
                 rows == 1 ? "" : "s", (long long)m,
                 K->phased ? ", each row kept in cache" : ", streamed in tiles",
                 nruns > 0 ? ", its elementwise runs compiled" : "");
    return KB_OK;
}

kb_status kb_pgraph_explain(const kb_pgraph *g, kb_expr_plan *plan) {
    for (int k = 0; k < g->nkernels; k++) {
        kb_expr_kernel *kernel;
        KB_TRY(kb_plan_add_kernel(plan, &kernel));
        KB_TRY(loops_text(g, k, kernel->loops, sizeof kernel->loops));
        for (int i = 0; i < g->count; i++) {
            const kb_pnode *n = &g->nodes[i];
            if (n->kernel != k)
                continue;
            kb_plan_kernel_op(kernel, n->label);
            for (int a = 0; a < n->nin; a++) {
                const kb_pnode *o = &g->nodes[n->in[a]];
                if (o->kind == KB_PNODE_INPUT && o->source < 0) {
                    KB_TRY(kb_plan_kernel_read(kernel, o->buffer, o->dtype, o->buffer_elements));
                } else if (o->kind != KB_PNODE_CONST && buffer_kernel(g, o) != k) {
                    const kb_pnode *b = o->kind == KB_PNODE_INPUT ? &g->nodes[o->source] : o;
                    int64_t count = 1;
                    for (int d = 0; d < b->ndim; d++)
                        count *= b->shape[d];
                    KB_TRY(kb_plan_kernel_read(kernel, b->name, b->dtype, count));
                }
            }
        }
        for (int i = 0; i < g->count; i++) {
            const kb_pnode *n = &g->nodes[i];
            if (n->kernel != k || !n->output)
                continue;
            int64_t count = 1;
            for (int d = 0; d < n->ndim; d++)
                count *= n->shape[d];
            KB_TRY(kb_plan_kernel_write(kernel, n->name, n->dtype, count));
        }
    }
    kb_plan_total(plan);
    return KB_OK;
}

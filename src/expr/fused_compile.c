/* A kernel of a fused plan, or the runs of a row kernel's elementwise ops, as compiled kernels
 * (expr/fused_compile.h): their ops, inputs, constants and outputs numbered as kb_ck numbers
 * them. */
#include "expr/fused_compile.h"

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/kernel_compile.h"
#include "kbench/simd.h"

/* Number of graph node o among the kernel's values: an op's place among the kernel's ops
 * (slot) after the inputs and constants, else its place among the inputs or the constants;
 * -1 for none yet. */
static int value_of(const kb_fused_compiled *c, const int *slot, int o) {
    if (slot[o] >= 0)
        return c->ninputs + c->nconsts + slot[o];
    for (int k = 0; k < c->ninputs; k++)
        if (c->in[k] == o)
            return k;
    for (int k = 0; k < c->nconsts; k++)
        if (c->const_node[k] == o)
            return c->ninputs + k;
    return -1;
}

/* The ops' inputs, constants (a row value among them) and outputs; false where the compiled
 * kernels do not compute them. */
static bool operands(const kb_pgraph *g, int k, const int *ops, int nops, const int *slot,
                     const bool *kept, kb_fused_compiled *c) {
    c->type = g->nodes[ops[0]].loop;
    for (int i = 0; i < nops; i++) {
        const kb_pnode *p = &g->nodes[ops[i]];
        bool predicate = p->kind == KB_PNODE_EW && kb_ew_is_predicate(p->op);
        if (p->kind != KB_PNODE_EW || p->row || p->loop != c->type || !kb_ck_op_supported(p->op) ||
            p->dtype != (predicate ? KB_BOOL : c->type) || (predicate && kept[i]))
            return false;
        for (int a = 0; a < p->nin; a++) {
            int o = p->in[a];
            if (value_of(c, slot, o) >= 0)
                continue;
            const kb_pnode *in = &g->nodes[o];
            bool constant = in->kind == KB_PNODE_CONST || (in->row && in->kernel == k);
            if (constant ? c->nconsts == KB_CK_MAX_CONSTS : c->ninputs + c->nouts == KB_CK_MAX_IO)
                return false;
            /* a value of the kernel's other ops is read where they left it, uncast (from
             * memory, an input is gathered as the type) */
            if (!constant && in->kernel == k && in->dtype != c->type)
                return false;
            if (constant)
                c->const_node[c->nconsts++] = o;
            else
                c->in[c->ninputs++] = o;
        }
        if (kept[i]) {
            if (c->ninputs + c->nouts == KB_CK_MAX_IO)
                return false;
            c->out[c->nouts++] = ops[i];
        }
    }
    return true;
}

/* ops (graph nodes, in order) compiled, kept[i] saying whether op i's value is written out. */
static kb_status compile_ops(const kb_pgraph *g, int k, const int *ops, int nops, const bool *kept,
                             int policy, kb_fused_compiled *c) {
    kb_simd_level level;
    KB_TRY(kb_simd_current(&level));
    level = kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level);
    int *slot = malloc((size_t)g->count * sizeof *slot);
    kb_ck_op *ck_ops = malloc((size_t)nops * sizeof *ck_ops);
    kb_status st = slot && ck_ops ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; st == KB_OK && i < g->count; i++)
        slot[i] = -1;
    for (int i = 0; st == KB_OK && i < nops; i++)
        slot[ops[i]] = i;
    if (st == KB_OK && nops > 0 && operands(g, k, ops, nops, slot, kept, c)) {
        size_t item = kb_dtype_size(c->type);
        for (int i = 0; i < c->nconsts && st == KB_OK; i++) {
            const kb_pnode *o = &g->nodes[c->const_node[i]];
            if (o->kind == KB_PNODE_CONST) /* a row value's comes with each row */
                st = kb_ew_cast(c->type, (char *)c->consts + (size_t)i * item, o->dtype,
                                (const char *)&o->value, 0, 1);
        }
        for (int i = 0; i < nops; i++) {
            const kb_pnode *p = &g->nodes[ops[i]];
            ck_ops[i] = (kb_ck_op){.op = p->op, .nin = p->nin, .out = -1};
            for (int a = 0; a < p->nin; a++)
                ck_ops[i].in[a] = value_of(c, slot, p->in[a]);
            for (int o = 0; o < c->nouts; o++)
                if (c->out[o] == ops[i])
                    ck_ops[i].out = o;
        }
        kb_ck ck = {.type = c->type,
                    .ninputs = c->ninputs,
                    .nconsts = c->nconsts,
                    .nouts = c->nouts,
                    .nops = nops,
                    .ops = ck_ops};
        /* ops the compiled kernels cannot compute run op by op */
        if (st == KB_OK && kb_ck_computes(&ck, level)) {
            st = kb_ck_compile(&ck, level, &c->fn);
            if (st == KB_EUNSUPPORTED && policy != KB_CK_ALWAYS)
                st = KB_OK;
        }
    }
    free(slot);
    free(ck_ops);
    if (st != KB_OK)
        c->fn = NULL;
    return st;
}

/* Whether KB_COMPILE asks for kernel k compiled at its size. */
static kb_status wanted(const kb_pgraph *g, int k, int *policy, bool *yes) {
    const kb_pkernel *K = &g->kernels[k];
    KB_TRY(kb_ck_policy(policy));
    int p = *policy;
    int64_t elements = 1;
    for (int d = 0; d < K->ndim; d++)
        elements *= K->shape[d];
    *yes = p != KB_CK_NEVER && (p != KB_CK_AUTO || elements >= KB_CK_AUTO_MIN);
    return KB_OK;
}

kb_status kb_fused_compile(const kb_pgraph *g, int k, kb_fused_compiled *c) {
    memset(c, 0, sizeof *c);
    int policy;
    bool yes;
    KB_TRY(wanted(g, k, &policy, &yes));
    if (!yes || g->kernels[k].has_reduce)
        return KB_OK;
    int *ops = malloc((size_t)g->count * sizeof *ops);
    bool *kept = malloc((size_t)g->count * sizeof *kept);
    kb_status st = ops && kept ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    int nops = 0;
    for (int i = 0; st == KB_OK && i < g->count; i++)
        if (g->nodes[i].kernel == k) {
            kept[nops] = g->nodes[i].output;
            ops[nops++] = i;
        }
    if (st == KB_OK)
        st = compile_ops(g, k, ops, nops, kept, policy, c);
    free(ops);
    free(kept);
    return st;
}

/* Whether a node of kernel k outside ops[first .. first + count) reads node. */
static bool read_elsewhere(const kb_pgraph *g, int k, const int *ops, int first, int count,
                           int node) {
    for (int i = 0; i < g->count; i++) {
        if (g->nodes[i].kernel != k)
            continue;
        bool inside = false;
        for (int j = first; j < first + count && !inside; j++)
            inside = ops[j] == i;
        for (int a = 0; !inside && a < g->nodes[i].nin; a++)
            if (g->nodes[i].in[a] == node)
                return true;
    }
    return false;
}

/* Whether node is an op a compiled run may hold: elementwise along the row. */
static bool runs_along(const kb_pnode *n) {
    return n->kind == KB_PNODE_EW && !n->row;
}

kb_status kb_fused_compile_runs(const kb_pgraph *g, int k, kb_fused_run **runs, int *nruns) {
    *runs = NULL;
    *nruns = 0;
    int policy;
    bool yes;
    KB_TRY(wanted(g, k, &policy, &yes));
    if (!yes || !g->kernels[k].phased)
        return KB_OK;
    int *ops = malloc((size_t)g->count * sizeof *ops);
    bool *kept = malloc((size_t)g->count * sizeof *kept);
    kb_fused_run *found = malloc((size_t)g->count * sizeof *found);
    kb_status st = ops && kept && found ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    int nops = 0;
    for (int i = 0; st == KB_OK && i < g->count; i++)
        if (g->nodes[i].kernel == k)
            ops[nops++] = i;
    for (int first = 0; st == KB_OK && first < nops;) {
        int count = 0;
        while (first + count < nops && runs_along(&g->nodes[ops[first + count]]))
            count++;
        if (count == 0) {
            first++;
            continue;
        }
        for (int i = 0; i < count; i++)
            kept[i] = g->nodes[ops[first + i]].output ||
                      read_elsewhere(g, k, ops, first, count, ops[first + i]);
        kb_fused_run *run = &found[*nruns];
        memset(run, 0, sizeof *run);
        st = compile_ops(g, k, ops + first, count, kept, policy, &run->c);
        if (st == KB_OK && run->c.fn) {
            run->first = first;
            run->count = count;
            ++*nruns;
        }
        first += count;
    }
    free(ops);
    free(kept);
    if (st != KB_OK || *nruns == 0) {
        free(found);
        *nruns = 0;
        return st;
    }
    *runs = found;
    return KB_OK;
}

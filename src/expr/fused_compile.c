/* A kernel of a fused plan as a compiled kernel (expr/fused_compile.h): its ops, inputs,
 * constants and outputs numbered as kb_ck numbers them. */
#include "expr/fused_compile.h"

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expr/kernel_compile.h"
#include "kbench/simd.h"

/* Number of graph node o among the kernel's values: an op's place among the kernel's ops
 * (slot) after the inputs and constants, else its place among the inputs or the constants;
 * -1 for none yet. */
static int value_of(const kb_fused_compiled *c, const int *slot, const int *consts, int nconsts,
                    int o) {
    if (slot[o] >= 0)
        return c->ninputs + nconsts + slot[o];
    for (int k = 0; k < c->ninputs; k++)
        if (c->in[k] == o)
            return k;
    for (int k = 0; k < nconsts; k++)
        if (consts[k] == o)
            return c->ninputs + k;
    return -1;
}

/* The kernel's inputs, constants and outputs; false where the compiled kernels do not compute
 * it. */
static bool operands(const kb_pgraph *g, const int *order, int nops, const int *slot,
                     kb_fused_compiled *c, int *consts, int *nconsts) {
    c->type = g->nodes[order[0]].loop;
    for (int i = 0; i < nops; i++) {
        const kb_pnode *p = &g->nodes[order[i]];
        bool predicate = p->kind == KB_PNODE_EW && kb_ew_is_predicate(p->op);
        if (p->kind != KB_PNODE_EW || p->row || p->loop != c->type || !kb_ck_op_supported(p->op) ||
            p->dtype != (predicate ? KB_BOOL : c->type) || (predicate && p->output))
            return false;
        for (int a = 0; a < p->nin; a++) {
            int o = p->in[a];
            if (value_of(c, slot, consts, *nconsts, o) >= 0)
                continue;
            bool constant = g->nodes[o].kind == KB_PNODE_CONST;
            if (constant ? *nconsts == KB_CK_MAX_CONSTS : c->ninputs + c->nouts == KB_CK_MAX_IO)
                return false;
            if (constant)
                consts[(*nconsts)++] = o;
            else
                c->in[c->ninputs++] = o;
        }
        if (p->output) {
            if (c->ninputs + c->nouts == KB_CK_MAX_IO)
                return false;
            c->out[c->nouts++] = order[i];
        }
    }
    return true;
}

kb_status kb_fused_compile(const kb_pgraph *g, int k, kb_fused_compiled *c) {
    memset(c, 0, sizeof *c);
    const kb_pkernel *K = &g->kernels[k];
    int policy;
    KB_TRY(kb_ck_policy(&policy));
    int64_t elements = 1;
    for (int d = 0; d < K->ndim; d++)
        elements *= K->shape[d];
    if (policy == KB_CK_NEVER || K->has_reduce ||
        (policy == KB_CK_AUTO && elements < KB_CK_AUTO_MIN))
        return KB_OK;
    kb_simd_level level;
    KB_TRY(kb_simd_current(&level));
    level = kb_simd_table_level(KB_SIMD_FAMILY_ELEMENTWISE, level);
    int *order = malloc((size_t)g->count * sizeof *order);
    int *slot = malloc((size_t)g->count * sizeof *slot);
    kb_ck_op *ops = malloc((size_t)g->count * sizeof *ops);
    kb_status st = order && slot && ops ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
    int nops = 0, consts[KB_CK_MAX_CONSTS], nconsts = 0;
    for (int i = 0; st == KB_OK && i < g->count; i++) {
        slot[i] = g->nodes[i].kernel == k ? nops : -1;
        if (slot[i] >= 0)
            order[nops++] = i;
    }
    if (st == KB_OK && nops > 0 && operands(g, order, nops, slot, c, consts, &nconsts)) {
        size_t item = kb_dtype_size(c->type);
        for (int i = 0; i < nconsts && st == KB_OK; i++) {
            const kb_pnode *o = &g->nodes[consts[i]];
            st = kb_ew_cast(c->type, (char *)c->consts + (size_t)i * item, o->dtype,
                            (const char *)&o->value, 0, 1);
        }
        for (int i = 0; i < nops; i++) {
            const kb_pnode *p = &g->nodes[order[i]];
            ops[i] = (kb_ck_op){.op = p->op, .nin = p->nin, .out = -1};
            for (int a = 0; a < p->nin; a++)
                ops[i].in[a] = value_of(c, slot, consts, nconsts, p->in[a]);
            for (int o = 0; o < c->nouts; o++)
                if (c->out[o] == order[i])
                    ops[i].out = o;
        }
        kb_ck ck = {.type = c->type,
                    .ninputs = c->ninputs,
                    .nconsts = nconsts,
                    .nouts = c->nouts,
                    .nops = nops,
                    .ops = ops};
        /* a kernel the compiled kernels cannot compute runs op by op */
        if (st == KB_OK && kb_ck_computes(&ck, level)) {
            st = kb_ck_compile(&ck, level, &c->fn);
            if (st == KB_EUNSUPPORTED && policy != KB_CK_ALWAYS)
                st = KB_OK;
        }
    }
    free(order);
    free(slot);
    free(ops);
    if (st != KB_OK)
        c->fn = NULL;
    return st;
}

#ifndef KB_EXPR_FUSED_COMPILE_H
#define KB_EXPR_FUSED_COMPILE_H

#include "expr/kernel_source.h"
#include "expr/plan.h"

/* A kernel of a fused plan as a compiled kernel (docs/fusion.md, "Compiled kernels"): the
 * function, and what it reads and writes, in the order of its arguments. */
typedef struct kb_fused_compiled {
    kb_ck_fn fn; /* NULL: the kernel runs op by op */
    kb_dtype type;
    int ninputs, nouts;
    int in[KB_CK_MAX_IO], out[KB_CK_MAX_IO]; /* their graph nodes */
    /* the constants, as type, one after another (double storage, for the alignment) */
    double consts[KB_CK_MAX_CONSTS];
} kb_fused_compiled;

/* Kernel k of g compiled (expr/kernel_compile.h), where KB_COMPILE asks for it at this size and
 * the compiled kernels compute it at the level in force: elementwise, every op's loop of one
 * float type, no bool output, at most KB_CK_MAX_IO inputs and outputs and KB_CK_MAX_CONSTS
 * constants. Otherwise c->fn is NULL and the kernel runs op by op, with the same results; so it
 * does where no compiler can be had, unless KB_COMPILE=1 asked for every kernel compiled: then
 * that is the error. */
kb_status kb_fused_compile(const kb_pgraph *g, int k, kb_fused_compiled *c);

#endif

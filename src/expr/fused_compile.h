#ifndef KB_EXPR_FUSED_COMPILE_H
#define KB_EXPR_FUSED_COMPILE_H

#include "expr/kernel_source.h"
#include "expr/plan.h"

/* A kernel of a fused plan, or a run of its ops, as a compiled kernel (docs/fusion.md,
 * "Compiled kernels"): the function, and what it reads and writes, in the order of its
 * arguments. */
typedef struct kb_fused_compiled {
    kb_ck_fn fn; /* NULL: the ops run one by one */
    kb_dtype type;
    int ninputs, nouts, nconsts;
    int in[KB_CK_MAX_IO], out[KB_CK_MAX_IO]; /* their graph nodes */
    /* the constants' graph nodes: a constant, or a row value, whose value the caller puts in
     * consts for each row */
    int const_node[KB_CK_MAX_CONSTS];
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

/* A run of a phased kernel's ops compiled: the ops at first .. first + count of the kernel's
 * nodes in graph order. */
typedef struct kb_fused_run {
    int first, count;
    kb_fused_compiled c;
} kb_fused_run;

/* The compiled runs of kernel k, a phased kernel (its rows kept in the caches): each stretch of
 * elementwise ops along the row between its reductions and row values, compiled where
 * KB_COMPILE asks for it at the kernel's size and the compiled kernels compute every op of it
 * (else the whole stretch runs op by op). A run's
 * operands are read from memory, from values of the kernel's other ops (of the run's type), or
 * are constants and row values (the latter among the constants, put in consts row by row); its
 * outputs are the ops' values the kernel writes or its other ops read. *runs (NULL when none)
 * is the caller's to free. */
kb_status kb_fused_compile_runs(const kb_pgraph *g, int k, kb_fused_run **runs, int *nruns);

#endif

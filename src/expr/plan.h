#ifndef KB_EXPR_PLAN_H
#define KB_EXPR_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "expr/graph.h"
#include "kbench/array.h"
#include "kbench/expr.h"
#include "kbench/reduce.h"
#include "kernels/ew.h"

/* The fused planner's data (docs/fusion.md): the op graph of an expression bound to its
 * inputs (plan_graph.c), its nodes grouped into kernels (plan_fuse.c), which the tile
 * executor runs (fused_eval.c).
 *
 * The op graph holds values, not syntax: variables are resolved, transposes of inputs are
 * folded into the inputs' strides, clip is two ops, x**2 is square, as the eager evaluator
 * computes them. Every node has its NumPy shape and dtype; nodes are in topological order
 * (operands before their users), as the builder appends them. */

typedef enum kb_pnode_kind {
    KB_PNODE_INPUT, /* an array read from memory: a binding (or a view of one), or a view of
                       a value that an earlier kernel materialises (source >= 0) */
    KB_PNODE_CONST, /* a Python scalar: a constant of the kernels, not traffic */
    KB_PNODE_EW,    /* an elementwise op */
    KB_PNODE_REDUCE /* a reduction over some axes of its operand */
} kb_pnode_kind;

typedef struct kb_pnode {
    kb_pnode_kind kind;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    kb_dtype dtype;
    char label[24]; /* the op's name in explanations: "add", "exp", "sum" */

    /* INPUT: the view of a binding (array), or the node whose materialised buffer this views
     * through perm (source >= 0); buffer names the buffer for traffic (a binding's name). */
    kb_array view;
    int source;
    int perm[KB_MAX_DIMS];
    char buffer[32];
    int64_t buffer_elements;

    /* CONST: the value as a weak 0-d array's bytes (int64, float64 or bool) */
    union {
        int64_t i;
        double f;
        bool b;
    } value;

    /* EW */
    kb_ew_op op;
    kb_dtype loop;
    int nin;
    int in[3];

    /* REDUCE: in[0] is the operand */
    kb_reduce_op reduce;
    bool axis[KB_MAX_DIMS]; /* over the operand's dimensions */
    /* A sum of exp(in[0] - m), m = in[1] the max of in[0] over the same axes, computed in one
     * pass over in[0]: by a running maximum and a rescaled sum where rows are too long to keep
     * in cache (online), else from the row's m (shifted), the terms never stored. */
    bool online;
    bool shifted;

    /* Planning */
    bool dead;         /* no result depends on it (after rule 0, plan_fuse.c) */
    int kernel;        /* -1 for INPUT and CONST */
    bool row;          /* one value per row of its kernel (a reduction, or ops on those) */
    bool flat;         /* a row value shaped as the rows' dimensions alone (a reduction
                          without keepdims), not as the kernel's with the row's of length 1 */
    bool after_reduce; /* depends, inside its kernel, on a reduction of that kernel */
    bool output;       /* written to memory: a result, or read by another kernel */
    int result;        /* the index among the results, or -1 */
    char name[32];     /* its buffer's name when written: "outN" or "tN" */
} kb_pnode;

/* A kernel: one pass over an iteration shape whose reduced dimensions are the row, the
 * others the rows (an elementwise kernel has one row, all of it reduced dimensions, and no
 * reduction). Phased kernels compute a whole row before its values are used by the ops after a
 * reduction, so the row must fit the cache; the others stream through rows in tiles. */
typedef struct kb_pkernel {
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    bool reduced[KB_MAX_DIMS];
    bool has_reduce;
    bool phased;
} kb_pkernel;

typedef struct kb_pgraph {
    kb_pnode *nodes;
    int count, capacity;
    kb_pkernel *kernels;
    int nkernels;
    int *results; /* node of each result */
    int nresults;
    int temporaries; /* tN names given */
} kb_pgraph;

/* Builds the op graph of the expression on these inputs. KB_EUNSUPPORTED (with the reason as
 * the message) when the fused executor does not compute it: only float32 and float64 arrays,
 * the elementwise ops with float loops and where, sum, mean, prod, min and max, transposes,
 * and results that are computed (docs/fusion.md); any other failure is an error the eager
 * evaluator reports better, and the caller evaluates eagerly to get it. */
kb_status kb_pgraph_build(const kb_expr *expr, const kb_expr_inputs *inputs, kb_pgraph *out);

/* Groups the nodes into kernels by the rules of docs/fusion.md. */
kb_status kb_pgraph_fuse(kb_pgraph *g);

/* The plan's kernels and traffic, for kb_expr_explain. */
kb_status kb_pgraph_explain(const kb_pgraph *g, kb_expr_plan *plan);

/* The largest row (elements of the reduced dimensions) a phased kernel of nvalues values per
 * element keeps in cache. */
int64_t kb_pgraph_row_budget(int nvalues);

void kb_pgraph_free(kb_pgraph *g);

#endif

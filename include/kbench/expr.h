#ifndef KBENCH_EXPR_H
#define KBENCH_EXPR_H

#include "kbench/array.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Expressions over arrays, written in NumPy's syntax (docs/expressions.md).
 *
 * An expression is parsed once into a graph (kb_expr) and evaluated on arrays bound to its
 * variable names:
 *
 *     mean(x, axis=0)    2*x**3 - 3*x**2 + x - 1    where(x > 0, x, 0.01*x)
 *     m = max(x, axis=1, keepdims=True); e = exp(x - m); e / sum(e, axis=1, keepdims=True)
 *
 * The language: Python's operators (+ - * / // % **, comparisons, & | ~, unary -) with
 * Python's precedence; NumPy's elementwise functions (abs sqrt square reciprocal exp expm1
 * exp2 log log1p log2 log10 sin cos tan arcsin arccos arctan tanh sinh cosh floor ceil rint
 * sign maximum minimum clip where isnan isfinite, astype(x, 'float32')), SciPy's sigmoid and
 * erf, and the reductions sum, prod, mean, min, max, argmin, argmax, var and std with NumPy's
 * parameters (axis, keepdims, ddof; dtype and out only as None), anywhere in an expression;
 * transpose(x[, axes]) and permute_dims(x, axes) (or permute), views that reorder the axes;
 * an optional "np." prefix on every name. The last statement may be a tuple of results. Statements
 * are separated by ';' or line breaks; NAME = value assigns, and the last statement's value is the
 * result. A number is a Python scalar (int64, float64; True and False are bool), weak in promotion
 * as NEP 50 says. The semantics are NumPy 2's: broadcasting, result types, integer wrapping,
 * division by zero, NaN and infinity.
 *
 * An error in the expression fails with a one-line message that ends with " at column N"
 * (1-based, counted in bytes of the source) and points at the offending token, such as
 * "unknown keyword 'axes' at column 9" or "operands could not be broadcast together with
 * shapes (2,3) (4,) at column 3": KB_EFORMAT for syntax, KB_EINVAL for names, values, types
 * and shapes (including kb_reduce's own complaints, such as an axis out of range, which point
 * at the call), KB_EUNSUPPORTED for the limits below and for bfloat16 in arithmetic. */

/* Parsing refuses sources longer than this, and nesting deeper than KB_EXPR_MAX_DEPTH
 * (parentheses, calls, arguments and operators each count one level), so that neither the
 * parser nor the evaluator, both recursive, can exhaust the stack. */
#define KB_EXPR_MAX_LENGTH (1 << 20)
#define KB_EXPR_MAX_DEPTH 64

typedef struct kb_expr kb_expr;

/* Parses a NUL-terminated source into a new expression, freed with kb_expr_free. On failure
 * *out is NULL. */
kb_status kb_expr_parse(const char *source, kb_expr **out);

/* Frees an expression; NULL is allowed. */
void kb_expr_free(kb_expr *expr);

/* A variable of the expression and the array it stands for. */
typedef struct kb_expr_binding {
    const char *name;
    const kb_array *array;
} kb_expr_binding;

/* Evaluates the expression into a new array that the caller frees with kb_array_free. The
 * bindings are only read; a name bound twice takes the first binding. Reductions run at the
 * dispatch level and thread count in force (kbench/simd.h, kbench/threads.h). */
kb_status kb_expr_eval(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                       kb_array *out);

/* Receives each warning NumPy would raise as a RuntimeWarning, in NumPy's words ("Mean of
 * empty slice", "Degrees of freedom <= 0 for slice", "invalid value encountered in reduce",
 * ...); the results are those NumPy gives (NaN, inf). */
typedef void (*kb_expr_warning)(const char *message, void *context);

/* kb_expr_eval, calling warn (when not NULL) with the warnings of each reduction and
 * elementwise operation. */
kb_status kb_expr_eval_warn(const kb_expr *expr, const kb_expr_binding *bindings, int nbindings,
                            kb_array *out, kb_expr_warning warn, void *context);

/* A Python scalar bound to a name (alpha=0.5): weak in promotion, as NEP 50 says, so that
 * x * alpha keeps a float32 x in float32. dtype is KB_BOOL, KB_INT64 or KB_F64 (Python's
 * bool, int and float), with the value in the matching member. */
typedef struct kb_expr_scalar {
    const char *name;
    kb_dtype dtype;
    union {
        bool b;
        int64_t i;
        double f;
    } value;
} kb_expr_scalar;

/* How an expression is evaluated (docs/fusion.md). FUSED, the default, groups the operations
 * into as few kernels as the planner's rules allow and runs each kernel over cache-sized tiles,
 * materialising only what the rules require; an expression outside what the fused executor
 * computes (docs/fusion.md says which) is evaluated eagerly. EAGER computes each operation into
 * a temporary, as NumPy does: the reference the fused results are tested against. */
typedef enum kb_expr_mode { KB_EXPR_FUSED, KB_EXPR_EAGER } kb_expr_mode;

/* Everything an evaluation reads besides the expression; zero-initialize, then set what is
 * used. A name is looked up among the expression's own assignments, then the arrays, then the
 * scalars. */
typedef struct kb_expr_inputs {
    const kb_expr_binding *bindings;
    int nbindings;
    const kb_expr_scalar *scalars;
    int nscalars;
    kb_expr_warning warn; /* NULL: no warnings */
    void *context;        /* passed to warn */
    kb_expr_mode mode;    /* KB_EXPR_FUSED unless set */
} kb_expr_inputs;

/* kb_expr_eval with scalars as well as arrays. Fails on an expression whose result is a tuple
 * (use kb_expr_eval_results). */
kb_status kb_expr_eval_inputs(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *out);

/* The number of results: the elements of a tuple written as the last statement, such as
 * (sum(a, axis=1), max(a, axis=1)), or 1. */
int kb_expr_result_count(const kb_expr *expr);

/* Evaluates an expression into nouts new arrays (nouts == kb_expr_result_count(expr)), which
 * the caller frees with kb_array_free; on failure none is left allocated. */
kb_status kb_expr_eval_results(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                               int nouts);

/* Evaluates an expression into arrays the caller allocated, one per result, each of the
 * result's dtype and shape (any strides, writable), which must not overlap the inputs. A fused
 * evaluation writes its results there and allocates none; an eager one (or a fused one that
 * falls back to eager) evaluates into new arrays and copies them. KB_EINVAL when an array's
 * dtype or shape is not its result's. */
kb_status kb_expr_eval_into(const kb_expr *expr, const kb_expr_inputs *inputs, kb_array *outs,
                            int nouts);

/* The memory traffic of one buffer in one kernel: an input read (a variable, or a temporary
 * an earlier kernel wrote) or an output written. Each buffer counts once per kernel, with all
 * its elements, however many times and in whatever order the kernel reads it: a (10,)
 * operand broadcast over a (10, 10) kernel counts 10, x and transpose(x) in one kernel count x
 * once. Python scalars are constants of the kernel, not traffic. */
typedef struct kb_expr_traffic {
    char name[32]; /* the variable's name, "tN" for temporaries, "outN" for results */
    kb_dtype dtype;
    int64_t elements;
    int64_t bytes;
} kb_expr_traffic;

/* One kernel of a plan: one pass over its loops, reading and writing the buffers listed. */
typedef struct kb_expr_kernel {
    char ops[256];   /* the operations in order, such as "max, sub, exp, sum, div" */
    char loops[256]; /* the iteration, such as "10 rows x 10, row in cache" */
    int nreads, nwrites;
    kb_expr_traffic *reads, *writes;
    int64_t elements_read, elements_written, bytes_read, bytes_written;
} kb_expr_kernel;

/* A plan: its kernels in the order they run, and their total traffic. numel is the elements
 * read plus the elements written over all kernels, as TorchInductor's tests count them. */
typedef struct kb_expr_plan {
    kb_expr_mode mode;
    char note[256]; /* why a fused evaluation fell back to eager; "" otherwise */
    int nkernels;
    kb_expr_kernel *kernels;
    int64_t numel;
    int64_t bytes;
} kb_expr_plan;

/* The plan an evaluation of the expression on these inputs runs, in inputs->mode, without
 * evaluating a fused plan (an eager plan, or a fused one that falls back to eager, is traced
 * from an evaluation). Freed with kb_expr_plan_free. */
kb_status kb_expr_explain(const kb_expr *expr, const kb_expr_inputs *inputs, kb_expr_plan *out);

/* Frees what kb_expr_explain allocated; a zeroed plan is allowed. */
void kb_expr_plan_free(kb_expr_plan *plan);

#ifdef __cplusplus
}
#endif

#endif

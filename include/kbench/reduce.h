#ifndef KBENCH_REDUCE_H
#define KBENCH_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/array.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reductions with NumPy's semantics.
 *
 * Result dtypes are NumPy's defaults: sum and prod widen bool and signed integers to int64
 * and unsigned integers to uint64; mean, var and std of bool and integers are float64;
 * float16 and bfloat16 are computed in float32 or better and rounded back; float32 and
 * float64 keep their type; min and max keep the input's type; argmin and argmax give int64.
 * Integer sums and products wrap around as NumPy's do. min and max propagate NaN; argmin
 * and argmax return the first occurrence of the extreme, or of the first NaN.
 *
 * Accuracy: floating sums (and so mean, var, std) accumulate in float64 in fixed blocks
 * whose partial sums are combined pairwise, along every axis, so the error grows with the
 * logarithm of the length. var and std take one pass over memory: each block's mean and
 * sum of squared deviations are computed while the block is in cache, and blocks merge
 * with Chan's formula.
 *
 * Determinism: the blocks and the order in which their partial results combine depend only
 * on the shape, never on the thread count, so results are bit-identical for any number of
 * threads. They may differ in the last bits between SIMD levels, whose lanes split the
 * work differently. */

typedef enum kb_reduce_op {
    KB_REDUCE_SUM,
    KB_REDUCE_PROD,
    KB_REDUCE_MEAN,
    KB_REDUCE_MIN,
    KB_REDUCE_MAX,
    KB_REDUCE_ARGMIN,
    KB_REDUCE_ARGMAX,
    KB_REDUCE_VAR,
    KB_REDUCE_STD,
    KB_REDUCE_OP_COUNT
} kb_reduce_op;

/* NumPy's name of the op ("sum", "argmax", ...) and its inverse. */
const char *kb_reduce_op_name(kb_reduce_op op);
kb_status kb_reduce_op_from_name(const char *name, kb_reduce_op *out);

typedef struct kb_reduce_args {
    kb_reduce_op op;
    /* Axes to reduce, negative counting from the end; naxes -1 means all (axis=None). An
     * empty tuple (naxes 0) reduces nothing, as in NumPy. argmin and argmax take one axis
     * or None. */
    int naxes;
    int axes[KB_MAX_DIMS];
    bool keepdims;
    double ddof; /* var and std: divide by max(N - ddof, 0), any real, as NumPy */
} kb_reduce_args;

/* Arguments for the op over all axes, keepdims false, ddof 0. */
kb_reduce_args kb_reduce_args_all(kb_reduce_op op);

/* Arguments for the op over a single axis. */
kb_reduce_args kb_reduce_args_axis(kb_reduce_op op, int axis);

/* The result's dtype and shape; fails with a message on a bad axis (such as "axis 2 out of
 * range for a 2-d array"), a repeated axis, an unsupported dtype or an empty reduction
 * that NumPy refuses (min, max, argmin, argmax over zero elements). */
kb_status kb_reduce_result(const kb_array *in, const kb_reduce_args *args, kb_dtype *dtype,
                           int *ndim, int64_t *shape);

/* Reduces into a new array that the caller frees with kb_array_free. */
kb_status kb_reduce(const kb_array *in, const kb_reduce_args *args, kb_array *out);

/* Reduces into an existing array of the result's dtype and shape (any strides), without
 * allocating when the reduction is small; the form to time. */
kb_status kb_reduce_into(const kb_array *in, const kb_reduce_args *args, kb_array *out);

/* The work of one reduction call, as the roofline counts it (docs/roofline.md): the least
 * traffic any implementation must have, each input element read once and each output
 * element written once, and the floating-point operations the op needs.
 *
 * FLOPs, for a reduction of m elements into one output:
 *   sum, prod, min, max, argmin, argmax: m (an add, multiply or compare per element; m - 1
 *     rounded up, so that no count depends on how the first element is taken)
 *   mean: m + 1 (the adds, then a divide)
 *   var: 4m + 2 (one pass: per element an add for the block mean, then a subtract, a multiply
 *     and an add for the squared deviation; per output the two divides)
 *   std: 4m + 3 (var, then a square root)
 * and none at all for an output of no elements.
 * Ops on integers that stay integer (sum, prod, min, max, argmin, argmax of an integer or bool
 * array) do no floating-point work: 0 FLOPs and flop_dtype KB_BOOL. */
typedef struct kb_reduce_work {
    int64_t elements;     /* input elements */
    int64_t outputs;      /* output elements */
    double bytes_read;    /* elements x input itemsize */
    double bytes_written; /* outputs x output itemsize */
    double flops;
    /* The type the arithmetic runs in: KB_F64 for sums, products, mean, var and std (they
     * accumulate in float64 whatever the input), the input's type for min, max, argmin and
     * argmax of float32 and float64 (float16 and bfloat16 count as float32, the narrowest type
     * they are widened to), KB_BOOL when there are no FLOPs. */
    kb_dtype flop_dtype;
} kb_reduce_work;

/* The work of kb_reduce_into(in, args, out); fails as kb_reduce_result does. */
kb_status kb_reduce_work_of(const kb_array *in, const kb_reduce_args *args, kb_reduce_work *out);

#ifdef __cplusplus
}
#endif

#endif

#ifndef KB_KERNELS_EW_H
#define KB_KERNELS_EW_H

#include <stdint.h>

#include "kbench/array.h"
#include "kbench/error.h"
#include "core/cache_size.h"
#include "kbench/simd.h"

/* Elementwise operations: NumPy's ufuncs that the expression language evaluates, each
 * applied by one driver (ew_driver.c: broadcasting, strides, casts, blocks, threads) to inner
 * loops over contiguous blocks of one compute type (ew_int.c for bool and the integers; for
 * float32 and float64 one table per dispatch level, ew_float_<level>.c, the vector levels
 * written once over the vector layer and SLEEF in ew_float_target.h; float16 computes in
 * float32 and rounds, as NumPy's float16 loops do). */
typedef enum kb_ew_op {
    /* binary */
    KB_EW_ADD,
    KB_EW_SUB,
    KB_EW_MUL,
    KB_EW_DIV,
    KB_EW_FLOORDIV,
    KB_EW_MOD,
    KB_EW_POW,
    KB_EW_MAXIMUM,
    KB_EW_MINIMUM,
    KB_EW_AND,
    KB_EW_OR,
    KB_EW_LT,
    KB_EW_LE,
    KB_EW_GT,
    KB_EW_GE,
    KB_EW_EQ,
    KB_EW_NE,
    /* unary */
    KB_EW_NEG,
    KB_EW_COPY, /* unary +, and astype: the driver's casts do the work */
    KB_EW_INVERT,
    KB_EW_ABS,
    KB_EW_SQRT,
    KB_EW_SQUARE,
    KB_EW_RECIPROCAL,
    KB_EW_EXP,
    KB_EW_EXPM1,
    KB_EW_EXP2,
    KB_EW_LOG,
    KB_EW_LOG1P,
    KB_EW_LOG2,
    KB_EW_LOG10,
    KB_EW_SIN,
    KB_EW_COS,
    KB_EW_TAN,
    KB_EW_ARCSIN,
    KB_EW_ARCCOS,
    KB_EW_ARCTAN,
    KB_EW_TANH,
    KB_EW_SINH,
    KB_EW_COSH,
    KB_EW_FLOOR,
    KB_EW_CEIL,
    KB_EW_RINT,
    KB_EW_SIGN,
    KB_EW_ISNAN,
    KB_EW_ISFINITE,
    KB_EW_SIGMOID,
    KB_EW_ERF,
    /* ternary: where(condition, a, b), the condition as bool */
    KB_EW_WHERE,
    KB_EW_OP_COUNT
} kb_ew_op;

/* Operands an op takes (1, 2 or 3). */
int kb_ew_arity(kb_ew_op op);

/* Whether the op's result is bool whatever it computes in (comparisons, isnan, isfinite). */
int kb_ew_is_predicate(kb_ew_op op);

/* What an inner loop found, or'ed over every block: NumPy's integer division by zero (the
 * result is 0 and NumPy warns), and an integer raised to a negative power (NumPy refuses). */
enum {
    KB_EW_DIVIDE_BY_ZERO = 1,
    KB_EW_NEGATIVE_POWER = 2,
};

/* An inner loop: n elements of contiguous operands of the compute type (the condition of
 * WHERE as bool bytes) into a contiguous out of the compute type, or bool for predicates. */
typedef void (*kb_ew_loop)(int64_t n, void *out, const void *const *in, unsigned *found);

/* The loop of op for compute type dtype (bool and the integers; float32 and float64 at a
 * dispatch level), or NULL when the op has none for it. For operands and output beyond the
 * caches (reach, core/cache_size.h), a float loop that prefetches ahead (far) or that also
 * writes with non-temporal stores (stream), where the level has one, else the nearer kind; each
 * computes every element as the plain loop does. A thread that ran a stream loop calls
 * kb_nt_fence before another thread reads what it wrote. */
kb_ew_loop kb_ew_int_loop(kb_ew_op op, kb_dtype dtype);
kb_ew_loop kb_ew_float_loop(kb_ew_op op, kb_dtype dtype, kb_simd_level level, kb_reach reach);

/* The sum of exp(x[i] - shift) over n contiguous elements of the compute type, each term as the
 * sub and exp loops of the same level give it (shift taken in the type), added in double: a
 * softmax's or logsumexp's denominator in one pass over a row, with nothing stored. */
typedef double (*kb_ew_exp_sum)(int64_t n, const void *x, double shift);

/* That sum's kernel for float32 or float64 at a dispatch level; NULL for other types. */
kb_ew_exp_sum kb_ew_float_exp_sum(kb_dtype dtype, kb_simd_level level);

/* Applies op to the operands broadcast together, NumPy's way, at the dispatch level in force:
 * each operand is cast to the loop type (float16 computes as float32), and the result, a new
 * C-ordered array in *out, is of out_dtype (the loop type's result cast to it). Fails when the
 * shapes do not broadcast (KB_EINVAL, "operands could not be broadcast together with shapes (2,3)
 * (4,)"), when the op has no loop for the type, and when a cast fails (NaN to an integer). *found
 * gets the loops' findings. Runs on the thread count in force for large arrays; every element is
 * computed by the same loop whatever the block or thread it falls in, so the result is
 * bit-identical for any thread count. */
kb_status kb_ew_apply(kb_ew_op op, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                      kb_dtype out_dtype, kb_array *out, unsigned *found);

/* kb_ew_apply into an existing array out (C-contiguous, not read-only) of the operands'
 * broadcast shape, whose dtype is the result's: for callers that reuse an output, such as the
 * `ew` benchmark suite, which times the op alone. Fails as kb_ew_apply does, and when out's shape
 * is not the broadcast shape; out's contents are then unspecified. */
kb_status kb_ew_apply_into(kb_ew_op op, int nin, const kb_array *const *in, kb_dtype loop_dtype,
                           kb_array *out, unsigned *found);

/* Casts n elements at src (byte stride src_stride, 0 for one value repeated) to a contiguous
 * dst, as NumPy's astype does; fails on NaN and out-of-range floats to integers. */
kb_status kb_ew_cast(kb_dtype dst_dtype, void *dst, kb_dtype src_dtype, const char *src,
                     int64_t src_stride, int64_t n);

#endif

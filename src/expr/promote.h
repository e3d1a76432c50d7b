#ifndef KB_EXPR_PROMOTE_H
#define KB_EXPR_PROMOTE_H

#include <stdbool.h>

#include "kbench/dtype.h"

/* NumPy 2's type promotion (numpy.result_type) over the dtypes the elementwise operations
 * take: bool, the integers, float16, float32 and float64. bfloat16 has no place in NumPy's
 * lattice (ml_dtypes adds it) and is refused by the callers.
 *
 * Python scalars (literals, and scalars bound by value) are "weak" (NEP 50): they take the
 * other operand's dtype when it is of their kind or a higher one (uint8 + 1 is uint8,
 * float32 * 0.5 is float32), and count as int64 or float64 otherwise (a bool array + 1 is
 * int64, an int32 array * 0.5 float64). Two weak operands give a weak result of the higher
 * kind. */

/* The kind of a Python scalar: bool < int < float. */
typedef enum kb_weak_kind { KB_WEAK_BOOL, KB_WEAK_INT, KB_WEAK_FLOAT } kb_weak_kind;

/* numpy.result_type(a, b) for two dtypes. */
kb_dtype kb_promote(kb_dtype a, kb_dtype b);

/* numpy.result_type(a, scalar) for a Python scalar of the given kind. */
kb_dtype kb_promote_weak(kb_dtype a, kb_weak_kind scalar);

/* The float type NumPy's float functions (sqrt, exp, ...) compute an integer or bool in: the
 * smallest that holds it exactly (float16 for bool, int8 and uint8, float32 for int16 and
 * uint16, float64 for the others); a float type is itself. */
kb_dtype kb_promote_float(kb_dtype a);

/* Whether the dtype takes part in elementwise operations. */
bool kb_promote_supported(kb_dtype a);

#endif

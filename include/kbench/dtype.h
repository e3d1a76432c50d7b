#ifndef KBENCH_DTYPE_H
#define KBENCH_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. The names match NumPy's (kb_dtype_name gives "float32", "bfloat16", ...). */
typedef enum kb_dtype {
    KB_BOOL,
    KB_INT8,
    KB_INT16,
    KB_INT32,
    KB_INT64,
    KB_UINT8,
    KB_UINT16,
    KB_UINT32,
    KB_UINT64,
    KB_F16,
    KB_BF16,
    KB_F32,
    KB_F64,
    KB_DTYPE_COUNT
} kb_dtype;

/* Size of one element in bytes; 0 for a value that is not a kb_dtype. */
size_t kb_dtype_size(kb_dtype dtype);

/* NumPy's name of the dtype ("int32", "float16", ...); "?" for an invalid value. */
const char *kb_dtype_name(kb_dtype dtype);

/* Parses a NumPy dtype name ("float32") or short alias ("f32", "f4", "i8", "bool", "bf16"). */
kb_status kb_dtype_from_name(const char *name, kb_dtype *out);

bool kb_dtype_is_float(kb_dtype dtype);   /* f16, bf16, f32, f64 */
bool kb_dtype_is_integer(kb_dtype dtype); /* signed or unsigned, not bool */
bool kb_dtype_is_signed(kb_dtype dtype);  /* signed integers and floats */

#ifdef __cplusplus
}
#endif

#endif

#ifndef KB_RESULTS_TRACE_OPS_H
#define KB_RESULTS_TRACE_OPS_H

#include <stdbool.h>

#include <jansson.h>

/* The work of one PyTorch CPU op, counted from the input shapes, types and strides the
 * profiler records with record_shapes=True (the event's args "Input Dims", "Input type",
 * "Input Strides" and "Concrete Inputs"): the FLOPs of a matrix product or convolution, and
 * the bytes of its tensor inputs read once and its output written once. docs/traces.md gives
 * every formula. */

/* The element types the peaks are chosen by. */
typedef enum kb_trace_dtype {
    KB_TRACE_F64,
    KB_TRACE_F32,
    KB_TRACE_F16,
    KB_TRACE_BF16,
    KB_TRACE_F8,
    KB_TRACE_I8,
    KB_TRACE_OTHER, /* a type without a peak of its own (int32, uint8, bool, complex, ...) */
} kb_trace_dtype;

typedef enum kb_trace_op_status {
    KB_TRACE_OP_OK,
    KB_TRACE_OP_UNKNOWN,     /* not an op the model counts (elementwise ops, copies, ...) */
    KB_TRACE_OP_NO_SHAPES,   /* a counted op whose shapes or types are missing or malformed */
    KB_TRACE_OP_UNSUPPORTED, /* shapes that do not fit the op, a transposed convolution */
} kb_trace_op_status;

typedef struct kb_trace_work {
    double flops, bytes;
    kb_trace_dtype dtype; /* of the operands */
    bool matrix;          /* a matrix product or convolution: may run on tensor cores */
    /* A convolution whose stride, padding and dilation were not recorded ("Concrete Inputs"
     * is absent): 1, 0 and 1 assumed. */
    bool assumed;
    char why[128]; /* for a status other than OK: what is missing or wrong */
} kb_trace_work;

/* Counts the work of the op called name from its event's args (NULL or not an object: no
 * shapes). */
kb_trace_op_status kb_trace_op_work(const char *name, const json_t *args, kb_trace_work *out);

/* "float32", "bfloat16", ...: the type's name in reports. */
const char *kb_trace_dtype_name(kb_trace_dtype dtype);

#endif

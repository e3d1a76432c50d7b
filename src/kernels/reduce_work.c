/* The bytes and FLOPs a reduction does, for the roofline. */
#include "kbench/reduce.h"

static bool accumulates(kb_reduce_op op) {
    return op == KB_REDUCE_SUM || op == KB_REDUCE_PROD || op == KB_REDUCE_MEAN ||
           op == KB_REDUCE_VAR || op == KB_REDUCE_STD;
}

kb_status kb_reduce_work_of(const kb_array *in, const kb_reduce_args *args, kb_reduce_work *out) {
    *out = (kb_reduce_work){0};
    kb_dtype out_dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS], outputs;
    kb_status st = kb_reduce_result(in, args, &out_dtype, &ndim, shape);
    if (st != KB_OK || (st = kb_shape_size(ndim, shape, 1, &outputs)) != KB_OK)
        return st;
    int64_t elements = kb_array_size(in);
    out->elements = elements;
    out->outputs = outputs;
    out->bytes_read = (double)elements * (double)kb_array_itemsize(in);
    out->bytes_written = (double)outputs * (double)kb_dtype_size(out_dtype);

    /* Integer results of integer inputs: no floating-point work. mean, var and std of
     * integers are float64 and count as such. */
    kb_dtype in_dtype = in->dtype;
    bool floats = kb_dtype_is_float(in_dtype);
    if (!floats &&
        !(args->op == KB_REDUCE_MEAN || args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD)) {
        out->flop_dtype = KB_BOOL;
        return KB_OK;
    }
    double m = outputs > 0 ? (double)elements / (double)outputs : 0;
    double per_element = 1, per_output = 0;
    if (args->op == KB_REDUCE_MEAN)
        per_output = 1;
    else if (args->op == KB_REDUCE_VAR || args->op == KB_REDUCE_STD)
        per_element = 4, per_output = args->op == KB_REDUCE_VAR ? 2 : 3;
    out->flops = m > 0 ? (double)outputs * (per_element * m + per_output) : 0;
    if (accumulates(args->op) || in_dtype == KB_F64)
        out->flop_dtype = KB_F64;
    else
        out->flop_dtype = KB_F32;
    return KB_OK;
}

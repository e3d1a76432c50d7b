/* kb_reduce and kb_reduce_into: the reductions' entry points, choosing the driver and kernels. */
#include <string.h>

#include "core/internal.h"
#include "kbench/reduce.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kernels/reduce_float.h"
#include "kernels/reduce_generic.h"
#include "kernels/reduce_kernels.h"
#include "kernels/reduce_plan.h"

#define TABLE(ID, name) KB_SIMD_TABLE_ENTRY(ID, kb_reduce_kernels_##name)
static const kb_reduce_kernels *(*const tables[KB_SIMD_LEVEL_COUNT])(void) = {
    KB_SIMD_REDUCE_TABLES(TABLE)};
#undef TABLE

const kb_reduce_kernels *kb_reduce_kernels_for(kb_simd_level level) {
    return tables[kb_simd_table_level(KB_SIMD_FAMILY_REDUCE, level)]();
}

kb_status kb_reduce_into(const kb_array *in, const kb_reduce_args *args, kb_array *out) {
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    kb_status st = kb_reduce_result(in, args, &dtype, &ndim, shape);
    if (st != KB_OK)
        return st;
    if (out->dtype != dtype)
        return kb_fail(KB_EINVAL, "%s of %s gives %s, but the output is %s",
                       kb_reduce_op_name(args->op), kb_dtype_name(in->dtype), kb_dtype_name(dtype),
                       kb_dtype_name(out->dtype));
    if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof shape[0]) != 0)
        return kb_fail(KB_EINVAL, "output shape does not match the result of %s",
                       kb_reduce_op_name(args->op));
    if (out->flags & KB_ARRAY_READONLY)
        return kb_fail(KB_EINVAL, "output array is read-only");

    kb_simd_level level;
    int threads;
    if ((st = kb_simd_current(&level)) != KB_OK || (st = kb_threads_current(&threads)) != KB_OK)
        return st;

    bool reduced[KB_MAX_DIMS];
    kb_reduce_plan_axes(in, args, reduced); /* checked by kb_reduce_result */
    kb_reduce_plan plan;
    kb_reduce_plan_build(&plan, in, args, reduced, out);
    if (plan.nout == 0)
        return KB_OK;
    if (kb_reduce_float_applies(&plan))
        return kb_reduce_float(&plan, kb_reduce_kernels_for(level), threads);
    return kb_reduce_generic(&plan, threads);
}

kb_status kb_reduce(const kb_array *in, const kb_reduce_args *args, kb_array *out) {
    kb_dtype dtype;
    int ndim;
    int64_t shape[KB_MAX_DIMS];
    kb_status st = kb_reduce_result(in, args, &dtype, &ndim, shape);
    if (st != KB_OK)
        return st;
    kb_array result;
    if ((st = kb_array_new(&result, dtype, ndim, shape, KB_ORDER_C)) != KB_OK)
        return st;
    if ((st = kb_reduce_into(in, args, &result)) != KB_OK) {
        kb_array_free(&result);
        return st;
    }
    *out = result;
    return KB_OK;
}

/* kb_reduce and kb_reduce_into: the reductions' entry points, choosing the driver and kernels. */
#include <stdatomic.h>
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

/* Each level's table, looked up once: the lookup is a fallback walk and a call, a sizeable part
 * of a small call. Racing first lookups store the same pointer. */
static const kb_reduce_kernels *_Atomic looked_up[KB_SIMD_LEVEL_COUNT];

static inline __attribute__((always_inline)) const kb_reduce_kernels *
kernels_at(kb_simd_level level) {
    if ((unsigned)level >= KB_SIMD_LEVEL_COUNT)
        level = KB_SIMD_SCALAR;
    const kb_reduce_kernels *k = atomic_load_explicit(&looked_up[level], memory_order_relaxed);
    if (!k) {
        k = tables[kb_simd_table_level(KB_SIMD_FAMILY_REDUCE, level)]();
        atomic_store_explicit(&looked_up[level], k, memory_order_relaxed);
    }
    return k;
}

const kb_reduce_kernels *kb_reduce_kernels_for(kb_simd_level level) {
    return kernels_at(level);
}

/* Small calls: the sum or mean of a whole 1-d contiguous float32 or float64 array of at most
 * one block, into a 0-d output of its dtype, skips the plan and the driver. The planned path
 * reduces such an input as one block with the same run kernel and rounds it the same way
 * (kb_reduce_store), so the bits are the same. Returns false to leave the call to the planned
 * path, which also reports every error. */
static bool reduce_small(const kb_array *in, const kb_reduce_args *args, kb_array *out) {
    if (args->naxes != -1 || (args->op != KB_REDUCE_SUM && args->op != KB_REDUCE_MEAN) ||
        in->ndim != 1 || out->ndim != 0 || out->dtype != in->dtype ||
        (out->flags & KB_ARRAY_READONLY))
        return false;
    bool f32 = in->dtype == KB_F32;
    int64_t n = in->shape[0], itemsize = f32 ? 4 : 8;
    if ((!f32 && in->dtype != KB_F64) || in->strides[0] != itemsize || n < 1 || n > KB_REDUCE_BLOCK)
        return false;
    kb_simd_level level;
    if (!kb_simd_known(&level) && kb_simd_current(&level) != KB_OK)
        return false;
    double sum = kernels_at(level)->sum[f32 ? KB_SUM_F32 : KB_SUM_F64].run(in->data, n, false);
    double value = args->op == KB_REDUCE_MEAN ? sum / (double)n : sum;
    if (f32) {
        float f = (float)value;
        memcpy(out->data, &f, sizeof f);
    } else {
        memcpy(out->data, &value, sizeof value);
    }
    return true;
}

kb_status kb_reduce_into(const kb_array *in, const kb_reduce_args *args, kb_array *out) {
    if (reduce_small(in, args, out))
        return KB_OK;
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

/* Deterministic pseudo-random inputs for the built-in suites. */
#include <math.h>
#include <stdbool.h>

#include "bench/inputs.h"
#include "kbench/half.h"
#include "core/internal.h"
#include "util/internal.h"

kb_status kb_bench_fill_uniform(kb_array *a, uint64_t seed, double lo, double hi) {
    bool typed =
        a->dtype == KB_F32 || a->dtype == KB_F64 || a->dtype == KB_F16 || a->dtype == KB_INT32;
    if (!typed || !(kb_array_is_c_contiguous(a) || kb_array_is_f_contiguous(a)))
        return kb_fail(KB_EINVAL,
                       "random inputs are contiguous float32, float64, float16 or int32 arrays");
    int64_t n = kb_array_size(a);
    double scale = (hi - lo) * 0x1p-53;
    for (int64_t i = 0; i < n; i++) {
        double v = lo + (double)(kb_splitmix64(seed + (uint64_t)i) >> 11) * scale;
        switch (a->dtype) {
            case KB_F32:
                ((float *)a->data)[i] = (float)v;
                break;
            case KB_F64:
                ((double *)a->data)[i] = v;
                break;
            case KB_F16:
                ((uint16_t *)a->data)[i] = kb_f32_to_f16((float)v);
                break;
            default:
                ((int32_t *)a->data)[i] = (int32_t)floor(v * KB_BENCH_INT_SCALE);
                break;
        }
    }
    return KB_OK;
}

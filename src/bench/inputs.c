/* Deterministic pseudo-random inputs for the built-in suites. */
#include "bench/inputs.h"
#include "core/internal.h"
#include "util/internal.h"

kb_status kb_bench_fill_uniform(kb_array *a, uint64_t seed, double lo, double hi) {
    if ((a->dtype != KB_F32 && a->dtype != KB_F64) ||
        !(kb_array_is_c_contiguous(a) || kb_array_is_f_contiguous(a)))
        return kb_fail(KB_EINVAL, "random inputs are contiguous float32 or float64 arrays");
    int64_t n = kb_array_size(a);
    double scale = (hi - lo) * 0x1p-53;
    if (a->dtype == KB_F32) {
        float *p = a->data;
        for (int64_t i = 0; i < n; i++)
            p[i] = (float)(lo + (double)(kb_splitmix64(seed + (uint64_t)i) >> 11) * scale);
    } else {
        double *p = a->data;
        for (int64_t i = 0; i < n; i++)
            p[i] = lo + (double)(kb_splitmix64(seed + (uint64_t)i) >> 11) * scale;
    }
    return KB_OK;
}

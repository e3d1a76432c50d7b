#include "bench/inputs.h"
#include "core/internal.h"

/* Steele, Lea and Flood's splitmix64 finalizer: consecutive inputs give independent-looking
 * outputs, which is what a counter-based generator needs. */
static uint64_t splitmix64(uint64_t x) {
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

kb_status kb_bench_fill_uniform(kb_array *a, uint64_t seed, double lo, double hi) {
    if ((a->dtype != KB_F32 && a->dtype != KB_F64) ||
        !(kb_array_is_c_contiguous(a) || kb_array_is_f_contiguous(a)))
        return kb_fail(KB_EINVAL, "random inputs are contiguous float32 or float64 arrays");
    int64_t n = kb_array_size(a);
    double scale = (hi - lo) * 0x1p-53;
    if (a->dtype == KB_F32) {
        float *p = a->data;
        for (int64_t i = 0; i < n; i++)
            p[i] = (float)(lo + (double)(splitmix64(seed + (uint64_t)i) >> 11) * scale);
    } else {
        double *p = a->data;
        for (int64_t i = 0; i < n; i++)
            p[i] = lo + (double)(splitmix64(seed + (uint64_t)i) >> 11) * scale;
    }
    return KB_OK;
}

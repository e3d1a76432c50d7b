/* The float reductions' kernels compiled for AVX2 and FMA: written once (reduce_target.h),
 * built here with this target's flags. */
#define KB_VEC_AVX2
#include "kernels/reduce_target.h"

static const kb_reduce_kernels avx2_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_avx2(void) {
    return &avx2_kernels;
}

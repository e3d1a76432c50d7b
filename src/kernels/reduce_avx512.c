/* The float reductions' kernels compiled for AVX-512 (F, BW, DQ, VL): written once
 * (reduce_target.h), built here with this target's flags. */
#define KB_VEC_AVX512
#include "kernels/reduce_target.h"

static const kb_reduce_kernels avx512_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_avx512(void) {
    return &avx512_kernels;
}

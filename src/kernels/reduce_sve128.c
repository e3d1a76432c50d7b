/* The float reductions' kernels compiled for SVE at 128-bit vectors: written once
 * (reduce_target.h), built here with -msve-vector-bits=128 (cmake/simd.cmake). */
#define KB_VEC_SVE
#define KB_SVE_BITS 128
#include "kernels/reduce_target.h"

static const kb_reduce_kernels sve128_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_sve128(void) {
    return &sve128_kernels;
}

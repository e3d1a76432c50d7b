/* The float reductions' kernels compiled for SVE at 256-bit vectors: written once
 * (reduce_target.h), built here with -msve-vector-bits=256 (cmake/simd.cmake). */
#define KB_VEC_SVE
#define KB_SVE_BITS 256
#include "kernels/reduce_target.h"

static const kb_reduce_kernels sve256_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_sve256(void) {
    return &sve256_kernels;
}

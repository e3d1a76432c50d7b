/* The float reductions' kernels compiled for SVE at 512-bit vectors: written once
 * (reduce_target.h), built here with -msve-vector-bits=512 (cmake/simd.cmake). */
#define KB_VEC_SVE
#define KB_SVE_BITS 512
#include "kernels/reduce_target.h"

static const kb_reduce_kernels sve512_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_sve512(void) {
    return &sve512_kernels;
}

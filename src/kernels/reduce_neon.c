/* The float reductions' kernels compiled for NEON (AArch64 Advanced SIMD): written once
 * (reduce_target.h), built here with this target's flags. */
#define KB_VEC_NEON
#include "kernels/reduce_target.h"

static const kb_reduce_kernels neon_kernels = KB_REDUCE_KERNELS_TABLE;

const kb_reduce_kernels *kb_reduce_kernels_neon(void) {
    return &neon_kernels;
}

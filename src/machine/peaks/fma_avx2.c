/* The FMA chains compiled for AVX2 and FMA (written once in fma_target.h). */
#define KB_VEC_AVX2
#include "machine/peaks/fma_target.h"

const kb_fma_kernels kb_fma_kernels_avx2 = KB_FMA_KERNELS_TABLE;

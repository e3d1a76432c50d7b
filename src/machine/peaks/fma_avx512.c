/* The FMA chains compiled for AVX-512 (written once in fma_target.h). */
#define KB_VEC_AVX512
#include "machine/peaks/fma_target.h"

const kb_fma_kernels kb_fma_kernels_avx512 = KB_FMA_KERNELS_TABLE;

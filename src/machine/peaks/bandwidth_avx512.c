/* The bandwidth kernels compiled for AVX-512 (written once in bandwidth_target.h). */
#define KB_VEC_AVX512
#include "machine/peaks/bandwidth_target.h"

const kb_bw_kernels kb_bw_kernels_avx512 = KB_BW_KERNELS_TABLE;

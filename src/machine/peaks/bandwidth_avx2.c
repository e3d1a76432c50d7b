/* The bandwidth kernels compiled for AVX2 and FMA (written once in bandwidth_target.h). */
#define KB_VEC_AVX2
#include "machine/peaks/bandwidth_target.h"

const kb_bw_kernels kb_bw_kernels_avx2 = KB_BW_KERNELS_TABLE;

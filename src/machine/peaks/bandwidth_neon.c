/* The bandwidth kernels compiled for NEON (written once in bandwidth_target.h). */
#define KB_VEC_NEON
#include "machine/peaks/bandwidth_target.h"

const kb_bw_kernels kb_bw_kernels_neon = KB_BW_KERNELS_TABLE;

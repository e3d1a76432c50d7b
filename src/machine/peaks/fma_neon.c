/* The FMA chains compiled for NEON (written once in fma_target.h). */
#define KB_VEC_NEON
#include "machine/peaks/fma_target.h"

const kb_fma_kernels kb_fma_kernels_neon = KB_FMA_KERNELS_TABLE;

/* The float elementwise loops at the avx512 level (the vector layer's AVX512 target and SLEEF). */
#define KB_VEC_AVX512
#include "kernels/ew_float_target.h"

KB_EW_FLOAT_TABLE(avx512)

/* The float elementwise loops at the avx2 level (the vector layer's AVX2 target and SLEEF). */
#define KB_VEC_AVX2
#include "kernels/ew_float_target.h"

KB_EW_FLOAT_TABLE(avx2)

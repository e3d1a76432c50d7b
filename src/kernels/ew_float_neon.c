/* The float elementwise loops at the neon level (the vector layer's NEON target and SLEEF). */
#define KB_VEC_NEON
#include "kernels/ew_float_target.h"

KB_EW_FLOAT_TABLE(neon)

#ifndef KB_KERNELS_REDUCE_GENERIC_H
#define KB_KERNELS_REDUCE_GENERIC_H

#include "kernels/reduce_plan.h"

/* Every dtype and every stride pattern, one output at a time, element by element: the
 * path for what the float kernels do not take (reduce_float.h): integer sums and extremes,
 * bool, float16 and bfloat16 extremes, var and std, products, and views with no contiguous
 * dimension. Floating results use the same blocked pairwise summation as the
 * float kernels; integer sums and products wrap modulo 2^64. */
kb_status kb_reduce_generic(const kb_reduce_plan *plan, int threads);

#endif

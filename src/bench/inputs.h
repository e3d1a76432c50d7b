#ifndef KB_BENCH_INPUTS_H
#define KB_BENCH_INPUTS_H

#include <stdint.h>

#include "kbench/array.h"

/* The seed of every built-in benchmark input, so that runs (and baselines fed the same
 * bytes) measure identical data. */
#define KB_BENCH_SEED UINT64_C(0x6b62656e6368)

/* int32 inputs are whole numbers uniform between lo and hi times this, so that their sums and
 * means are not mostly zeros. */
#define KB_BENCH_INT_SCALE 1000.0

/* Fills a contiguous float32, float64 or float16 array with values uniform between lo and hi
 * (float16 rounded from float32), or an int32 array with the floor of such values times
 * KB_BENCH_INT_SCALE: element i (in memory order) comes from splitmix64(seed + i), so any part
 * of an input can be made again independently. KB_EINVAL for another dtype or a
 * non-contiguous array. */
kb_status kb_bench_fill_uniform(kb_array *a, uint64_t seed, double lo, double hi);

#endif

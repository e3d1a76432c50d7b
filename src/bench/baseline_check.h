#ifndef KB_BENCH_BASELINE_CHECK_H
#define KB_BENCH_BASELINE_CHECK_H

#include <stddef.h>

#include "kbench/bench.h"

/* Compares the group's output (bc->output) with the baseline's result theirs: *error is the
 * largest difference in units of the tolerance (0: identical; above 1: beyond tolerance;
 * INFINITY: another shape, or a NaN on one side only), and detail says where the first
 * difference beyond tolerance lies ("" when none). Fails only when out of memory. */
kb_status kb_baseline_check(const kb_bench_baseline_case *bc, const kb_array *theirs, double *error,
                            char *detail, size_t size);

#endif

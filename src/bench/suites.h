#ifndef KB_BENCH_SUITES_H
#define KB_BENCH_SUITES_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/bench.h"
#include "kernels/ew.h"

/* The built-in suites, each adding its cases to a plan (then kb_plan_finish_suite). */
kb_status kb_suite_reduce_add(kb_bench_plan *plan, const char *suite, int quick);
kb_status kb_suite_mean_axis0_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_expr_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_ew_add(kb_bench_plan *plan, const char *suite);
/* The elementwise op of the ew suite's case of that name ("add", "exp", "where", ...). */
bool kb_suite_ew_op(const char *name, kb_ew_op *op);
kb_status kb_suite_selftest_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_failing_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_plausibility_add(kb_bench_plan *plan, const char *suite);

/* The axes of the expr and ew suites (suite_axes.c). Size: the bytes of a working set named
 * "L2" (half the L2 cache; 512 KiB when the machine reports none) or "DRAM" (four times the
 * last-level cache; 128 MiB when none is reported), and the case's cost weight for sharding
 * (4 for DRAM, else 1). SIMD: "scalar", and "auto" where the CPU has a vector level; the count.
 * Threads: "1", and all usable cores (written into all_cores) where there are several; the
 * count. */
int64_t kb_suite_size_bytes(const char *size);
double kb_suite_size_cost(const kb_bench_case *c);
int kb_suite_levels(const char *levels[2]);
int kb_suite_threads(char all_cores[16], const char *threads[2]);

#endif

#ifndef KB_BENCH_SUITES_H
#define KB_BENCH_SUITES_H

#include "kbench/bench.h"

/* The built-in suites, each adding its cases to a plan (then kb_plan_finish_suite). */
kb_status kb_suite_reduce_add(kb_bench_plan *plan, const char *suite, int quick);
kb_status kb_suite_mean_axis0_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_expr_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_ew_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_selftest_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_failing_add(kb_bench_plan *plan, const char *suite);
kb_status kb_suite_plausibility_add(kb_bench_plan *plan, const char *suite);

#endif

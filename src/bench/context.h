#ifndef KB_BENCH_CONTEXT_H
#define KB_BENCH_CONTEXT_H

#include "bench/plan.h"

/* Fills what a run's numbers depend on: date, build, machine, clock (measured now), SIMD
 * and thread settings, environment warnings and variables, timer, settings, selection. */
kb_status kb_context_fill(kb_bench_context *c, const kb_bench_settings *settings,
                          const kb_bench_plan *plan);

/* The last-level cache of this machine in bytes (32 MiB when it reports none). */
int64_t kb_context_llc_bytes(const kb_machine *m);

#endif

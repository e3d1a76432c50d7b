/* The bandwidth probes of a run: each bandwidth figure its results are held against, measured
 * briefly before the first group that needs it and again after the last case. */
#ifndef KB_BENCH_PROBE_H
#define KB_BENCH_PROBE_H

#include "kbench/bench.h"

/* Probes are recorded in the context's probes, and their figures added to the history of the
 * context's copy of the peaks, which the results are then held against. */
typedef struct kb_probes {
    kb_bench_context *context;
    double seconds; /* about this long per figure */
} kb_probes;

/* Measures, for a group whose counts setup has filled, the figures its implementations'
 * thread counts need that the run has not probed yet. A figure that cannot be measured (out
 * of memory for its working set) stays unprobed. */
void kb_probes_before_group(kb_probes *probes, const kb_bench_case *group, const int *threads,
                            int n);

/* Measures every probed figure again, then kb_probes_check. */
void kb_probes_after(kb_probes *probes);

/* Adds the bandwidth_changed warning to the context when a pair of its probes disagrees
 * (kb_bw_probes_disagree), naming the figure that changed most. */
void kb_probes_check(kb_bench_context *context);

#endif

#ifndef KB_BENCH_MEASURE_H
#define KB_BENCH_MEASURE_H

#include <stdint.h>

#include "bench/baseline_process.h"
#include "bench/flush.h"
#include "bench/pin.h"
#include "bench/plan.h"
#include "bench/probe.h"

/* How the groups of one run are measured. */
typedef struct kb_measure_env {
    const kb_bench_settings *settings;
    int64_t target_ns;     /* sample length to aim for */
    int64_t warmup_ns;     /* per implementation, before its first sample */
    const kb_flush *flush; /* NULL: hot caches */
    const kb_pin *pin;     /* NULL: not pinned */
    /* The baseline runner, with the settings' baselines; NULL without. A directory of its
     * own for the .npy files it shares. */
    kb_baseline_process *baseline;
    const char *baseline_dir;
    /* The peaks results are held against: the run's copy, whose history the probes add to;
     * NULL without peaks. The probes, NULL without; probes and nprobes point into the
     * context, where they are recorded. */
    const kb_peaks *peaks;
    kb_probes *probe;
    const kb_bench_probe *probes;
    const int *nprobes;
} kb_measure_env;

/* The most results a group can add for its baselines. */
#define KB_MEASURE_MAX_BASELINES 2

/* Measures the group of cases [first, end) of the plan: one setup, each implementation
 * calibrated, then interleaved rounds until every implementation has at least min_samples
 * samples that add up to at least min_time (a round takes one sample of the implementation
 * with the fewest still to take, and proportionally more of the others); all that
 * `repetitions` times; one teardown. Fills results[0 .. end - first), failed cases
 * included, then one result per baseline the runner could compute, *nbaselines of them (at
 * most KB_MEASURE_MAX_BASELINES). Fails only when out of memory. */
kb_status kb_measure_group(const kb_bench_plan *plan, int first, int end, const kb_measure_env *env,
                           kb_bench_result *results, int *nbaselines);

#endif

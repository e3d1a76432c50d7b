#ifndef KB_BENCH_IMPL_H
#define KB_BENCH_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/baseline_process.h"
#include "bench/plan.h"
#include "kbench/bench.h"

/* One implementation of a group while it is measured: the case as run sees it, the settings
 * the harness applies before each of its samples, and the samples taken so far. */
typedef struct kb_impl {
    const kb_bench_spec *spec;
    kb_bench_case c;
    bool has_simd;
    int simd_request; /* kb_simd_parse's value */
    int threads;      /* 0 when the case has no "threads" parameter */
    int64_t calls;    /* per sample, once calibrated */
    double sample_ns; /* expected length of one sample, from the calibration */
    /* This repetition so far: samples taken, and their total time. */
    int64_t rep_count;
    double rep_time_ns;
    int64_t block; /* samples per round in this repetition */
    bool failed;
    char error[256];
    kb_simd_level simd_used;
    int threads_used;
    int64_t *samples;
    int64_t nsamples, capacity;
    int64_t *repetition_samples;
    kb_sample_block *blocks; /* when the samples were taken */
    int64_t nblocks, blocks_capacity;
    /* A baseline: the runner times it, and spec is NULL. id names its case in the runner's
     * group ("numpy", "torch/threads=2"). */
    kb_baseline_process *baseline;
    const char *library;
    const char *id;
} kb_impl;

/* Times one sample of `calls` calls; the case's status tells whether run failed. */
static inline int64_t kb_impl_sample(kb_impl *m, int64_t calls) {
    if (m->baseline) {
        int64_t t = 0;
        if (kb_baseline_run(m->baseline, m->id, calls, 1, &t) != KB_OK)
            kb_bench_fail(&m->c, KB_EIO, "%s", kb_last_error());
        return t;
    }
    int64_t t0 = kb_bench_now_ns();
    m->spec->run(&m->c, calls);
    int64_t t1 = kb_bench_now_ns();
    return t1 - t0;
}

/* Marks the implementation failed with the case's message (or the given one). */
void kb_impl_fail(kb_impl *m, const char *message);

/* Sets the SIMD level and thread count the implementation asks for, and records what is in
 * force. False (and the implementation failed) when a setting is refused. */
bool kb_impl_apply(kb_impl *m);

/* Warms the implementation up for at least warmup_ns and chooses its calls per sample:
 * about target_ns per sample, or with `fewest` the fewest calls that last target_ns (cold
 * caches: the fewer calls after the flush, the colder the sample). */
void kb_calibrate(kb_impl *m, int64_t target_ns, int64_t warmup_ns, bool fewest);

#endif

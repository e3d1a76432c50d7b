#ifndef KB_BENCH_MEASURE_H
#define KB_BENCH_MEASURE_H

#include <stdint.h>

#include <jansson.h>

#include "bench/baseline_process.h"
#include "bench/colocate.h"
#include "bench/flush.h"
#include "bench/pin.h"
#include "bench/plan.h"
#include "bench/probe.h"

/* The steps of the sampling rounds, in the order they happen, whichever process takes them
 * (a baseline's happen in the runner, as kbench asks it to): an untimed call that leaves the
 * caches as the implementation's own samples leave them (hot), a read of the flush buffer
 * (cold), and a timed sample. */
typedef enum kb_measure_step {
    KB_MEASURE_WARM,
    KB_MEASURE_FLUSH,
    KB_MEASURE_SAMPLE,
} kb_measure_step;

/* The untimed calls that start a hot block of samples whose working set lies between the L2
 * caches and the size of the last-level cache, after a block that read other memory (measure.c's
 * warm_calls). One call refills the private caches, but the last level of AMD's Zen cores is
 * filled by what the L2 caches evict, not by every line read: after another process streamed
 * its own copy of the input through it, one call left part of the data out. Float64 1024x1024
 * sums along axis 1 interleaved with NumPy, PyTorch and JAX (Zen 4, one thread): after one call
 * kbench took 108-147 us with a MAD of 3-6% and JAX 173-212 us; after 3 or 4 calls 86-89 us with
 * a MAD of 0.1% and JAX 121 us (docs/measurement.md). Where one call would do (a last level that
 * holds every line read), the others cost only their time. */
#define KB_MEASURE_REFILL_CALLS 4

/* Where a baseline's process takes turns with the others and caches are hot: how long the
 * untimed calls that start a multi-thread implementation's block last, at least, after another
 * process's block (or the start), and how long its blocks of samples last, at least (measure.c's
 * warm_calls and size_blocks). A scheduler may pack the threads of a process that slept onto
 * one CPU, and spread them again only once they have run for a while: on the Linux guests
 * kbench has run on here (kernel parameter sched_vcpu_pack), two threads back from 50 ms asleep
 * ran apart within 5 ms in two tries of four, within 20 ms and not within 100 ms in the others.
 * Interleaved in blocks of one sample, kbench's float32 1024x1024 max along axis 1 at two
 * threads took 61-95 us where it takes 29 alone, PyTorch's 130-700 us where it takes 46 (`perf
 * sched timehist`: both threads of either process took turns on one CPU while the other was
 * idle); with these, 28.7 and 38.9 us in one run (docs/measurement.md). The longer blocks keep
 * the warm-up to a third of the time, and make fewer rounds: 16 two-thread cases with PyTorch
 * took 8.6 s instead of 22. */
#define KB_MEASURE_SPREAD_NS 5000000
#define KB_MEASURE_THREADED_BLOCK_NS 10000000

/* How the groups of one run are measured. */
typedef struct kb_measure_env {
    const kb_bench_settings *settings;
    int64_t target_ns;     /* sample length to aim for */
    int64_t warmup_ns;     /* per implementation, before its first sample */
    const kb_flush *flush; /* NULL: hot caches */
    const kb_pin *pin;     /* NULL: not pinned */
    /* The baseline runners, with the settings' baselines: the Python one (NumPy, numexpr,
     * PyTorch, JAX) and another build of kbench (`kbench serve`); NULL without. A directory
     * of their own for the .npy files they share. */
    kb_baseline_process *baseline;
    kb_baseline_process *kbench_baseline;
    const char *baseline_dir;
    /* With baselines: single-thread implementations, own and baseline, are timed on one CPU
     * (bench/colocate.h); NULL without. */
    kb_colocate *colocate;
    /* The peaks results are held against: the run's copy, whose history the probes add to;
     * NULL without peaks. The probes, NULL without; probes and nprobes point into the
     * context, where they are recorded. */
    const kb_peaks *peaks;
    kb_probes *probe;
    const kb_bench_probe *probes;
    const int *nprobes;
    /* NULL, or an array that receives {"case","library","reason"} for each baseline that
     * cannot compute its group's case (reported, not timed). */
    json_t *unsupported;
    /* NULL, or told of every step of the rounds, with the implementation's index in the
     * group (its own cases first, then its baselines): how tests see the protocol. */
    void (*trace)(void *arg, kb_measure_step step, int impl);
    void *trace_arg;
    /* NULL, or told once the group's implementations are known, before any is probed,
     * calibrated or sampled: the group has its own cases and nbaselines baselines, fewer than
     * kb_measure_baselines_planned when a library cannot compute the case or the group's
     * setup failed. How progress counts what each group adds to the results. */
    void (*ready)(void *arg, int nbaselines);
    void *ready_arg;
} kb_measure_env;

/* Every baseline but NumPy runs at each thread count of the group's implementations, up to
 * this many. */
#define KB_MEASURE_MAX_THREAD_COUNTS 4
/* The most results a group can add for its baselines: NumPy, and numexpr, PyTorch,
 * torch.compile, JAX, kbench's Python module and another kbench build at each thread count. */
#define KB_MEASURE_MAX_BASELINES (1 + 6 * KB_MEASURE_MAX_THREAD_COUNTS)

/* The baselines kb_measure_group will ask the runner for, for the group of cases [first, end):
 * NumPy once, every other library at each thread count of its cases; none without a runner or
 * when the cases' definition has no baseline_case. At least as many as it reports. */
int kb_measure_baselines_planned(const kb_bench_plan *plan, int first, int end,
                                 const kb_measure_env *env);

/* Measures the group of cases [first, end) of the plan: one setup, each implementation
 * calibrated, then interleaved rounds until every implementation has at least min_samples
 * samples that add up to at least min_time (a round takes one sample of the implementation
 * with the fewest still to take, and proportionally more of the others; beside a baseline's
 * process, as many more as make each multi-thread block KB_MEASURE_THREADED_BLOCK_NS); all that
 * `repetitions` times; one teardown. With hot caches, each implementation's block of samples
 * follows an untimed call of the same implementation, unless what ran just before left the
 * caches as that call would (its own sample, or a sample of another of the group's own
 * implementations at the same thread count); with cold caches, every sample follows a flush.
 * Baselines alike, in the runner's processes. Fills
 * results[0 .. end - first), failed cases included, then one result per baseline the runner could
 * compute, *nbaselines of them (at most KB_MEASURE_MAX_BASELINES). Fails only when out of memory.
 */
kb_status kb_measure_group(const kb_bench_plan *plan, int first, int end, const kb_measure_env *env,
                           kb_bench_result *results, int *nbaselines);

#endif

#ifndef KBENCH_BENCH_H
#define KBENCH_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/array.h"
#include "kbench/environment.h"
#include "kbench/error.h"
#include "kbench/machine.h"
#include "kbench/peaks.h"
#include "kbench/roofline.h"
#include "kbench/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The benchmark harness: define cases, measure them, get statistics.
 *
 * A benchmark is a kb_bench_def: a name, a parameter space (axes whose values combine as a
 * cartesian product into cases), optional setup and teardown, a run function that calls the
 * code under test a given number of times, and the bytes moved and FLOPs done per call. The
 * harness times samples of calls_per_sample calls each on CLOCK_MONOTONIC_RAW, chosen so that
 * a sample lasts at least 1000 times the timer's measured resolution, and reports robust
 * statistics of the time per call. docs/measurement.md explains the protocol;
 * docs/results-schema.md the results file. kb_bench_main (kbench/bench_main.h) turns a list
 * of definitions into a program with the options of `kbench run`. */

/* ---- Barriers, for the body of a run function ----
 *
 * kb_do_not_optimize(&x) makes the compiler assume x (and any memory) is read at this point,
 * so the computation that produced x cannot be removed; kb_clobber_memory() makes it assume
 * all memory may be read and written, so stores before it happen and loads after it repeat.
 * Both compile to no instruction. */
#if defined(__GNUC__) || defined(__clang__)
static inline void kb_do_not_optimize(const void *value) {
    __asm__ __volatile__("" : : "r"(value) : "memory");
}
static inline void kb_clobber_memory(void) {
    __asm__ __volatile__("" : : : "memory");
}
#else
#error "kbench/bench.h needs GCC or Clang inline assembly for its barriers"
#endif

/* ---- Defining benchmarks ---- */

enum kb_bench_axis_flags {
    /* The case name shows the value alone ("f32") rather than "name=value" ("dtype=f32"). */
    KB_BENCH_AXIS_BARE = 1u << 0,
    /* The axis chooses an implementation of the same computation. Cases that differ only in
     * implementation axes form a group: set up once and sampled in interleaved rounds (A B C
     * A B C ...; a much faster implementation takes a block of samples per round), so that
     * drift in the machine's speed falls on all of them alike. The axes named "simd" and
     * "threads" are implementation axes whatever their flags. */
    KB_BENCH_AXIS_IMPLEMENTATION = 1u << 1,
};

/* One parameter of a benchmark and its values, in the order cases are named and run.
 *
 * Two names are applied by the harness before each sample: "simd" (auto, scalar, avx2,
 * avx512, neon, sve, or "all" for scalar, each available level and auto; levels this build or
 * CPU cannot run are left out) sets kb_simd_set, and "threads" (a count, or "all" for
 * kb_usable_cores()) sets kb_threads_set. */
typedef struct kb_bench_axis {
    const char *name;          /* letters, digits and '_' */
    const char *const *values; /* NULL-terminated; no '/' in a value */
    unsigned flags;            /* kb_bench_axis_flags */
} kb_bench_axis;

#define KB_BENCH_MAX_PARAMS 16

/* What the callbacks of a kb_bench_def see. setup and teardown run once per group, with
 * the group's name and only its non-implementation parameters; run sees one case, with all
 * of them. data, and the counts set by setup, are shared by the whole group. */
typedef struct kb_bench_case {
    const char *name;
    int nparams;
    const char *param_names[KB_BENCH_MAX_PARAMS];
    const char *param_values[KB_BENCH_MAX_PARAMS];
    void *user;               /* kb_bench_def.user */
    void *data;               /* for setup to fill, for run and teardown to use */
    double bytes_per_call;    /* bytes read plus bytes written by one call */
    double flops_per_call;    /* floating-point operations of one call */
    double working_set_bytes; /* memory one call touches (for the cache level); 0: bytes */
    /* What the roofline holds the case against (docs/roofline.md): the measured bandwidth of
     * this traffic pattern (a reduction reads: KB_BW_LOAD, the default) and the FLOP peak of
     * this type (default KB_FLOP_F32, the higher peak, so an unset type never makes a result
     * look impossible). */
    kb_bw_kernel traffic;
    kb_flop_type flop_type;
    /* Private to the harness: set through kb_bench_fail. */
    kb_status status;
    char error[256];
} kb_bench_case;

/* What a group computes, for the baselines of a run (--baseline; docs/baselines.md): the case
 * as the Python runner in baselines/ understands it, the input it reads (shared with the
 * runner through a .npy file, so that both sides see the same bytes), and the output array
 * the group's run writes, which is checked against the baseline's result. */
typedef struct kb_bench_baseline_case {
    char spec[256];         /* a JSON object: {"kind":"reduce","op":"sum","axis":0} */
    const kb_array *input;  /* the group's data, valid until teardown */
    const kb_array *output; /* holds the result of the last call of run */
    /* How the output is checked against the baseline's: exactly (min, max, indices, integer
     * results), or within rtol x (|ours| + |theirs|) / 2 + rtol x atol, with rtol by dtype
     * (kb_bench_baseline_rtol) and atol the size of the rounding errors' scale (for a sum of
     * m values of magnitude up to a: a sqrt(m)). */
    bool exact;
    double atol;
} kb_bench_baseline_case;

/* The relative tolerance of a baseline check for results of this dtype: 1e-2 for float16
 * and bfloat16, 1e-4 for float32, 1e-12 for float64 (what two correct summation orders can
 * differ by), 0 for integers. */
double kb_bench_baseline_rtol(kb_dtype dtype);

typedef struct kb_bench_def {
    const char *name;          /* first part of the case names ("mylib/dot"); no spaces */
    const kb_bench_axis *axes; /* ends with an axis whose name is NULL; NULL for no axes */
    /* Prepares the group (allocates and fills inputs, sets data and the counts). Optional;
     * a failure (kb_bench_fail, or a failing kbench call's status) fails every case of the
     * group and skips run and teardown. */
    kb_status (*setup)(kb_bench_case *c);
    /* Calls the code under test `calls` times; the harness times the whole call. Required.
     * Reports a failure with kb_bench_fail and returns. */
    void (*run)(kb_bench_case *c, int64_t calls);
    void (*teardown)(kb_bench_case *c); /* optional */
    /* Describes the group for the baselines; optional (a definition without it has none).
     * Called after setup. */
    kb_status (*baseline_case)(const kb_bench_case *group, kb_bench_baseline_case *out);
    double bytes_per_call; /* defaults copied into the case before setup */
    double flops_per_call;
    kb_bw_kernel traffic;
    kb_flop_type flop_type;
    /* Relative cost of one case, for cost-balanced --shard (1: an ordinary case). Optional;
     * sees the case's parameters only (no setup has run). */
    double (*cost)(const kb_bench_case *c);
    void *user; /* handed to the callbacks; must outlive the run */
    /* Sets the counts of one implementation where they differ from the group's: one that
     * computes another way and moves other bytes (the expr suite's eager evaluator beside its
     * fused one). Called after setup for each of the group's own implementations, with the
     * case as run sees it (all its parameters, the group's data, and the counts setup left);
     * may change bytes_per_call, flops_per_call and working_set_bytes. Optional. */
    void (*counts)(kb_bench_case *c);
} kb_bench_def;

/* Records a failure of the case, for setup and run: a one-line message kept in the
 * results. Returns status (KB_EINVAL when status is KB_OK) so that setup can
 *     return kb_bench_fail(c, KB_ENOMEM, "cannot allocate %lld bytes", (long long)n); */
kb_status kb_bench_fail(kb_bench_case *c, kb_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The value of the named parameter, or NULL when the case has none by that name. */
const char *kb_bench_param(const kb_bench_case *c, const char *name);

/* ---- Settings of a run ---- */

typedef enum kb_bench_cache {
    KB_BENCH_CACHE_HOT,  /* samples follow one another; caches keep what the last one left */
    KB_BENCH_CACHE_COLD, /* a buffer twice the last-level cache is read before each sample */
} kb_bench_cache;

/* "hot", "cold"; "?" for an invalid value. */
const char *kb_bench_cache_name(kb_bench_cache cache);

#define KB_BENCH_DEFAULT_MIN_TIME 0.1
#define KB_BENCH_MIN_SAMPLES 10
/* A sample lasts at least this many timer resolutions. */
#define KB_BENCH_RESOLUTION_FACTOR 1000
/* Hot samples are sized so that about this many fit the time budget: short enough that
 * preemption spoils few of them (the median ignores those), few enough to keep files small. */
#define KB_BENCH_TARGET_SAMPLES 1000

typedef struct kb_bench_settings {
    double min_time; /* seconds of samples per case and repetition */
    int min_samples; /* at least KB_BENCH_MIN_SAMPLES */
    int repetitions; /* the whole measurement (warm-up and samples) this many times */
    kb_bench_cache cache;
    bool pin; /* pin the calling thread and each OpenMP thread to its own core */
    /* The peaks every result is held against (roofline metrics and plausibility flags), or
     * NULL for none; read during kb_bench_run only. See kb_peaks_get. */
    const kb_peaks *peaks;
    /* Libraries to time each group's computation with, through the Python runner in
     * baselines/, interleaved with the group's own implementations: KB_BASELINE_* bits. */
    unsigned baselines;
    /* With KB_BASELINE_KBENCH: the other build's kbench executable, which the run starts as
     * `PATH serve`. */
    const char *kbench_baseline;
    /* With peaks: the bandwidth probes (docs/roofline.md). Each bandwidth figure the results
     * are held against (traffic pattern, level, thread count) is measured for about this
     * long before the first group that needs it and again after the last case; the figures
     * join the peaks' history, raise the bound when the machine is faster than the peaks
     * say, and a pair that disagrees adds the bandwidth_changed warning. 0 (the default):
     * no probes. `kbench run` probes for KB_BENCH_PROBE_SECONDS. */
    double probe_seconds;
    /* The usage monitor (kbench/monitor.h): a sample of the machine's activity every this many
     * seconds while the run measures, and a contended flag on each result timed while other
     * work took a quarter of a CPU or more. 0 (the default): no monitor. `kbench run` samples
     * every KB_BENCH_MONITOR_INTERVAL seconds. */
    double monitor_interval_s;
} kb_bench_settings;

#define KB_BENCH_MONITOR_INTERVAL 1.0

#define KB_BENCH_PROBE_SECONDS 1.0

/* A run's probe of one bandwidth figure, before and after its cases. */
typedef struct kb_bench_probe {
    int threads;
    kb_bw_kernel kernel;
    kb_mem_level level;
    int64_t working_set_bytes;
    double before, after;        /* bytes per second (likwid-bench counting); 0: not measured */
    int64_t before_at, after_at; /* seconds since the epoch */
} kb_bench_probe;

/* The most figures a run probes; more are left unprobed. */
#define KB_BENCH_MAX_PROBES 32

enum kb_baseline_library {
    KB_BASELINE_NUMPY = 1u << 0,
    KB_BASELINE_NUMEXPR = 1u << 1,
    KB_BASELINE_TORCH = 1u << 2,
    /* PyTorch's calls through torch.compile (TorchInductor), compiled before timing:
     * "torch-compile". */
    KB_BASELINE_TORCH_COMPILE = 1u << 3,
    KB_BASELINE_JAX = 1u << 4,
    /* kbench itself through its Python module (python/, docs/python.md), timed by the Python
     * runner like the libraries above: "python". */
    KB_BASELINE_PYTHON_MODULE = 1u << 5,
    /* Another build of kbench (kb_bench_settings.kbench_baseline), timed through its C API in
     * its own process: an A/B of two builds in one run. Always the last. */
    KB_BASELINE_KBENCH = 1u << 6,
};
/* The libraries the Python runner times. */
#define KB_BASELINE_PYTHON                                                                         \
    (KB_BASELINE_NUMPY | KB_BASELINE_NUMEXPR | KB_BASELINE_TORCH | KB_BASELINE_TORCH_COMPILE |     \
     KB_BASELINE_JAX | KB_BASELINE_PYTHON_MODULE)

/* What a baseline's time includes that kbench's does not, said wherever the two are compared:
 * kbench's own implementations are timed through its C API and the Python libraries through
 * Python calls; another build of kbench through its C API too; kbench through its Python
 * module through Python calls, like the libraries it is compared with there. */
#define KB_BASELINE_COMPARISON "C call vs Python call"
#define KB_BASELINE_COMPARISON_KBENCH "C call vs C call of another kbench build"
#define KB_BASELINE_COMPARISON_BOTH                                                                \
    "C call vs Python call; C call vs C call of another kbench build"
#define KB_BASELINE_COMPARISON_PYTHON "Python call vs Python call"

/* The comparisons the given libraries (KB_BASELINE_* bits) make, "; "-separated: Python call
 * vs Python call first when kbench's Python module is timed beside other Python libraries,
 * then the C-call comparisons above. */
const char *kb_baseline_comparison(unsigned libraries);

/* "numpy", "numexpr", "torch", "torch-compile", "jax", "python", "kbench"; "?" for anything
 * else. */
const char *kb_baseline_name(unsigned library);

/* The KB_BASELINE_* bit of a library's name; 0 for an unknown name. */
unsigned kb_baseline_from_name(const char *name);

void kb_bench_settings_default(kb_bench_settings *settings);

/* KB_EINVAL with a message for a setting out of range. */
kb_status kb_bench_settings_check(const kb_bench_settings *settings);

/* ---- The timer ---- */

typedef struct kb_bench_timer {
    double resolution_ns; /* smallest positive step seen between two consecutive readings */
    double overhead_ns;   /* mean cost of one reading */
    double reported_ns;   /* what clock_getres reports */
} kb_bench_timer;

/* Nanoseconds on CLOCK_MONOTONIC_RAW, which NTP does not slew. */
int64_t kb_bench_now_ns(void);

/* Measures the timer's resolution and overhead (a few milliseconds). */
kb_status kb_bench_timer_measure(kb_bench_timer *out);

/* ---- Statistics ---- */

/* Robust summary of a sample set (times per call, in nanoseconds). Quartiles interpolate
 * linearly between order statistics (NumPy's default); mad is the unscaled median absolute
 * deviation; stddev uses n - 1; the confidence interval of the median is [x(l), x(n+1-l)]
 * with the largest l whose binomial tail P(B <= l - 1), B ~ Bin(n, 1/2), is at most 2.5%,
 * and ci_coverage is its exact coverage (below 0.95 only when n < 6, where the interval is
 * [min, max]). Outliers lie beyond Tukey's fences, q1 - 1.5 IQR and q3 + 1.5 IQR; they are
 * counted, never removed. */
typedef struct kb_bench_stats {
    int64_t n;
    double median, mean, min, max, stddev, mad, q1, q3, iqr, cv;
    double ci_low, ci_high, ci_coverage;
    int64_t outliers_low, outliers_high;
    bool unstable; /* the spread is large: mad/median or the CI's width/median, see below */
} kb_bench_stats;

/* A case is flagged unstable when mad/median exceeds the first or (ci_high - ci_low)/median
 * the second. */
#define KB_BENCH_UNSTABLE_MAD 0.05
#define KB_BENCH_UNSTABLE_CI 0.10

/* Computes the statistics of n >= 1 values (KB_EINVAL for n < 1 or a NaN). */
kb_status kb_bench_stats_compute(const double *values, int64_t n, kb_bench_stats *out);

/* The 1-based ranks [*low, *high] of the order statistics bounding a confidence interval of
 * the median of n values at the given level (such as 0.95), and its exact coverage. */
void kb_bench_median_ci_ranks(int64_t n, double level, int64_t *low, int64_t *high,
                              double *coverage);

/* ---- Results ----
 *
 * What a run produces, kb_results (its context and one kb_bench_result per case), has a header
 * of its own, kbench/run_results.h, included at the end of this one since its types use those
 * above. The declarations below need only the names. */
typedef struct kb_bench_result kb_bench_result;
typedef struct kb_bench_context kb_bench_context;
typedef struct kb_results kb_results;

/* ---- Plans: which cases to run ---- */

typedef struct kb_bench_plan kb_bench_plan;

kb_status kb_bench_plan_new(kb_bench_plan **out);
void kb_bench_plan_free(kb_bench_plan *plan); /* NULL allowed */

/* Adds the cases of a definition: the cartesian product of its axes. The definition's
 * strings are copied; its callbacks and user pointer are kept. KB_EINVAL for a malformed
 * definition or a case name already in the plan. */
kb_status kb_bench_plan_add(kb_bench_plan *plan, const kb_bench_def *def);

/* Adds a built-in suite by name: "quick" (the default of `kbench run`), "reduce" or
 * "selftest" (the harness timing an empty body and an empty function call); kbench's tests
 * also use "failing" (cases that fail on purpose, to check failure reporting), which
 * kb_bench_suite_names leaves out. KB_EINVAL for an unknown name. */
kb_status kb_bench_plan_add_suite(kb_bench_plan *plan, const char *suite);

/* Names of the built-in suites, NULL-terminated, and a one-line description of each. */
const char *const *kb_bench_suite_names(void);
const char *kb_bench_suite_summary(const char *suite);

/* Keeps the cases whose name matches: a pattern is a POSIX extended regular expression
 * found anywhere in the name; one starting with '-' excludes what the rest matches. A case
 * is kept when it matches an including pattern (or there is none) and no excluding one.
 * KB_EINVAL for a pattern that does not compile. */
kb_status kb_bench_plan_filter(kb_bench_plan *plan, const char *const *patterns, int npatterns);

/* Keeps part `index` (1-based) of `count`: groups are dealt, costliest first, to the part
 * with the least cost so far, so the parts cover the plan exactly once between them with
 * nearly equal cost. Deterministic for a given plan. */
kb_status kb_bench_plan_shard(kb_bench_plan *plan, int index, int count);

int kb_bench_plan_size(const kb_bench_plan *plan);
const char *kb_bench_plan_case_name(const kb_bench_plan *plan, int i);
const char *kb_bench_plan_case_group(const kb_bench_plan *plan, int i);
double kb_bench_plan_case_cost(const kb_bench_plan *plan, int i);

/* The parameters of case i, in the order of its name: how many, and parameter j's name, value
 * and whether it chooses an implementation (an axis flagged KB_BENCH_AXIS_IMPLEMENTATION, or
 * "simd" or "threads"; the group's name leaves it out). kb_bench_plan_case_param returns
 * false, setting nothing, when i or j is out of range. */
int kb_bench_plan_case_nparams(const kb_bench_plan *plan, int i);
bool kb_bench_plan_case_param(const kb_bench_plan *plan, int i, int j, const char **name,
                              const char **value, bool *implementation);

/* ---- Running ---- */

/* Counts are of results, as the table's rows and the results' cases are: the plan's cases
 * and one for each baseline of a group. The total counts every baseline asked for; one whose
 * library cannot compute the group's case (and all of a group whose setup fails) comes off
 * as the group starts, so that done reaches total with the last result. */
typedef struct kb_bench_progress {
    int done;            /* results finished */
    int total;           /* results the run will have */
    int group_size;      /* group_started: the group's results, done + 1 to done + group_size */
    const char *current; /* group being measured, or NULL when finished */
    double elapsed_s;
    /* Estimate from the time the finished groups took and the cost of what is left; < 0
     * until a group has finished. */
    double remaining_s;
} kb_bench_progress;

/* Callbacks during a run, all optional: once the context is known (before any case; ncases
 * is the first total), as each group starts (once its baselines are known, before anything
 * of it is timed), and after each result. */
typedef struct kb_bench_observer {
    void *arg;
    void (*run_started)(void *arg, const kb_bench_context *context, int ncases);
    void (*group_started)(void *arg, const kb_bench_progress *progress);
    void (*case_finished)(void *arg, const kb_bench_result *result,
                          const kb_bench_progress *progress);
} kb_bench_observer;

/* Runs the plan and fills results (context and one result per case, failed cases included).
 * Fails only when the run cannot start (bad settings, an invalid KB_SIMD or KB_NUM_THREADS,
 * no memory for the cold-cache buffer); a case that fails is recorded as failed. Leaves the
 * SIMD level and thread count as it found them. */
kb_status kb_bench_run(const kb_bench_plan *plan, const kb_bench_settings *settings,
                       const kb_bench_observer *observer, kb_results *results);

#ifdef __cplusplus
}
#endif

#include "kbench/run_results.h"

#endif

#ifndef KBENCH_RUN_RESULTS_H
#define KBENCH_RUN_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/bench.h"
#include "kbench/environment.h"
#include "kbench/error.h"
#include "kbench/machine.h"
#include "kbench/monitor.h"
#include "kbench/peaks.h"
#include "kbench/roofline.h"
#include "kbench/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run of benchmarks produces (kb_bench_run in kbench/bench.h): kb_results, the run's
 * context and one kb_bench_result per case. kbench/results.h writes it to files and reads it
 * back. The names kb_results, kb_bench_context and kb_bench_result are declared in
 * kbench/bench.h, which this header includes and which includes this one. */

typedef struct kb_bench_result_param {
    char *name;
    char *value;
    bool implementation;
} kb_bench_result_param;

/* One block of a case's samples, taken in a row within one round of the interleaving: samples
 * [first, first + count) of sample_ns, from start_ns to end_ns on kb_bench_now_ns's clock.
 * warm: an untimed call of the same implementation came first (hot caches), within the block;
 * warm_ns is how long it took, 0 when it ran in a baseline's process and was not timed here. */
typedef struct kb_sample_block {
    int64_t start_ns, end_ns;
    int64_t first, count;
    bool warm;
    int64_t warm_ns;
} kb_sample_block;

/* One measured case. Times are nanoseconds. */
struct kb_bench_result {
    char *name;  /* "reduce/mean/f32/4096x4096/axis=0/simd=avx512/threads=2" */
    char *group; /* the name without implementation parameters */
    int nparams;
    kb_bench_result_param *params;
    bool failed;
    char *error;        /* one line; NULL unless failed */
    kb_simd_level simd; /* level in force while sampling ("auto" resolved) */
    int threads;        /* thread count in force while sampling */
    double bytes_per_call;
    double flops_per_call;
    double working_set_bytes;
    int64_t calls_per_sample;
    int nrepetitions;
    int64_t *repetition_samples; /* samples taken in each repetition */
    int64_t nsamples;
    int64_t *sample_ns;   /* duration of each sample, all repetitions in order */
    kb_bench_stats stats; /* of the times per call, sample_ns / calls_per_sample */
    /* When the samples were taken, for kbench run --trace; not kept in results files (0 blocks
     * after kb_results_load). */
    int64_t nblocks;
    kb_sample_block *blocks;
    /* What the usage monitor saw while the samples were taken (has_usage false without a
     * monitor, or for a failed case): other processes' and the hypervisor's time, in CPUs,
     * averaged over the sample blocks; contended when that reached KB_USAGE_CONTENDED_CPUS. */
    bool has_usage;
    double outside_cpus, steal_cpus;
    bool contended;
    /* Rates at the median and at the ends of its confidence interval; 0 when the count is 0. */
    double gb_per_s, gb_per_s_low, gb_per_s_high;
    double gflop_per_s, gflop_per_s_low, gflop_per_s_high;
    kb_bw_kernel traffic; /* as the case declared them */
    kb_flop_type flop_type;
    /* The median held against the run's peaks for the thread count and SIMD level in force;
     * has_roofline is false when the run had no peaks, the case failed, or it declared no
     * bytes and no FLOPs. */
    bool has_roofline;
    kb_roofline roofline;
    /* A baseline's result: its library ("numpy"), NULL for the group's own implementations.
     * A baseline is a case of the group named <group>/baseline=<library> (PyTorch and JAX, at
     * each thread count of the group: <group>/baseline=torch/threads=<n>), timed by the Python
     * runner as the harness times (its samples include the Python call), whose result was
     * compared with the group's output: check_ok, and the largest difference in units of the
     * tolerance (docs/baselines.md; above 1 fails the check). */
    char *baseline;
    bool check_ok;
    double check_error;
    char *check_detail; /* one line on the first difference beyond tolerance, else NULL */
};

/* Fills stats and the rates from sample_ns, calls_per_sample and the counts. */
kb_status kb_bench_result_summarize(kb_bench_result *r);

/* Fills has_roofline and roofline from the median and the counts, against peaks (NULL:
 * none). KB_EINVAL when the peaks hold no measurement. */
kb_status kb_bench_result_roofline(kb_bench_result *r, const kb_peaks *peaks);

/* The same, also holding the result against the run's probes (context's probes: the "before"
 * probe of its traffic pattern and thread count at each level; NULL: none). */
kb_status kb_bench_result_roofline_probed(kb_bench_result *r, const kb_peaks *peaks,
                                          const kb_bench_probe *probes, int nprobes);

/* How the build that ran the benchmarks was made (kb_build_info, kept by value). */
typedef struct kb_bench_build {
    char version[32];
    char git_commit[64];
    char git_branch[128]; /* "unknown" when not known; "" in files from before it */
    char compiler[128];
    char c_flags[512];
    char build_type[32];
    char arch[32];
    bool optimized, sanitizers;
} kb_bench_build;

/* Environment variables that change how kernels run (KB_*, OMP_*, GOMP_*), as found. */
#define KB_BENCH_MAX_ENV_VARS 16

/* Everything a number depends on besides the code: where, when, how. */
struct kb_bench_context {
    char date[32]; /* start of the run, UTC, "2024-06-12T09:30:00Z" */
    char *command; /* the command line; NULL when not known */
    kb_bench_build build;
    kb_machine machine;
    char instruction_sets[256];
    kb_clock_measurement clock_start, clock_end; /* repetitions 0: not measured */
    unsigned simd_compiled, simd_available;      /* bit (1u << level) per kb_simd_level */
    kb_simd_level simd_selected;                 /* in force when the run started */
    int threads;                                 /* in force when the run started */
    int usable_cores;
    kb_env_report env;
    kb_bench_timer timer;
    kb_bench_settings settings;
    int64_t sample_target_ns; /* hot samples are sized to last about this long */
    int64_t flush_bytes;      /* size of the cold-cache buffer; 0 when hot */
    char pinned_cpus[256];    /* "0,1" when pinned, "" otherwise */
    int nenv_vars;
    char *env_names[KB_BENCH_MAX_ENV_VARS];
    char *env_values[KB_BENCH_MAX_ENV_VARS];
    /* The selection: suites, --filter patterns and --shard. */
    int nsuites;
    char **suites;
    int nfilters;
    char **filters;
    int shard_index, shard_count; /* 1-based; 1 of 1 when not sharded */
    /* The peaks the results were held against (kb_bench_settings.peaks), and where they came
     * from ("cache FILE", "measured", "file FILE"; set by the caller, NULL when unknown). */
    bool has_peaks;
    kb_peaks peaks;
    char *peaks_origin;
    /* What the baseline runner said of itself (Python, NumPy and numexpr versions and build
     * configuration, thread settings): a JSON object as text, NULL without baselines. */
    char *baseline_info;
    /* The baselines that cannot compute their group's case (PyTorch's mean of integers): a
     * JSON array of {"case","library","reason"} as text, NULL without baselines. */
    char *baseline_unsupported;
    /* The bandwidth probes (kb_bench_settings.probe_seconds), in the order first needed; the
     * peaks above include their figures in their history. */
    int nprobes;
    kb_bench_probe probes[KB_BENCH_MAX_PROBES];
    /* The usage monitor's series (count 0: no monitor); its times are kb_bench_now_ns's. */
    kb_usage_series usage;
};

/* Adds a run's probes to the history in the peaks cache file (kb_peaks_cache_add), so that
 * later runs' bounds know what this one saw. */
kb_status kb_bench_probes_record(const kb_bench_context *context, const char *cache_path,
                                 const char *cache_key);

/* A run: its context and its cases, in the order they were planned. */
struct kb_results {
    kb_bench_context context;
    int ncases;
    kb_bench_result *cases;
};

/* Releases everything a kb_results owns and zeroes it. */
void kb_results_free(kb_results *results);

/* Number of failed cases. */
int kb_results_failed(const kb_results *results);

#ifdef __cplusplus
}
#endif

#endif

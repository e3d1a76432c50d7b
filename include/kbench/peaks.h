#ifndef KBENCH_PEAKS_H
#define KBENCH_PEAKS_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"
#include "kbench/machine.h"
#include "kbench/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Peaks measured on this machine: memory bandwidth of three streaming kernels for working
 * sets in each level of the memory hierarchy, and floating-point throughput of FMA chains,
 * at one thread and at all cores. They are what the roofline (kbench/roofline.h) holds every
 * result against, so they are counted the way likwid-bench counts (docs/roofline.md). */

/* The bandwidth kernels, on arrays of doubles. Bytes per element, as likwid-bench counts:
 * load (s += a[i]): 8 read; copy (a[i] = b[i]): 8 read + 8 written; triad (a[i] = b[i] +
 * s * c[i], STREAM's triad): 16 read + 8 written. Write-allocate traffic (the read of a
 * destination line before it is written) is not in those counts; see kb_bw_traffic. */
typedef enum kb_bw_kernel { KB_BW_LOAD, KB_BW_COPY, KB_BW_TRIAD, KB_BW_KERNEL_COUNT } kb_bw_kernel;

/* "load", "copy", "triad"; "?" for an invalid value. */
const char *kb_bw_kernel_name(kb_bw_kernel kernel);

/* Where a working set lives: the smallest level it fits in. */
typedef enum kb_mem_level {
    KB_MEM_L1,
    KB_MEM_L2,
    KB_MEM_L3,
    KB_MEM_DRAM,
    KB_MEM_LEVEL_COUNT
} kb_mem_level;

/* "L1", "L2", "L3", "DRAM"; "?" for an invalid value. */
const char *kb_mem_level_name(kb_mem_level level);

typedef enum kb_flop_type { KB_FLOP_F32, KB_FLOP_F64, KB_FLOP_TYPE_COUNT } kb_flop_type;

/* "float32", "float64"; "?" for an invalid value. */
const char *kb_flop_type_name(kb_flop_type type);

/* Bytes per element of a bandwidth kernel. write_allocate is what a write-allocate cache adds
 * when a written line is not already in the cache being measured: one read of each written
 * byte (likwid-bench leaves it out, as kbench does in its headline numbers). */
typedef struct kb_bw_traffic {
    int read_bytes;
    int write_bytes;
    int write_allocate_bytes;
} kb_bw_traffic;

void kb_bw_kernel_traffic(kb_bw_kernel kernel, kb_bw_traffic *out);

/* Whether the copy and triad kernels of a SIMD level over a working set of this many bytes
 * store with plain stores, which read a line before writing it in a write-allocate cache:
 * false beyond the last-level cache at a level with non-temporal stores (AVX2, AVX-512),
 * which write lines without reading them. */
bool kb_bw_stores_allocate(kb_simd_level level, int64_t working_set_bytes);

/* The scalar s of the triad. */
#define KB_BW_TRIAD_SCALAR 3.0

/* What one run of a microkernel did, as the kernel itself counts it. */
typedef struct kb_bw_work {
    double bytes;                     /* likwid-bench counting */
    double bytes_with_write_allocate; /* bytes plus one read per written byte */
    double checksum;                  /* load: the sum of a in the last sweep; else 0 */
} kb_bw_work;

/* Runs a bandwidth kernel sweeps times over n elements with the inner loop of a SIMD level
 * (the loop of kb_simd_table_level(KB_SIMD_FAMILY_BANDWIDTH, level): sve runs neon's):
 * load reads a (b and c may be NULL), copy writes a from b, triad writes a from b and c. The
 * arrays need no particular alignment. KB_EUNSUPPORTED when the level is not available;
 * KB_EINVAL for negative sizes or missing arrays. */
kb_status kb_bw_run(kb_bw_kernel kernel, kb_simd_level level, int64_t n, int64_t sweeps, double *a,
                    const double *b, const double *c, kb_bw_work *out);

/* The FMA chains: every lane of every accumulator runs x = x * KB_FMA_A + KB_FMA_B for the
 * given number of iterations, starting from lane k's value KB_FMA_INIT + k * KB_FMA_STEP
 * (lanes numbered accumulator by accumulator). The values converge to 1 and stay normal, so
 * a chain of any length runs at full speed. Each lane update is 2 FLOPs. The scalar level is
 * portable C (a multiply and an add, which the compiler may pack into the baseline vector
 * unit); the others use the FMA instructions of their instruction set. */
#define KB_FMA_A 0.9990234375 /* 1 - 2^-10 */
#define KB_FMA_B 0.0009765625 /* 2^-10 */
#define KB_FMA_INIT 0.5
#define KB_FMA_STEP 0.0078125 /* 2^-7 */

typedef struct kb_fma_work {
    double flops;     /* 2 per lane update */
    double checksum;  /* sum over every lane of its final value */
    int lanes;        /* per vector */
    int accumulators; /* independent vectors, enough to cover FMA latency x pipes */
} kb_fma_work;

/* Runs the FMA chain of a type and SIMD level for iterations steps. KB_EUNSUPPORTED when the
 * level is not available or has no FMA kernel of its own, since its peak would be that of the
 * level it falls back to (kb_simd_table_level(KB_SIMD_FAMILY_FMA, level) != level; sve: its
 * NEON kernel reaches the same peak on every SVE core kbench targets); KB_EINVAL for a
 * negative count. */
kb_status kb_fma_run(kb_flop_type type, kb_simd_level level, int64_t iterations, kb_fma_work *out);

/* True when kb_fma_run has a kernel of the level's own in this build and this CPU runs it. */
bool kb_fma_available(kb_simd_level level);

/* A rate measured over repetitions, in units per second (bytes or FLOPs). */
typedef struct kb_rate {
    double best; /* the fastest repetition: the peak */
    double median;
    double min;
    double max;
    int repetitions; /* 0: not measured */
} kb_rate;

/* How long a measurement runs: repetitions timings of at least seconds each, after a warm-up
 * that also sizes them. Zeros mean the defaults (0.02 s, 11). */
typedef struct kb_measure_settings {
    double seconds;
    int repetitions;
} kb_measure_settings;

#define KB_MEASURE_MAX_REPETITIONS 101

/* ---- The history of a figure ----
 *
 * A peak measured once is one moment of a machine whose speed can change: a VM whose two
 * vCPUs are sometimes two hyperthreads of one core and sometimes two cores shows about one
 * core's bandwidth or about two cores', minute by minute. So every measurement of every
 * figure is kept with its time (`kbench peaks`, and the probes of every `kbench run`), and
 * the bound a result is held against comes from all of them (docs/roofline.md). */

/* The most measurements kept per figure; adding one more drops the oldest that is not among
 * the KB_PEAK_HISTORY_KEEP highest. Every run's probes add measurements, and on a machine
 * busy for a while they would push out the quiet measurements that set the bound (the
 * highest credible, which the outlier rule picks from the top three): the bound would then
 * sink to what the busy machine reached, and correct results turn `impossible`. */
#define KB_PEAK_HISTORY_MAX 48
#define KB_PEAK_HISTORY_KEEP 3

typedef struct kb_peak_sample {
    int64_t at;   /* seconds since the epoch */
    double value; /* units per second: bytes or FLOPs */
} kb_peak_sample;

/* Oldest first. */
typedef struct kb_peak_history {
    int count;
    kb_peak_sample samples[KB_PEAK_HISTORY_MAX];
} kb_peak_history;

/* Appends a measurement, dropping the oldest but the highest (KB_PEAK_HISTORY_KEEP) when
 * full. Values that are not positive and finite are not measurements and are left out. */
void kb_peak_history_add(kb_peak_history *history, int64_t at, double value);

/* The highest figure is set aside as an outlier when at least this many were measured and it
 * exceeds the second-highest by more than this fraction: a single wild value (a timer glitch,
 * a working set that happened to stay in a cache) does not raise the bound, while two that
 * agree do. */
#define KB_PEAK_OUTLIER_MIN_COUNT 3
#define KB_PEAK_OUTLIER_MARGIN 0.25
/* A figure whose credible range (lowest to bound) is wider than this fraction of its lowest
 * varies; "typical" is the median of the most recent KB_PEAK_RECENT measurements. */
#define KB_PEAK_SPREAD_MARGIN 0.25
#define KB_PEAK_RECENT 8

typedef enum kb_peak_spread {
    KB_PEAK_STEADY,  /* within KB_PEAK_SPREAD_MARGIN */
    KB_PEAK_VARIES,  /* spread over more than that */
    KB_PEAK_BIMODAL, /* two clusters, each seen at least twice, with a gap wider than the margin
                        between them and wider than either cluster */
} kb_peak_spread;

/* "steady", "varies", "bimodal"; "?" for an invalid value. */
const char *kb_peak_spread_name(kb_peak_spread spread);

typedef struct kb_peak_summary {
    int count; /* 0: no history; every other field is 0 */
    /* The highest credible figure: what `impossible` is decided against. */
    double bound;
    int64_t bound_at;
    double highest; /* the highest ever seen: the bound unless set aside as an outlier */
    int64_t highest_at;
    bool outlier;  /* highest was set aside */
    double lowest; /* the lowest seen */
    double typical;
    kb_peak_spread spread;
    /* Of a bimodal figure: the top of the low cluster and the bottom of the high one. */
    double low_mode, high_mode;
} kb_peak_summary;

/* What a history says; a pure function, for the bound and for people. */
void kb_peak_history_summarize(const kb_peak_history *history, kb_peak_summary *out);

/* A run measures the bandwidth figures its results are held against before and after its
 * cases (kbench/bench.h, kb_bench_settings.probe_seconds). The two probes of a figure
 * disagree when the higher exceeds the lower by more than this fraction: the machine changed
 * under the run (docs/roofline.md, "bandwidth_changed"). */
#define KB_PROBE_CHANGE 0.25

/* Whether two probes disagree; false when either is unknown (not positive). */
bool kb_bw_probes_disagree(double before, double after);

/* A bandwidth peak and the working set it was measured on. */
typedef struct kb_bw_peak {
    int64_t working_set_bytes; /* every array of every thread together */
    kb_rate bytes_per_second;  /* likwid-bench counting: this measurement */
    kb_peak_history history;   /* every measurement of the figure kept, this one included */
} kb_bw_peak;

/* Measures a bandwidth kernel with threads OpenMP threads, each on its own slice of the
 * working set, allocated and first touched by the thread that uses it. The working set is
 * rounded down to whole 512-byte blocks per array and thread (at least one). */
kb_status kb_bw_measure(kb_bw_kernel kernel, kb_simd_level level, int threads,
                        int64_t working_set_bytes, const kb_measure_settings *settings,
                        kb_bw_peak *out);

/* Measures the FMA chain of a type and level on threads threads, each running its own chain. */
kb_status kb_fma_measure(kb_flop_type type, kb_simd_level level, int threads,
                         const kb_measure_settings *settings, kb_rate *out);

/* The working set, in bytes of all threads together, that kbench measures a level with: half
 * of each thread's share of the cache for L1, L2 and L3; for DRAM four times every last-level
 * cache together (STREAM's rule) and, unless quick, at least 1 GiB, which averages over enough
 * pages that the run-to-run spread of where the memory lands (large in a VM) evens out; at
 * least 64 MiB and at most a quarter of physical memory. caches holds kb_machine's caches;
 * unknown sizes take defaults (32 KiB L1d, 1 MiB L2, 8 MiB L3 shared by all). */
int64_t kb_peaks_working_set(const kb_cache caches[KB_CACHE_LEVEL_COUNT], int logical_cpus,
                             kb_mem_level level, int threads, bool quick);

/* ---- The bandwidth curves ----
 *
 * The level figures above measure each cache at one working set, chosen from the sizes the OS
 * reports. What a working set really gets can differ: in a VM whose last-level cache is
 * shared with other tenants, one thread read 97 GB/s at 4-8 MiB and 65 GB/s at 16 MiB of a
 * "32 MiB" L3. So each bandwidth kernel is also measured over working sets at
 * KB_BW_CURVE_POINTS_PER_OCTAVE points per octave, and a result is held against the curve of
 * its traffic pattern at its own working-set size (kbench/roofline.h). */
#define KB_BW_CURVE_POINTS_PER_OCTAVE 4
#define KB_BW_CURVE_MAX_POINTS 80

/* The smallest working set of the curve per thread, and how far it reaches beyond the
 * last-level caches of the threads (4x: STREAM's rule for DRAM); its last point is the DRAM
 * level's working set. */
#define KB_BW_CURVE_FIRST_BYTES_PER_THREAD ((int64_t)4 << 10)
#define KB_BW_CURVE_LLC_MULTIPLE 4

typedef struct kb_bw_curve_point {
    int64_t working_set_bytes; /* every thread's slice together */
    kb_rate bytes_per_second;  /* this measurement (repetitions 0: not measured this time) */
    kb_peak_history history;   /* every measurement at this working set */
} kb_bw_curve_point;

/* Points in ascending order of working set. */
typedef struct kb_bw_curve {
    int count;
    kb_bw_curve_point points[KB_BW_CURVE_MAX_POINTS];
} kb_bw_curve;

/* A kernel's curve's working sets for threads threads, ascending, into sizes (at most max);
 * returns how many. From KB_BW_CURVE_FIRST_BYTES_PER_THREAD per thread,
 * KB_BW_CURVE_POINTS_PER_OCTAVE per octave, to KB_BW_CURVE_LLC_MULTIPLE times the last-level
 * cache the threads occupy; then the DRAM working set of kb_peaks_working_set. Each is rounded
 * to whole 512-byte blocks of each of the kernel's arrays per thread (load: one array, copy
 * two, triad three), as kb_bw_measure rounds, so that each is the working set measured; sizes
 * that round alike are one point. Caches as there. */
int kb_bw_curve_working_sets(kb_bw_kernel kernel, const kb_cache caches[KB_CACHE_LEVEL_COUNT],
                             int logical_cpus, int threads, bool quick, int64_t *sizes, int max);

/* The effective capacity of the L1, L2 and L3 levels for threads threads, from the load curve's
 * knees rather than from the sizes the OS reports (docs/roofline.md): for each level, its
 * plateau (the best bound among the working sets the OS says it holds) and the next level's
 * (or memory's, the curve's last point); when the plateau is at least KB_CURVE_KNEE_DROP times
 * the next one, the capacity is the largest working set, from the plateau on, whose bound has
 * lost at most a quarter of the ratio between the two. Otherwise, and for a level the curve does
 * not show, the OS's size (kb_level_capacity's); capacities only grow from level to level. */
#define KB_CURVE_KNEE_DROP 1.25
void kb_bw_curve_capacities(const kb_bw_curve *curve, const kb_cache caches[KB_CACHE_LEVEL_COUNT],
                            int threads, int64_t capacity[KB_MEM_DRAM]);

/* One thread count's peaks. */
typedef struct kb_peak_set {
    int threads;
    kb_bw_peak bandwidth[KB_BW_KERNEL_COUNT][KB_MEM_LEVEL_COUNT];
    /* One curve per kernel; count 0: not measured (peaks from before the curves: the copy and
     * triad curves came after the load curve, kbench-peaks/3 in JSON). */
    kb_bw_curve curves[KB_BW_KERNEL_COUNT];
    kb_rate flops[KB_FLOP_TYPE_COUNT][KB_SIMD_LEVEL_COUNT]; /* repetitions 0: not measured */
    kb_peak_history flops_history[KB_FLOP_TYPE_COUNT][KB_SIMD_LEVEL_COUNT];
} kb_peak_set;

enum { KB_PEAKS_ONE_THREAD, KB_PEAKS_ALL_THREADS, KB_PEAKS_SET_COUNT };

typedef struct kb_peaks {
    kb_peak_set sets[KB_PEAKS_SET_COUNT];  /* at 1 thread and at all cores (threads may be 1) */
    kb_simd_level bandwidth_simd;          /* the level the bandwidth kernels ran at */
    kb_cache caches[KB_CACHE_LEVEL_COUNT]; /* as used for the working sets, defaults filled in */
    int logical_cpus;
    double clock_mhz;    /* core clock measured just before (the fastest repetition of
                            kb_clock_measure), 0 when it could not be */
    int64_t measured_at; /* seconds since the epoch */
    double load_average; /* 1-minute load average when measuring began; -1 when unknown.
                            Other work on the cores lowers every peak. */
    bool quick;          /* measured with --quick's short settings */
} kb_peaks;

/* The capacities a result at threads threads is named a level by: kb_bw_curve_capacities on
 * the load curve of the nearer set of peaks (1 thread, or all cores). The roofline and a run's
 * probes both use them, so that a probe measures the level its results are held to. */
void kb_peaks_capacities(const kb_peaks *peaks, int threads, int64_t capacity[KB_MEM_DRAM]);

/* Progress for people, one line per measurement ("bandwidth load L2, 1 thread"); the library
 * never prints, so a caller that wants it shown passes a function. */
typedef void (*kb_progress_fn)(void *context, const char *message);

typedef struct kb_peaks_options {
    int threads; /* the all-cores count; 0 means kb_usable_cores() */
    bool quick;  /* short measurements (a second or two in all), for tests */
    kb_progress_fn progress;
    void *progress_context;
} kb_peaks_options;

/* Measures every peak: bandwidth at the best available SIMD level for each kernel and level,
 * FMA throughput for each type at each available level, at 1 thread and at options->threads.
 * Takes about a minute (quick: a few seconds). */
kb_status kb_peaks_measure(const kb_peaks_options *options, kb_peaks *out);

/* The peaks as a JSON object (docs/roofline.md), malloc'ed; free with free(). And back:
 * KB_EFORMAT, with the reason, when text is not such an object. */
kb_status kb_peaks_to_json(const kb_peaks *peaks, char **text);
kb_status kb_peaks_from_json(const char *text, kb_peaks *out);

/* Reads peaks from a file: the output of `kbench peaks --json`, a cache file, or the bare
 * peaks object. KB_EIO when it cannot be read, KB_EFORMAT (naming the file) when it holds no
 * peaks. */
kb_status kb_peaks_load(const char *path, kb_peaks *out);

/* The cache of measured peaks, one file per machine. The key names what the peaks depend on:
 * the CPU (vendor, model string and CPUID family/model or Arm MIDR part), the logical CPUs,
 * the kernel release, the kbench version, whether the build is optimized and sanitized, the
 * all-cores thread count, and whether the measurements are --quick's short ones (cached apart
 * from the full ones, which they must never replace). */
kb_status kb_peaks_cache_key(const kb_machine *machine, int threads, bool quick, char *key,
                             int size);

/* The cache file for a key: $KB_CACHE_DIR, else $XDG_CACHE_HOME/kbench, else
 * $HOME/.cache/kbench, then peaks-<16 hex digits of a hash of the key>.json. */
kb_status kb_peaks_cache_path(const char *key, char *path, int size);

/* Reads the cache file: *found is false (and KB_OK) when it is missing or holds another key;
 * KB_EFORMAT when it is not a peaks cache file. */
kb_status kb_peaks_cache_read(const char *path, const char *key, kb_peaks *out, bool *found);

/* Writes the cache file, creating its directory, through a temporary file and a rename so
 * that a concurrent reader never sees half a file. */
kb_status kb_peaks_cache_write(const char *path, const char *key, const kb_peaks *peaks);

/* One measurement of a bandwidth figure made outside kb_peaks_measure: a run's probe. */
typedef struct kb_bw_record {
    int threads;
    kb_bw_kernel kernel;
    kb_mem_level level;
    int64_t at; /* seconds since the epoch */
    double bytes_per_second;
} kb_bw_record;

/* Adds a record to the history of the figure in the set measured at its thread count; false
 * (nothing added) when neither set was measured at that count, or the record is malformed. */
bool kb_peaks_add_record(kb_peaks *peaks, const kb_bw_record *record);

/* Adds records to the history in the cache file. The file is read again first, so that what
 * another process added since this one read it stays; nothing is written when the file is
 * missing or holds another key. Errors as kb_peaks_cache_read and kb_peaks_cache_write. */
kb_status kb_peaks_cache_add(const char *path, const char *key, const kb_bw_record *records,
                             int count);

/* Peaks measured anew keep the history of those they replace: each figure of peaks gets the
 * measurements of the same figure in older before its own (the oldest dropped beyond
 * KB_PEAK_HISTORY_MAX). Sets are matched by thread count. */
void kb_peaks_keep_history(kb_peaks *peaks, const kb_peaks *older);

/* Self-consistency of what was measured (docs/roofline.md): a figure at all cores below the
 * same figure at one thread, or load below KB_PEAKS_LOAD_VS_COPY x copy at the same level and
 * thread count, judged on the typical figures. Each finding is one line for people, written
 * into lines[i] (up to max); returns how many there were (possibly more than max). */
#define KB_PEAKS_LOAD_VS_COPY 0.8
int kb_peaks_check(const kb_peaks *peaks, char (*lines)[160], int max);

/* Where kb_peaks_get found the peaks. */
typedef struct kb_peaks_source {
    char cache_path[4096];
    char cache_key[1024];
    bool reused; /* read from the cache rather than measured by this call */
    /* Why the cache could not be read or written ("" when it could): not an error, since the
     * peaks were measured anyway; for the caller to show. */
    char cache_warning[640];
} kb_peaks_source;

/* This machine's peaks at options->threads: from the cache when it holds them (unless
 * refresh; peaks measured with quick serve only quick requests; peaks measured under load,
 * a 1-minute load average above half the usable cores, only until the load is at least 0.5
 * lower than it was then), else measured with kb_peaks_measure, given the history of the
 * cached ones (kb_peaks_keep_history) and written to the cache. What a benchmark runner calls
 * before holding its results against the roofline. Fails only when measuring fails. */
kb_status kb_peaks_get(const kb_peaks_options *options, bool refresh, kb_peaks *out,
                       kb_peaks_source *source);

#ifdef __cplusplus
}
#endif

#endif

#ifndef KBENCH_ROOFLINE_H
#define KBENCH_ROOFLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"
#include "kbench/peaks.h"
#include "kbench/simd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Roofline metrics of one measured result: how fast it went, what bound the hardware puts on
 * it, how close it came, and whether that is plausible. Pure functions of their arguments,
 * for the benchmark runner and for anyone with a time and a byte and FLOP count. Units are
 * SI: bytes, FLOPs, seconds. docs/roofline.md explains every metric and flag. */

/* Where a bound came from, so that a flag can say which figure a result broke: the measured
 * figure (of the set at `threads`, 1 or all cores) whose history gave it. */
typedef struct kb_roofline_figure {
    int threads;         /* 0: no figure (the bound is unknown or was set by hand) */
    double value;        /* the highest credible figure: the bound, per second */
    int64_t measured_at; /* seconds since the epoch; 0: unknown */
    double highest;      /* the highest ever seen (above value when set aside as an outlier) */
    int count;           /* measurements in its history */
} kb_roofline_figure;

/* The peaks that bound a result: for one thread count, one traffic pattern and one FLOP type
 * and SIMD level. 0 means unknown. */
typedef struct kb_roofline_peaks {
    int threads;
    double bytes_per_second[KB_MEM_LEVEL_COUNT]; /* bandwidth of the working set's level */
    double flops_per_second;
    int64_t capacity[KB_MEM_LEVEL_COUNT]; /* bytes the threads can hold in L1, L2, L3 together;
                                             the DRAM entry is ignored */
    /* What the figures are, to name them: the traffic pattern, FLOP type and SIMD level. */
    kb_bw_kernel traffic;
    kb_flop_type flop_type;
    kb_simd_level simd;
    kb_roofline_figure bandwidth_figure[KB_MEM_LEVEL_COUNT];
    kb_roofline_figure flops_figure;
    /* This run's probe of each level's bandwidth at this thread count, measured just before
     * the result (kbench run's probes; 0: none). A bound is never below it, and a result above
     * it is suspicious-high: it beat what the machine did just before. */
    double probe_bytes_per_second[KB_MEM_LEVEL_COUNT];
    /* The curve (kb_bw_curve) of the traffic's kernel at this thread count, when the peaks
     * have it at both thread counts: the working sets of both curves, ascending, and at each
     * the bound from the point of each curve at or below it, interpolated between 1 thread and
     * all cores as the levels are, with the figure that gave it. curve_points 0: no curve (the
     * levels' bounds stand alone). */
    int curve_points;
    int64_t curve_working_set[2 * KB_BW_CURVE_MAX_POINTS];
    double curve_bytes_per_second[2 * KB_BW_CURVE_MAX_POINTS];
    kb_roofline_figure curve_figure[2 * KB_BW_CURVE_MAX_POINTS];
} kb_roofline_peaks;

/* A working set's curve bound is the highest of the curve's points from
 * ws / KB_ROOFLINE_CURVE_WINDOW up to ws, and of the last point at or below ws (the first
 * point for a smaller ws): bandwidth does not rise with the working set, so a point at or
 * below ws bounds it, and half an octave of points keeps one low point from lowering the
 * bound. */
#define KB_ROOFLINE_CURVE_WINDOW 1.4142135623730951

/* The bounds for threads threads from measured peaks: of each figure, the highest credible
 * measurement of its history (kb_peak_summary.bound; the figure's single measurement when it
 * has no history). A result is held against the measured
 * peak of its own traffic pattern (a reduction reads: KB_BW_LOAD; an elementwise a = f(b):
 * KB_BW_COPY; a = f(b, c): KB_BW_TRIAD), type and level. Between 1 thread and the all-cores
 * count, bounds are interpolated optimistically, min(threads x one-thread peak, all-cores
 * peak), so that `impossible` is never raised by the interpolation; above it they stay at the
 * all-cores peak. A bound is never below the one-thread peak, which any thread count can
 * reach by leaving the work to one thread. A level without a measured FLOP peak gets 0 (unknown).
 */
kb_status kb_roofline_peaks_from(const kb_peaks *peaks, int threads, kb_bw_kernel traffic,
                                 kb_flop_type type, kb_simd_level level, kb_roofline_peaks *out);

/* One result: the work of one call and how long it took. */
typedef struct kb_roofline_input {
    double seconds; /* per call, > 0 */
    double bytes;   /* moved per call (as the peaks count them: no write-allocate), >= 0 */
    double flops;   /* per call, >= 0 */
    int64_t working_set_bytes; /* every byte the call touches, to find its level */
    /* suspicious-low applies only when the hardware needs at least this long for the call's
     * work (the bound time); 0 means KB_ROOFLINE_LOW_MIN_SECONDS. */
    double low_min_seconds;
} kb_roofline_input;

/* 10 us: far above the cost of a call and an OpenMP fork-join (about 1-5 us), so a result
 * below 10% of its bound at this size is not explained by overhead alone. */
#define KB_ROOFLINE_LOW_MIN_SECONDS 1e-5

enum {
    /* above 100% of its bound, and not within a plausible mode set aside as an outlier
     * (KB_ROOFLINE_MODE_RATIO) */
    KB_ROOFLINE_IMPOSSIBLE = 1 << 0,
    /* above 90%, or above the run's own probe of its bandwidth, or above 100% but within a
     * plausible mode set aside as an outlier (and not impossible) */
    KB_ROOFLINE_SUSPICIOUS_HIGH = 1 << 1,
    KB_ROOFLINE_SUSPICIOUS_LOW = 1 << 2 /* below 10%, when large enough */
};

/* How far above a figure's credible bound a measurement set aside as an outlier may be and
 * still be a mode the machine has: a VM whose vCPUs land on two cores rather than on two
 * hyperthreads of one doubles its all-core bandwidth, and nothing inside it says which. A
 * result between the two is suspicious-high, not impossible; one further off is a stray. */
#define KB_ROOFLINE_MODE_RATIO 2.0

#define KB_ROOFLINE_HIGH_PERCENT 90.0
#define KB_ROOFLINE_LOW_PERCENT 10.0

typedef struct kb_roofline {
    double bytes_per_second; /* achieved */
    double flops_per_second; /* achieved */
    double intensity;        /* FLOPs per byte; INFINITY when no bytes but some FLOPs */
    kb_mem_level level;      /* the smallest level the working set fits in */
    /* The least time the peaks allow for the call, max(bytes / bandwidth, flops / FLOP peak):
     * the classic min(FLOP peak, intensity x bandwidth) roofline written as a time, which
     * also covers results without FLOPs (copies, integer sums) or without bytes. */
    double bound_seconds;
    double bound_flops_per_second; /* min(FLOP peak, intensity x bandwidth); NAN without FLOPs */
    double percent_of_bound;       /* bound_seconds / seconds x 100 */
    double percent_of_bandwidth;   /* of the level's bandwidth */
    double percent_of_flops;       /* of the FLOP peak */
    /* The bandwidth it was held against: the higher of the level's (raised for a working set
     * that partly fits the cache above) and the curve of its traffic at the working set (see
     * docs/roofline.md); 0: unknown. */
    double peak_bytes_per_second;
    double peak_flops_per_second; /* the FLOP peak it was held against; 0: unknown */
    bool memory_bound;            /* the bandwidth term is the larger (ties: memory) */
    bool bound_known;             /* false when a peak it needs is unknown: the percentages
                                     that need it are NAN and no flag is set */
    unsigned flags;               /* KB_ROOFLINE_* */
    /* The figure of the larger term, as kb_roofline_peaks named it (threads 0: none), and
     * its name ("load DRAM", "load at 4 MiB" for a point of the curve, "FMA float32 avx2");
     * "" when unknown. */
    kb_roofline_figure figure;
    char figure_name[48];
    /* The run's probe the result was above (suspicious-high), per second; 0 otherwise. */
    double above_probe;
    /* The achieved bandwidth as a share of the run's own probe of its level just before its
     * group (kb_roofline_peaks.probe_bytes_per_second, as measured: not raised for a working
     * set that partly fits the cache above, so such a result can pass 100), x 100: how close
     * the result came to what the machine read at that moment, where percent_of_bandwidth
     * holds it against the best the machine has shown. NAN without a probe (--peaks FILE, no
     * bandwidth figure probed) or without bytes. */
    double percent_of_probe;
} kb_roofline;

/* Computes the metrics. KB_EINVAL for a time that is not positive, negative counts, or no
 * work at all (no bytes and no FLOPs). */
kb_status kb_roofline_compute(const kb_roofline_input *input, const kb_roofline_peaks *peaks,
                              kb_roofline *out);

/* "impossible", "suspicious-high", "suspicious-low"; "?" for anything else. */
const char *kb_roofline_flag_name(unsigned flag);

/* The flags as a comma-separated list ("" for none), written into buf. */
void kb_roofline_flags_describe(unsigned flags, char *buf, int size);

/* Why a result is impossible or suspicious-high, one line for people ("" when it is neither,
 * or nothing names its figure): "above load DRAM at 2 threads: 78.0 GB/s measured
 * 2026-01-31T12:00:00Z; highest seen 78.0 GB/s (12 measurements)", or "above this run's probe
 * of load DRAM at 2 threads (44.0 GB/s); highest seen 78.0 GB/s". */
void kb_roofline_explain(const kb_roofline *roofline, char *buf, int size);

#ifdef __cplusplus
}
#endif

#endif

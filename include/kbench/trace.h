#ifndef KBENCH_TRACE_H
#define KBENCH_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kbench/error.h"
#include "kbench/gpus.h"
#include "kbench/results.h"
#include "kbench/roofline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Profiler traces held against a GPU's datasheet: the PyTorch profiler's Chrome traces
 * (torch.profiler's export_chrome_trace) read event by event, each GPU kernel joined to the
 * CPU op that launched it through their "External id", the op's FLOPs and bytes counted from
 * its recorded input shapes and types, and each kernel's achieved FLOP/s and bandwidth held
 * against the device's peaks with kbench's roofline and its plausibility flags. docs/traces.md
 * describes the model, the formulas and the outputs. */

typedef struct kb_trace_options {
    const char *device; /* a kb_gpus id or device name; NULL: the trace's deviceProperties */
    bool tf32;          /* float32 products held against the TF32 tensor peak, not the vector */
    double clock_mhz;   /* the clock the kernels ran at; 0: the datasheet's boost clock */
} kb_trace_options;

/* Why a kernel's work is or is not known. */
typedef enum kb_trace_reason {
    KB_TRACE_COUNTED,     /* its CPU op's FLOPs and bytes are counted */
    KB_TRACE_NO_CPU_OP,   /* no External id, or no CPU op with its External id */
    KB_TRACE_UNKNOWN_OP,  /* its CPU op is not one kbench counts (elementwise, copies, ...) */
    KB_TRACE_NO_SHAPES,   /* a counted op recorded without its input shapes or types */
    KB_TRACE_UNSUPPORTED, /* shapes that do not fit the op, a transposed convolution */
    KB_TRACE_NO_PEAK,     /* the datasheet has no peak for the op's type on this device */
    KB_TRACE_REASON_COUNT
} kb_trace_reason;

/* "counted", "no-cpu-op", "unknown-op", "no-shapes", "unsupported", "no-peak". */
const char *kb_trace_reason_name(kb_trace_reason reason);

/* The kernels of one name. Times in seconds; the work and the percentages cover the counted
 * kernels alone (counted of them). */
typedef struct kb_trace_group {
    const char *name;
    int64_t count;
    double seconds;  /* all of them */
    double share;    /* of every kernel's time, 0 to 1 */
    int64_t counted; /* of them, those whose work is known */
    double counted_seconds;
    double flops, bytes; /* of the counted ones */
    double flops_per_second, bytes_per_second;
    /* Of the counted time, the share the peaks account for, in percent: the roofline bound
     * (max(FLOPs / FLOP peak, bytes / bandwidth) summed over the kernels), the FLOP term and
     * the bandwidth term. NAN without counted kernels. */
    double percent_of_bound, percent_of_flops, percent_of_bandwidth;
    unsigned flags; /* KB_ROOFLINE_* of any of its kernels */
    char op[48];    /* the CPU op of its counted kernels; "mixed"; "" when none */
    char peak[16];  /* the peak they were held against (kb_gpu_peak_name); "mixed"; "" */
} kb_trace_group;

typedef struct kb_trace_analysis {
    char label[256];       /* the trace's path */
    char device_name[128]; /* as the trace or --device named it */
    kb_gpu_row device;     /* its datasheet row */
    double clock_mhz;      /* the clock the peaks were scaled to; 0: boost */
    bool tf32;
    int64_t events;    /* elements of traceEvents */
    int64_t malformed; /* kernels and CPU ops skipped: a name, ts or dur missing or mistyped */
    int64_t kernels;
    int64_t reasons[KB_TRACE_REASON_COUNT]; /* kernels by why their work is or is not known */
    double seconds;                         /* of every kernel */
    int64_t assumed; /* counted convolutions whose stride, padding and dilation were assumed */
    kb_trace_group *groups; /* by time, longest first */
    int ngroups;
    void *detail; /* each kernel's figures, for kb_trace_augment */
} kb_trace_analysis;

/* Reads and analyzes a trace. KB_EIO for a file that cannot be read; KB_EFORMAT for one that
 * is not a Chrome trace (invalid or truncated JSON, no traceEvents) or names no device;
 * KB_EINVAL for a device the GPU datasheet (kb_gpus_load) does not know, the message naming
 * the known ids; KB_ENOMEM. Kernels and ops with missing or mistyped fields are skipped and
 * counted, not failures. */
kb_status kb_trace_analyze(const char *path, const kb_trace_options *options,
                           kb_trace_analysis *out);

void kb_trace_analysis_free(kb_trace_analysis *analysis);

/* The analysis as a table, markdown or JSON (not CSV: KB_EINVAL). */
kb_status kb_trace_print(const kb_trace_analysis *analysis, kb_results_format format, FILE *out);

/* Writes the trace that analysis read to path (atomically) with each kernel event's args
 * given a "kbench" object: its CPU op, FLOPs, bytes, achieved rates, percentages and flags,
 * or why they are not known. The trace is read again and must not have changed. */
kb_status kb_trace_augment(const kb_trace_analysis *analysis, const char *path);

/* Two analyses side by side per kernel name. */
typedef struct kb_trace_diff_row {
    const char *name;
    const kb_trace_group *a, *b; /* NULL when the name is not in that trace */
    double ratio;                /* time of B / time of A; NAN when either is missing */
} kb_trace_diff_row;

typedef struct kb_trace_diff {
    const kb_trace_analysis *a, *b;
    kb_trace_diff_row *rows; /* by the absolute change of time, largest first */
    int nrows;
} kb_trace_diff;

/* The rows point into a and b, which must outlive the diff. KB_ENOMEM. */
kb_status kb_trace_diff_make(const kb_trace_analysis *a, const kb_trace_analysis *b,
                             kb_trace_diff *out);
void kb_trace_diff_free(kb_trace_diff *diff);
kb_status kb_trace_diff_print(const kb_trace_diff *diff, kb_results_format format, FILE *out);

#ifdef __cplusplus
}
#endif

#endif

#ifndef KB_RESULTS_TRACE_DETAIL_H
#define KB_RESULTS_TRACE_DETAIL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/roofline.h"
#include "kbench/trace.h"
#include "results/trace_names.h"

/* What kb_trace_analysis keeps of each kernel beyond its groups, for kb_trace_augment: the
 * kernels in the order of the trace, their names, and their CPU ops' names. */
typedef struct kb_trace_kernel {
    int32_t group;  /* index into names (and, before sorting, groups) */
    int32_t op;     /* index into op_names; -1 without a CPU op */
    uint8_t reason; /* kb_trace_reason */
    int8_t peak;    /* kb_gpu_peak; -1 when none */
    bool assumed;   /* a convolution's geometry assumed */
    double seconds;
    double flops, bytes; /* its share of its op's work */
} kb_trace_kernel;

typedef struct kb_trace_detail {
    kb_trace_kernel *kernels;
    int64_t nkernels;
    kb_trace_names names, op_names;
} kb_trace_detail;

/* The event's name, duration in seconds and args when it is a complete ("ph": "X") event of
 * one of the categories cat names ("kernel"; case ignored), else false; *malformed is set when
 * it is of the category but lacks a string name or a finite ts and dur at or above 0. */
bool kb_trace_event_of(const json_t *event, const char *const *cats, const char **name,
                       double *seconds, const json_t **args, bool *malformed);

/* The kernel categories ("kernel", and "Kernel" of older traces) and the CPU op ones. */
extern const char *const kb_trace_kernel_cats[];
extern const char *const kb_trace_cpu_op_cats[];

/* The kernel's roofline against the analysis's device; false when its work is not known. */
bool kb_trace_kernel_roofline(const kb_trace_analysis *a, const kb_trace_kernel *k,
                              kb_roofline *out);

#endif

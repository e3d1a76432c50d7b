#ifndef KB_KERNELS_REDUCE_FLOAT_H
#define KB_KERNELS_REDUCE_FLOAT_H

#include <stdbool.h>

#include "kernels/reduce_kernels.h"
#include "kernels/reduce_plan.h"

/* Reductions with fewer elements than this in total run on one thread: below it, waking
 * the second thread costs about what it saves. Measured on the 2-core Zen 4 machine (float32
 * sum, axis=None, median of 41 interleaved runs): 64 Ki elements 5.1 us on one thread and
 * 5.4 us on two, 128 Ki elements 9.7 us and 5.5 us (see docs/reductions.md). */
#define KB_REDUCE_PARALLEL_MIN 65536

/* The span a core's hardware prefetchers follow a stream within: 4 KiB, the smallest page of
 * x86-64 and Arm, whatever page size the system uses (they see physical addresses only within
 * such a page). Rows of at least this many bytes each start a stream anew (rows_together). */
#define KB_REDUCE_PAGE_BYTES 4096

/* Runs of at most this many elements per output take the narrow-rows loop. */
#define KB_REDUCE_NARROW 16

/* True when the plan has a contiguous dimension to stream along and is float32 or float64
 * (any op but prod), or a float16/bfloat16 sum or mean, or an int32 mean. */
bool kb_reduce_float_applies(const kb_reduce_plan *plan);

kb_status kb_reduce_float(const kb_reduce_plan *plan, const kb_reduce_kernels *kernels,
                          int threads);

#endif

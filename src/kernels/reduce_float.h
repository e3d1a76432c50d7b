#ifndef KB_KERNELS_REDUCE_FLOAT_H
#define KB_KERNELS_REDUCE_FLOAT_H

#include <stdbool.h>

#include "kernels/reduce_kernels.h"
#include "kernels/reduce_plan.h"

/* Reductions with fewer elements than this in total run on one thread: below it, waking
 * the second thread costs more than it saves (measured with `kbench run`, see
 * docs/methodology.md). */
#define KB_REDUCE_PARALLEL_MIN 65536

/* Runs of at most this many elements per output take the narrow-rows loop. */
#define KB_REDUCE_NARROW 16

/* True when the plan is float32/float64 with a contiguous dimension to stream along. */
bool kb_reduce_float_applies(const kb_reduce_plan *plan);

kb_status kb_reduce_float(const kb_reduce_plan *plan, const kb_reduce_kernels *kernels,
                          int threads);

#endif

#ifndef KB_KERNELS_REDUCE_PLAN_H
#define KB_KERNELS_REDUCE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/array.h"
#include "kbench/reduce.h"

/* A reduction reduced to its essentials: the kept dimensions (each with its input and
 * output stride) and the reduced dimensions (input strides), with length-1 dimensions
 * dropped. For order-free ops the reduced dimensions are also made positive, sorted by
 * decreasing stride and merged where contiguous, so that memory is walked forward; argmin
 * and argmax keep the logical order their index counts in. */
typedef struct kb_reduce_plan {
    kb_reduce_op op;
    kb_dtype in_dtype, out_dtype;
    size_t itemsize;
    double ddof;
    const char *in; /* input base after flipping negative reduced strides */
    char *out;
    int nk;
    int64_t kshape[KB_MAX_DIMS], kin[KB_MAX_DIMS], kout[KB_MAX_DIMS];
    int nr;
    int64_t rshape[KB_MAX_DIMS], rin[KB_MAX_DIMS];
    int64_t count; /* elements reduced into each output */
    int64_t nout;  /* number of outputs */
    bool far;      /* the input comes from memory, not the caches (kb_cache_far): kernels that
                      stream it prefetch */
} kb_reduce_plan;

/* Validates the axes and fills reduced[i] for each input dimension. */
kb_status kb_reduce_plan_axes(const kb_array *in, const kb_reduce_args *args, bool *reduced);

/* Builds the plan for writing into out, which has the result's shape (checked by caller). */
void kb_reduce_plan_build(kb_reduce_plan *plan, const kb_array *in, const kb_reduce_args *args,
                          const bool *reduced, const kb_array *out);

/* Byte offset of the reduced element with flat index r (C order over rshape). */
int64_t kb_reduce_plan_roffset(const kb_reduce_plan *plan, int nr, int64_t r);

/* Input and output byte offsets of output number o (C order over kshape). */
void kb_reduce_plan_koffsets(const kb_reduce_plan *plan, int64_t o, int64_t *in_off,
                             int64_t *out_off);

#endif

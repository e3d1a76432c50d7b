#ifndef KB_EXPR_KERNEL_SOURCE_H
#define KB_EXPR_KERNEL_SOURCE_H

#include <stdbool.h>

#include "kbench/array.h"
#include "kbench/simd.h"
#include "kernels/ew.h"

/* An elementwise kernel of a fused plan as one C function, evaluated a vector at a time through
 * all its ops in registers (docs/fusion.md, "Compiled kernels"), where the tile executor runs
 * op by op over buffers in L1. Its values are numbered: the inputs first (contiguous runs of
 * the kernel's type), then the constants, then the ops' results in order. */
typedef struct kb_ck_op {
    kb_ew_op op;
    int nin;
    int in[3]; /* values */
    int out;   /* the output it is written to, or -1 */
} kb_ck_op;

/* The most inputs and outputs, and constants, a compiled kernel has (more: it runs op by
 * op). */
enum { KB_CK_MAX_IO = 16, KB_CK_MAX_CONSTS = 64 };

typedef struct kb_ck {
    kb_dtype type; /* float32 or float64: every op's loop type */
    int ninputs, nconsts, nouts, nops;
    const kb_ck_op *ops;
} kb_ck;

/* How a compiled kernel's loop runs (its last argument): in the caches; streaming from memory,
 * prefetching its inputs ahead; or also writing its outputs with non-temporal stores, which
 * needs them aligned to KB_NT_ALIGN. Every element is computed the same way in each. */
enum { KB_CK_NEAR, KB_CK_FAR, KB_CK_STREAM };

/* The function a compiled kernel's source defines (kb_ck_source). */
#define KB_CK_SYMBOL "kb_compiled_kernel"
typedef void (*kb_ck_fn)(int64_t n, const void *const *in, void *const *out, const void *consts,
                         int mode);

/* Whether the compiled kernels compute op: the vector levels' float ops (their bodies in
 * kernels/ew_float_bodies.h), <, <=, >, >= and == as lane masks that only where reads, and
 * where. */
bool kb_ck_op_supported(kb_ew_op op);

/* Whether kb_ck_source writes k at level: AVX2, AVX-512 or NEON, float32 or float64, every op one
 * it computes, operands that come before their use, masks read only as where's condition and never
 * written out. */
bool kb_ck_computes(const kb_ck *k, kb_simd_level level);

/* The C source of k at level (AVX2, AVX-512 or NEON): kb_compiled_kernel(n, in, out, consts, mode)
 * computes n elements of every output from n of every input, consts pointing at the constants'
 * values (of k's type, one after another), each element by the same instructions, in the same
 * lane, as the elementwise loops of that level give it op by op over the same n (a last
 * partial vector's lanes past n computed from zeros, as those loops copy it): the results agree
 * bit for bit, NaN for NaN (which of two NaN operands an instruction passes on is the
 * compiler's choice, here and in the loops). *out is heap-allocated, for the caller to free.
 * KB_EUNSUPPORTED where kb_ck_computes does not hold. */
kb_status kb_ck_source(const kb_ck *k, kb_simd_level level, char **out);

#endif

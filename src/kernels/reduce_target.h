#ifndef KB_KERNELS_REDUCE_TARGET_H
#define KB_KERNELS_REDUCE_TARGET_H

/* Every SIMD kernel of the float reductions, as one target compiles them: a per-target file
 * (reduce_avx2.c, reduce_avx512.c, reduce_neon.c) defines KB_VEC_<TARGET>, includes this
 * header under its target's flags (cmake/simd.cmake) and returns KB_REDUCE_KERNELS_TABLE. The
 * kernels are written once, over the vector layer (simd/internal.h), in the headers included
 * below; the contracts are in reduce_kernels.h, and reduce_scalar.c is the reference every
 * target must agree with (tests/kernels/test_reduce_kernels.c).
 *
 * What the headers share:
 *  - Every loop keeps at least four vectors in flight (NACC accumulators, or a tile of NTILE
 *    column vectors), so that the latency of an add, a min or a compare-and-select is hidden
 *    and the loop runs at load throughput.
 *  - Narrow blocks (reduce_lanes.h): when rows are adjacent and m is small, a block is one run
 *    of rows * m elements in which lane l of a vector loaded at element offset e belongs to
 *    column (e + l) % m. With A accumulators of w lanes and A * w a multiple of m, every group
 *    of A vectors starting at a multiple of A * w puts the same column in the same lane, so the
 *    block streams like a run and the lanes fold into their columns once, at the end. A is the
 *    smallest multiple of the pattern's period (m / gcd(m, w) vectors) that is at least NACC;
 *    patterns that need more than NARROW_MAX accumulators, and columns wide enough to fill
 *    vectors anyway, use column tiles instead.
 *  - NaN: the vector min and max of some targets drop a NaN operand, so min, max and the arg
 *    kernels feed the lanes they read to a detector (vfS_nan_or), and what saw a NaN is redone
 *    by the scalar reference: exact by construction, and rare. */

#include <math.h>
#include <stdint.h>

#include "simd/internal.h"
#include "kernels/reduce_kernels.h"

/* Through void *: the rows of a float array are aligned to its elements, whatever the char *. */
#define ROW(T, x, i, stride) ((const T *)(const void *)((x) + (i) * (stride)))
#define UNROLL _Pragma("GCC unroll 16")
#define INLINE static inline __attribute__((always_inline))

enum {
    NACC = 4,       /* independent accumulators of a run */
    NTILE = 8,      /* column vectors a cols tile keeps in registers */
    NTILE_ARG = 4,  /* the same for arg kernels, which keep an index vector beside each */
    NARROW_MAX = 8, /* most accumulators a narrow block may need */
    RCHUNK = 8,     /* strided rows a cols tile walks before the next tile (see FOR_CHUNKS) */
    NSTREAMS = KB_VEC_STREAMS, /* long rows a run kernel reads at once (simd/internal.h) */
    W_f32 = VF32_LANES,
    W_f64 = VF64_LANES,
};

#include "kernels/reduce_lanes.h"
#include "kernels/reduce_sum.h"
#include "kernels/reduce_moments.h"
#include "kernels/reduce_cols_moments.h"
#include "kernels/reduce_cols_extreme.h"
#include "kernels/reduce_extreme.h"
#include "kernels/reduce_rows.h"
#include "kernels/reduce_arg.h"
#include "kernels/reduce_narrow.h"

#endif

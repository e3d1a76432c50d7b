#ifndef KB_SIMD_INTERNAL_H
#define KB_SIMD_INTERNAL_H

/* The vector layer: one small set of operations with the same names and meaning on every
 * instruction set, so that a kernel is written once (kernels/reduce_sum.h) and compiled once
 * per target with that target's flags. A file includes this header after defining exactly one
 * of KB_VEC_AVX2, KB_VEC_AVX512, KB_VEC_NEON or KB_VEC_SVE (with KB_SVE_BITS, the vector
 * length it is compiled for); each selects one header below. The operations:
 *
 *   vf32, vf64              vectors of VF32_LANES floats and VF64_LANES doubles
 *                           (VF32_LANES == 2 * VF64_LANES on every target)
 *   KB_VEC_REGISTERS        how many vector registers the target has (16 or 32)
 *   KB_VEC_STREAMS          how many long rows a kernel reads at once, a step of each in turn,
 *                           each with accumulators of its own: as many as leave registers for
 *                           them (3 with 16, 4 with 32); one thread may read memory faster
 *                           from several sequential streams than from one, and whether it
 *                           does is measured (kb_reduce_streams, docs/performance.md)
 *   KB_VEC_NT_STORES        1 where vfS_store_nt is a non-temporal store, 0 where it is plain
 *   vfS_zero()              all lanes 0
 *   vfS_load(p)             VF*_LANES elements from p, any alignment
 *   vfS_load_till(p, n)     the first n (< lanes) elements from p, zero in the others;
 *                           never reads past p[n - 1]
 *   vfS_add(a, b)
 *   vf64_widen_lo(a)        the lower half of a float vector's lanes as doubles
 *   vf64_widen_hi(a)        the upper half
 *   vf64_widen_halves(a)    a's halves added lane-wise in float, then widened: lane i is
 *                           (double)(a[i] + a[i + VF64_LANES])
 *   vf64_hsum(a)            the sum of a's lanes, in double
 *   vf64_hsum_many(v)       the sums of the lanes of VF64_LANES vectors v[0 ..), one a lane:
 *                           lane i is v[i]'s, added as a tree of neighbouring pairs,
 *                           ((x0 + x1) + (x2 + x3)) + ..., the same for every lane (so a sum
 *                           does not depend on the lane it lands in)
 *   vf64_hsum_many_f32(v, k)
 *                           the same of VF64_LANES float vectors whose lanes each hold a
 *                           partial of at most k elements, in double: a target may add in float
 *                           first while no lane adds more than 16 elements (KB_SUM_DEPTH), in
 *                           the same order for every lane; the others widen each vector's
 *                           halves (vf64_widen_halves), then vf64_hsum_many
 *   vfS_barrier(a)          a, unchanged, through an empty asm: what uses it waits for all of
 *                           a's computation, and what computes it is not spread among later
 *                           work (the rows of sum_rows, reduce_sum.h, stay in order)
 *   vf64_store(p, a)
 *   vfS_store_nt(p, a)      a stored with a non-temporal hint, p aligned to KB_NT_ALIGN
 *                           (core/cache_size.h); a plain store where the target has no such
 *                           store (NEON); not on SVE, which no elementwise or bandwidth
 *                           kernel is compiled for
 *   vf32_load_f16(p), vf32_load_bf16(p)
 *                           VF32_LANES float16 / bfloat16 values (raw uint16_t) as floats
 *   vf64_load_i32(p)        VF64_LANES int32 values as doubles
 *   vf64_load_f32(p)        VF64_LANES floats as doubles
 *   ..._till(p, n)          of each widening load: the first n (< lanes), zero after them
 *   vfS_set1(x)             all lanes x
 *   vf64_sub(a, b), vf64_mul(a, b), vf64_div(a, b), vf64_sqrt(a)
 *   vfS_fma(a, b, c)        a * b + c, rounded once
 *   vf64_store_f32(p, a)    a's VF64_LANES lanes rounded to float and stored
 *   vfS_min(a, b), vfS_max(a, b)
 *                           lane-wise, for lanes without NaN (a NaN lane gives either one)
 *   vfS_hmin(a), vfS_hmax(a)
 *                           the least or greatest lane
 *   vfS_hmin_many(v), vfS_hmax_many(v)
 *                           the least or greatest lane of each of VFS_LANES vectors v[0 ..),
 *                           one a lane: lane i is v[i]'s (NaN-free lanes)
 *   vfS_evens(a, b), vfS_odds(a, b)
 *                           the even-numbered lanes of a then those of b; the odd-numbered
 *   vfS_any_nan(a)          nonzero when a lane is NaN
 *   vfS_nan_or(acc, a, b)   acc with its lanes set to NaN (all bits set) where a or b is
 *                           NaN: a NaN detector that vfS_any_nan reads at the end
 *   vfS_load_till_or(p, n, fill)
 *                           as vfS_load_till, with fill in the lanes past n
 *   vf64_store_f16(p, a)    a's VF64_LANES lanes as float16 (raw uint16_t), each rounded
 *                           once, to nearest even, as kb_f64_to_f16 rounds
 *   vmfS                    a lane mask of vfS lanes, from the compares below
 *   vfS_lt(a, b), vfS_gt(a, b), vfS_eq(a, b)
 *                           ordered compares (false where a lane is NaN)
 *   vmfS_or(a, b), vmfS_and(a, b)
 *   vmfS_all(k)             nonzero when every lane of k is set (AVX2, AVX-512, NEON)
 *   vfS_select(src, k, a)   a where k is set, else src
 *   vifS                    index lanes beside vfS's: int32 beside f32, int64 beside f64
 *   vifS_set1(x), vifS_add(a, b), vifS_select(src, k, a), vifS_iota() (0, 1, 2, ...)
 *   vifS_lt(a, b)           signed compare, into a vmfS
 *   vifS_load(p), vifS_store(p, a)  from and to int32_t (f32) or int64_t (f64) lanes
 *   vifS_min_where(k, r)    the least lane of r among those k sets (k sets at least one)
 *   vfS_bits(a), vfS_from_bits(i), vifS_shl(i, k)
 *                           a's bits as vifS lanes, and back; each lane shifted left k bits
 *                           (AVX2, AVX-512, NEON)
 *   vf32_lookup8(t, i)      lane k is t[i[k] & 7], of a table of 8 floats (AVX2, AVX-512, NEON)
 *   vf32_mul                as vf64's
 *   vf32_sub, vf32_div, vf32_sqrt
 *                           as vf64's (AVX2, AVX-512, NEON: the elementwise kernels' levels)
 *   vfS_neg(a), vfS_abs(a)  the sign bit flipped or cleared, NaN lanes included (SVE has
 *                           vfS_neg only)
 *
 * simd/vmath.h adds vector math (vfS_exp, vfS_log, ...) on AVX2, AVX-512 and NEON.
 *
 * Everything that differs between instruction sets (masked loads or a copy where there are
 * none, how a float vector is split in halves, the horizontal fold) lives here, never in a
 * kernel. Other folders include this header, never the per-target ones. */

#include <stdint.h>
#include <string.h>

#if defined(KB_VEC_AVX512)
#include "simd/vec_avx512.h"
#elif defined(KB_VEC_AVX2)
#include "simd/vec_avx2.h"
#elif defined(KB_VEC_NEON)
#include "simd/vec_neon.h"
#elif defined(KB_VEC_SVE)
#include "simd/vec_sve.h"
#else
#error "define KB_VEC_AVX2, KB_VEC_AVX512, KB_VEC_NEON or KB_VEC_SVE before simd/internal.h"
#endif

#define KB_VEC_STREAMS (KB_VEC_REGISTERS >= 32 ? 4 : 3)

/* The sums of float partials, where a target has no way of its own: each widened, its halves
 * added, then across in double. */
#ifndef KB_VEC_HSUM_MANY_F32
static inline vf64 vf64_hsum_many_f32(const vf32 v[VF64_LANES], int k) {
    (void)k;
    vf64 s[VF64_LANES];
    for (int q = 0; q < VF64_LANES; q++)
        s[q] = vf64_widen_halves(v[q]);
    return vf64_hsum_many(s);
}
#endif

/* Lane i: OP over the lanes of v[i], for LANES vectors. log2(LANES) levels of pairs: the even
 * and the odd lanes of two vectors (vfS_evens, vfS_odds) combined, which leaves each vector's
 * pair results in one half, in order, as the next level needs them. */
#define KB_VEC_FOLD_MANY(V, LANES, OP, v)                                                          \
    V t[LANES];                                                                                    \
    for (int k = 0; k < LANES; k++)                                                                \
        t[k] = v[k];                                                                               \
    for (int n = LANES; n > 1; n /= 2)                                                             \
        for (int k = 0; k < n / 2; k++)                                                            \
            t[k] = OP(V##_evens(t[2 * k], t[2 * k + 1]), V##_odds(t[2 * k], t[2 * k + 1]));        \
    return t[0];
static inline vf32 vf32_hmin_many(const vf32 v[VF32_LANES]) {
    KB_VEC_FOLD_MANY(vf32, VF32_LANES, vf32_min, v)
}
static inline vf32 vf32_hmax_many(const vf32 v[VF32_LANES]) {
    KB_VEC_FOLD_MANY(vf32, VF32_LANES, vf32_max, v)
}
static inline vf64 vf64_hmin_many(const vf64 v[VF64_LANES]) {
    KB_VEC_FOLD_MANY(vf64, VF64_LANES, vf64_min, v)
}
static inline vf64 vf64_hmax_many(const vf64 v[VF64_LANES]) {
    KB_VEC_FOLD_MANY(vf64, VF64_LANES, vf64_max, v)
}

/* The widening loads' tails, the same on every target: a copy into a zeroed vector's worth
 * (tails are at most one per row, rare enough that masks would buy nothing). */
static inline vf32 vf32_load_f16_till(const uint16_t *p, int64_t n) {
    uint16_t t[VF32_LANES] = {0};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vf32_load_f16(t);
}
static inline vf32 vf32_load_bf16_till(const uint16_t *p, int64_t n) {
    uint16_t t[VF32_LANES] = {0};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vf32_load_bf16(t);
}
static inline vf64 vf64_load_i32_till(const int32_t *p, int64_t n) {
    int32_t t[VF64_LANES] = {0};
    memcpy(t, p, (size_t)n * sizeof *p);
    return vf64_load_i32(t);
}

#endif

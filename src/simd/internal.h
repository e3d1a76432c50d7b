#ifndef KB_SIMD_INTERNAL_H
#define KB_SIMD_INTERNAL_H

/* The vector layer: one small set of operations with the same names and meaning on every
 * instruction set, so that a kernel is written once (kernels/reduce_sum.h) and compiled once
 * per target with that target's flags. A file includes this header after defining exactly one
 * of KB_VEC_AVX2, KB_VEC_AVX512 or KB_VEC_NEON; each selects one header below. The operations:
 *
 *   vf32, vf64              vectors of VF32_LANES floats and VF64_LANES doubles
 *                           (VF32_LANES == 2 * VF64_LANES on every target)
 *   vfS_zero()              all lanes 0
 *   vfS_load(p)             VF*_LANES elements from p, any alignment
 *   vfS_load_till(p, n)     the first n (< lanes) elements from p, zero in the others;
 *                           never reads past p[n - 1]
 *   vfS_add(a, b)
 *   vf64_widen_lo(a)        the lower half of a float vector's lanes as doubles
 *   vf64_widen_hi(a)        the upper half
 *   vf64_hsum(a)            the sum of a's lanes, in double
 *   vf64_store(p, a)
 *
 * Everything that differs between instruction sets (masked loads or a copy where there are
 * none, how a float vector is split in halves, the horizontal fold) lives here, never in a
 * kernel. Other folders include this header, never the per-target ones. */

#include <stdint.h>

#if defined(KB_VEC_AVX512)
#include "simd/vec_avx512.h"
#elif defined(KB_VEC_AVX2)
#include "simd/vec_avx2.h"
#elif defined(KB_VEC_NEON)
#include "simd/vec_neon.h"
#else
#error "define KB_VEC_AVX2, KB_VEC_AVX512 or KB_VEC_NEON before including simd/internal.h"
#endif

#endif

#ifndef KB_KERNELS_EW_FLOAT_TARGET_H
#define KB_KERNELS_EW_FLOAT_TARGET_H

/* The float elementwise loops of a vector level, written once over the vector layer
 * (simd/internal.h) and the vector math of simd/vmath.h (SLEEF's, exp and tanh kbench's own),
 * each op's body from ew_float_bodies.h: a per-target file (ew_float_avx2.c, ...) defines
 * KB_VEC_<TARGET>, includes this header under its target's flags (cmake/simd.cmake) and defines
 * its table with KB_EW_FLOAT_TABLE. The ops of KB_EW_C_OPS stay C loops (ew_float_loops.h),
 * compiled with the same flags.
 *
 * Every element goes through the same vector code: a block's last, partial vector is copied
 * into a full one, computed, and copied back. So an element's result never depends on where a
 * block or a thread's share of the array starts, and results are bit-identical for any
 * thread count. */

#include <string.h>

#include "kernels/ew_float_loops.h"
#include "simd/internal.h"
#include "core/cache_size.h"
#include "simd/vmath.h"
#include "kernels/ew_float_bodies.h"

/* One loop of n elements: BODY computes a vector r from the vectors a (and b) of the inputs. */
#define VEC_LOOP(NAME, T, S, LANES, NIN, BODY)                                                     \
    static void NAME(int64_t n, void *out, const void *const *in, unsigned *found) {               \
        const T *x = in[0];                                                                        \
        const T *y = NIN > 1 ? (const T *)in[1] : x;                                               \
        T *o = out;                                                                                \
        (void)found;                                                                               \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES) {                                                       \
            v##S a = v##S##_load(x + i), b = v##S##_load(y + i);                                   \
            (void)b;                                                                               \
            v##S##_store(o + i, BODY);                                                             \
        }                                                                                          \
        if (i < n) {                                                                               \
            T ta[LANES] = {0}, tb[LANES] = {0}, to[LANES];                                         \
            memcpy(ta, x + i, (size_t)(n - i) * sizeof(T));                                        \
            memcpy(tb, y + i, (size_t)(n - i) * sizeof(T));                                        \
            v##S a = v##S##_load(ta), b = v##S##_load(tb);                                         \
            (void)b;                                                                               \
            v##S##_store(to, BODY);                                                                \
            memcpy(o + i, to, (size_t)(n - i) * sizeof(T));                                        \
        }                                                                                          \
    }

/* The trips of a loop over operands beyond the caches, from element i on: a trip covers at least
 * a cache line (STEP elements) of each operand, prefetches the inputs' lines AHEAD bytes on with
 * locality HINT (and, with PREFETCH_OUT, the output's for writing), and writes BODY with STORE.
 * Expects x, y, o, i, n and STEP of the loops below. */
#define STREAM_TRIPS(S, LANES, NIN, BODY, AHEAD, HINT, PREFETCH_OUT, STORE)                        \
    for (; i + STEP <= n; i += STEP) {                                                             \
        __builtin_prefetch((const char *)(x + i) + (AHEAD), 0, HINT);                              \
        if (NIN > 1)                                                                               \
            __builtin_prefetch((const char *)(y + i) + (AHEAD), 0, HINT);                          \
        if (PREFETCH_OUT)                                                                          \
            __builtin_prefetch((const char *)(o + i) + (AHEAD), 1, HINT);                          \
        for (int k = 0; k < STEP; k += LANES) {                                                    \
            v##S a = v##S##_load(x + i + k), b = v##S##_load(y + i + k);                           \
            (void)b;                                                                               \
            STORE(o + i + k, BODY);                                                                \
        }                                                                                          \
    }

/* The loop of VEC_LOOP for operands streamed from memory (kb_cache_far): its trips prefetch
 * KB_FAR_AHEAD_BYTES ahead, of the inputs and of the output. Plain 512-bit loads and stores
 * streamed a + b at 23-26 GB/s where the same loop with these prefetches did at 32-34 (Zen 4, one
 * thread, 64 MiB arrays); in the caches the prefetches cost 10-40%, hence two loops. The elements
 * are computed by the same BODY, so results do not depend on which loop ran. */
#define VEC_LOOP_FAR(NAME, T, S, LANES, NIN, BODY)                                                 \
    static void NAME##_far(int64_t n, void *out, const void *const *in, unsigned *found) {         \
        enum { STEP = LANES * sizeof(T) >= 64 ? LANES : 64 / sizeof(T) };                          \
        const T *x = in[0];                                                                        \
        const T *y = NIN > 1 ? (const T *)in[1] : x;                                               \
        T *o = out;                                                                                \
        int64_t i = 0;                                                                             \
        STREAM_TRIPS(S, LANES, NIN, BODY, KB_FAR_AHEAD_BYTES, 2, 1, v##S##_store)                  \
        const void *rest[2] = {x + i, y + i};                                                      \
        NAME(n - i, o + i, rest, found);                                                           \
    }

/* How many of n elements of item bytes at out a non-temporal loop leaves to the plain loop
 * before its first element aligned to KB_NT_ALIGN: those before it when they come in whole
 * groups of `group` bytes, else all n. */
static inline int64_t nt_head(const void *out, size_t item, size_t group, int64_t n) {
    size_t head = (KB_NT_ALIGN - (uintptr_t)out % KB_NT_ALIGN) % KB_NT_ALIGN;
    int64_t i = head % group ? n : (int64_t)(head / item);
    return i < n ? i : n;
}

/* The loop of VEC_LOOP for operands and an output beyond the last-level cache
 * (KB_REACH_BEYOND): the output's vectors go out with non-temporal stores, which write a line
 * without first reading it, and a trip prefetches the inputs KB_NT_AHEAD_BYTES ahead. Those
 * stores need an aligned output (KB_NT_ALIGN): the elements before the first aligned one go
 * through the plain loop when they are whole vectors, so that every element sits in the lane
 * it has in the plain loop (SLEEF's functions take a slower path for a whole vector when one
 * lane needs it, which moves the others' last bits); otherwise the plain loop takes all. So
 * results do not depend on which loop ran. A unary op over 64 MiB streamed 49 GB/s this way
 * against 32 with the far loop (Zen 4, one thread). No fence: the caller fences once per
 * thread (kb_nt_fence), as a fence after each call cost up to half the time of calls over a
 * few KiB. */
#define VEC_LOOP_NT(NAME, T, S, LANES, NIN, BODY)                                                  \
    static void NAME##_nt(int64_t n, void *out, const void *const *in, unsigned *found) {          \
        enum { STEP = LANES * sizeof(T) >= 64 ? LANES : 64 / sizeof(T) };                          \
        const T *x = in[0];                                                                        \
        const T *y = NIN > 1 ? (const T *)in[1] : x;                                               \
        T *o = out;                                                                                \
        int64_t i = nt_head(o, sizeof(T), LANES * sizeof(T), n);                                   \
        NAME(i, o, in, found);                                                                     \
        STREAM_TRIPS(S, LANES, NIN, BODY, KB_NT_AHEAD_BYTES, 0, 0, v##S##_store_nt)                \
        const void *rest[2] = {x + i, y + i};                                                      \
        NAME(n - i, o + i, rest, found);                                                           \
    }

/* where beyond the last-level cache: its C select (ew_float_loops.h), which GCC vectorizes as a
 * blend, into a buffer of WHERE_PIECE elements in L1, then out with non-temporal stores from the
 * first aligned element. A select computes nothing, so how the elements are grouped cannot
 * change them. No read prefetches: with them, a piece's 72 lines requested at once, float32
 * went 25 GB/s (a + b: 35); without, 36 (the plain loop 24; Zen 4, one thread, 43 MiB arrays). */
#define WHERE_PIECE 512
#define WHERE_LOOP_NT(S, T, LANES)                                                                 \
    static void c_where_##S##_nt(int64_t n, void *out, const void *const *in, unsigned *found) {   \
        const unsigned char *c = in[0];                                                            \
        const T *x = in[1], *y = in[2];                                                            \
        T *o = out;                                                                                \
        int64_t i = nt_head(o, sizeof(T), sizeof(T), n);                                           \
        c_where_##S(i, o, in, found);                                                              \
        _Alignas(64) T piece[WHERE_PIECE];                                                         \
        for (; i + WHERE_PIECE <= n; i += WHERE_PIECE) {                                           \
            const void *part[3] = {c + i, x + i, y + i};                                           \
            c_where_##S(WHERE_PIECE, piece, part, found);                                          \
            for (int k = 0; k < WHERE_PIECE; k += LANES)                                           \
                v##S##_store_nt(o + i + k, v##S##_load(piece + k));                                \
        }                                                                                          \
        const void *rest[3] = {c + i, x + i, y + i};                                               \
        c_where_##S(n - i, o + i, rest, found);                                                    \
    }

#define PLAIN_LOOP(S, T, LANES, name, NIN, BODY) VEC_LOOP(v_##name##_##S, T, S, LANES, NIN, BODY)
#define FAR_LOOP(S, T, LANES, name, NIN, BODY) VEC_LOOP_FAR(v_##name##_##S, T, S, LANES, NIN, BODY)
#define NT_LOOP(S, T, LANES, name, NIN, BODY) VEC_LOOP_NT(v_##name##_##S, T, S, LANES, NIN, BODY)

/* Every vector loop of one type S (f32 or f64) with element T: plain and non-temporal loops
 * of every op (where's among them), far loops of those bound by memory. */
#define VEC_LOOPS(S, T, LANES)                                                                     \
    KB_EW_STREAM_BODIES(PLAIN_LOOP, S, T, LANES)                                                   \
    KB_EW_STREAM_BODIES(FAR_LOOP, S, T, LANES)                                                     \
    KB_EW_STREAM_BODIES(NT_LOOP, S, T, LANES)                                                      \
    KB_EW_MATH_BODIES(PLAIN_LOOP, S, T, LANES)                                                     \
    KB_EW_MATH_BODIES(NT_LOOP, S, T, LANES)                                                        \
    WHERE_LOOP_NT(S, T, LANES)

VEC_LOOPS(f32, float, VF32_LANES)
VEC_LOOPS(f64, double, VF64_LANES)

/* sum(exp(x - shift)) (kb_ew_exp_sum) in one pass: each vector's terms as v_sub and v_exp give
 * them, added into double accumulators (a float vector's halves widened), never stored. The
 * last, partial vector is filled with -infinity, whose terms are 0. A logsumexp's sub, exp and
 * sum loops had each made a pass over the row, after the shift had been broadcast into a buffer
 * (docs/fusion.md). */
static inline vf64 exp_sum_add_f32(vf64 acc[2], vf32 e) {
    acc[1] = vf64_add(acc[1], vf64_widen_hi(e));
    return vf64_add(acc[0], vf64_widen_lo(e));
}
static inline vf64 exp_sum_add_f64(vf64 acc[2], vf64 e) {
    return vf64_add(acc[0], e);
}
#define EXP_SUM_VEC(S, T, LANES)                                                                   \
    static double v_exp_sum_##S(int64_t n, const void *xv, double shift) {                         \
        const T *x = xv;                                                                           \
        v##S s = v##S##_set1((T)shift);                                                            \
        vf64 acc[2] = {vf64_zero(), vf64_zero()};                                                  \
        int64_t i = 0;                                                                             \
        for (; i + LANES <= n; i += LANES)                                                         \
            acc[0] = exp_sum_add_##S(acc, v##S##_exp(v##S##_sub(v##S##_load(x + i), s)));          \
        if (i < n) {                                                                               \
            T t[LANES];                                                                            \
            for (int k = 0; k < LANES; k++)                                                        \
                t[k] = i + k < n ? x[i + k] : -(T)INFINITY;                                        \
            acc[0] = exp_sum_add_##S(acc, v##S##_exp(v##S##_sub(v##S##_load(t), s)));              \
        }                                                                                          \
        return vf64_hsum(vf64_add(acc[0], acc[1]));                                                \
    }
EXP_SUM_VEC(f32, float, VF32_LANES)
EXP_SUM_VEC(f64, double, VF64_LANES)

#define KB_EW_V_ENTRY32(ENUM, name) [KB_EW_##ENUM] = v_##name##_f32,
#define KB_EW_V_ENTRY64(ENUM, name) [KB_EW_##ENUM] = v_##name##_f64,
#define KB_EW_C_ENTRY32(ENUM, name) [KB_EW_##ENUM] = c_##name##_f32,
#define KB_EW_C_ENTRY64(ENUM, name) [KB_EW_##ENUM] = c_##name##_f64,
#define KB_EW_FAR_ENTRY32(ENUM, name) [KB_EW_##ENUM] = v_##name##_f32_far,
#define KB_EW_FAR_ENTRY64(ENUM, name) [KB_EW_##ENUM] = v_##name##_f64_far,
#define KB_EW_NT_ENTRY32(ENUM, name) [KB_EW_##ENUM] = v_##name##_f32_nt,
#define KB_EW_NT_ENTRY64(ENUM, name) [KB_EW_##ENUM] = v_##name##_f64_nt,

/* Defines kb_ew_float_table_<level>(). */
#define KB_EW_FLOAT_TABLE(level)                                                                   \
    const kb_ew_float_table *kb_ew_float_table_##level(void) {                                     \
        static const kb_ew_float_table table = {                                                   \
            .f32 = {KB_EW_VECTOR_OPS(KB_EW_V_ENTRY32) KB_EW_C_OPS(KB_EW_C_ENTRY32)},               \
            .f64 = {KB_EW_VECTOR_OPS(KB_EW_V_ENTRY64) KB_EW_C_OPS(KB_EW_C_ENTRY64)},               \
            .f32_far = {KB_EW_STREAM_OPS(KB_EW_FAR_ENTRY32)},                                      \
            .f64_far = {KB_EW_STREAM_OPS(KB_EW_FAR_ENTRY64)},                                      \
            .f32_nt = {KB_EW_VECTOR_OPS(KB_EW_NT_ENTRY32)[KB_EW_WHERE] = c_where_f32_nt},          \
            .f64_nt = {KB_EW_VECTOR_OPS(KB_EW_NT_ENTRY64)[KB_EW_WHERE] = c_where_f64_nt},          \
            .exp_sum_f32 = v_exp_sum_f32,                                                          \
            .exp_sum_f64 = v_exp_sum_f64,                                                          \
        };                                                                                         \
        return &table;                                                                             \
    }

#endif

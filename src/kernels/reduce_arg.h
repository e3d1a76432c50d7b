#ifndef KB_KERNELS_REDUCE_ARG_H
#define KB_KERNELS_REDUCE_ARG_H

/* argmin and argmax of runs and of columns (reduce_kernels.h), written once over the vector
 * layer (simd/internal.h: compares into lane masks, selects, and index vectors beside the
 * data) and compiled by each per-target file after the layer, reduce_lanes.h, reduce_sum.h
 * (sum_chunk_columns) and reduce_cols_extreme.h (KB_EXTREME_GROUP), with the constants and
 * macros that reduce_lanes.h asks of its includers and W_f32, W_f64, NTILE_ARG, ROW and
 * INLINE.
 *
 * NaN: the lanes read feed a detector (vfS_nan_or), and a run, narrow block, tile or rowwise
 * piece of columns that saw a NaN is redone by the scalar reference, which finds the first NaN's
 * index (rare, and exact by construction). Elements short of a whole vector are compared one by
 * one. */

#include <math.h>
#include <stdint.h>

#include "core/alias.h"
#include "kernels/reduce_lanes.h"

/* The fewest vectors a row must hold for argmin and argmax to read rows several at once: two
 * groups of NACC. Each row keeps two vectors (best lanes and their groups), so three rows fit
 * the registers: (100000, 32) float64, rows of 8 vectors at AVX2 from memory, took 0.85 of the
 * time one row at a time (Zen 3), where a best value and index per vector and row had made them
 * spill and take 1.3 times as long (then only rows of 64 vectors or more went so). */
#define KB_ARG_RANGES_MIN (2 * NACC)

/* Column argmin and argmax of rows of at least KB_ARG_ROWWISE_MIN vectors go rowwise,
 * KB_ARG_ROWWISE_ROWS rows at a time, in pieces of at most KB_ARG_PIECE_MAX columns
 * (NAME##_rowwise below). */
#define KB_ARG_ROWWISE_MIN (4 * NTILE_ARG)
#define KB_ARG_ROWWISE_ROWS 4
#define KB_ARG_PIECE_MAX 4096
/* ... but KB_ARG_TILE_ROWS rows or more from memory go in tiles (NAME##_pass below). */
#define KB_ARG_TILE_ROWS 256

/* The integer type of an index lane beside each data type's lanes. */
typedef int32_t kb_arg_idx_f32;
typedef int64_t kb_arg_idx_f64;

/* ---- argmin and argmax. BETTER is lt or gt, HOP the matching min or max, CMP its C operator.
 * A run goes a group of NACC vectors at a time: the group's lanes fold by HOP into one vector,
 * which replaces the row's best lanes where it improves on them strictly, each such lane taking
 * the group's start as its index. A lane then holds its best value and the first group that
 * holds it, so the first occurrence of the row's best is in the least group of the lanes that
 * hold it, found by reading that group again. Three folds, a compare and two selects a group,
 * where a best value and index per vector had taken a compare and two selects a vector. ---- */
#define DEFINE_ARG(S, T, NAME, BETTER, HOP, CMP, INIT)                                             \
    /* A row's index from its best lanes b and their groups r after the groups (elements [0, i)),  \
     * the whole vectors past them as a group of fewer, then the last elements one by one; a NaN   \
     * sends the row to the scalar reference. */                                                   \
    INLINE int64_t NAME##_finish_##S(const T *x, int64_t n, int64_t i, v##S b, vi##S r,            \
                                     v##S nan) {                                                   \
        int64_t at = -1, left = (n - i) / W_##S;                                                   \
        T best = INIT;                                                                             \
        if (left > 0) {                                                                            \
            /* the whole vectors past the groups: a group of fewer */                              \
            v##S m = v##S##_load(x + i);                                                           \
            nan = v##S##_nan_or(nan, m, m);                                                        \
            for (int64_t k = 1; k < left; k++) {                                                   \
                v##S v = v##S##_load(x + i + k * W_##S);                                           \
                nan = v##S##_nan_or(nan, v, v);                                                    \
                m = v##S##_##HOP(m, v);                                                            \
            }                                                                                      \
            vm##S u = v##S##_##BETTER(m, b);                                                       \
            b = v##S##_select(b, u, m);                                                            \
            r = vi##S##_select(r, u, vi##S##_set1(i));                                             \
            i += left * W_##S;                                                                     \
        }                                                                                          \
        if (v##S##_any_nan(nan))                                                                   \
            return kb_reduce_kernels_scalar()->NAME##_##S(x, n);                                   \
        if (i > 0) {                                                                               \
            /* A lane that never improved holds INIT and group 0: it can only win when every       \
             * element is INIT, and then the first element is the answer. */                       \
            best = v##S##_h##HOP(b);                                                               \
            v##S bv = v##S##_set1(best);                                                           \
            int64_t g = vi##S##_min_where(v##S##_eq(b, bv), r);                                    \
            /* the group's first element equal to best (its vectors within the row), lanes         \
             * compared from the last vector */                                                    \
            vi##S e = vi##S##_set1(NACC * W_##S);                                                  \
            if (g + NACC * W_##S <= n)                                                             \
                UNROLL for (int k = NACC - 1; k >= 0; k--) e =                                     \
                    vi##S##_select(e, v##S##_eq(v##S##_load(x + g + k * W_##S), bv),               \
                                   vi##S##_add(vi##S##_iota(), vi##S##_set1(k * W_##S)));          \
            else                                                                                   \
                for (int k = (int)((n - g) / W_##S) - 1; k >= 0; k--)                              \
                    e = vi##S##_select(e, v##S##_eq(v##S##_load(x + g + k * W_##S), bv),           \
                                       vi##S##_add(vi##S##_iota(), vi##S##_set1(k * W_##S)));      \
            at = g + vi##S##_min_where(v##S##_eq(bv, bv), e);                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            if (isnan(x[i]))                                                                       \
                return i;                                                                          \
            if (at < 0 || x[i] CMP best) {                                                         \
                best = x[i];                                                                       \
                at = i;                                                                            \
            }                                                                                      \
        }                                                                                          \
        return at < 0 ? 0 : at;                                                                    \
    }                                                                                              \
                                                                                                   \
    /* R rows of n elements, stride bytes apart, their indices into out[0 .. R): a group of NACC   \
     * vectors of each row in turn, each row with a best vector and groups of its own, so that     \
     * every row gets the index it gets alone (R == 1, NAME##_##S) while memory sees R streams. */ \
    INLINE void NAME##_body_##S(int R, const char *xv, int64_t stride, int64_t n, int64_t *out) {  \
        const T *x[NSTREAMS];                                                                      \
        v##S b[NSTREAMS], nan[NSTREAMS];                                                           \
        vi##S r[NSTREAMS];                                                                         \
        UNROLL for (int q = 0; q < R; q++) {                                                       \
            x[q] = ROW(T, xv, q, stride);                                                          \
            nan[q] = v##S##_zero();                                                                \
            b[q] = v##S##_set1(INIT);                                                              \
            r[q] = vi##S##_set1(0);                                                                \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + NACC * W_##S <= n; i += NACC * W_##S) {                                         \
            vi##S at = vi##S##_set1(i);                                                            \
            UNROLL for (int q = 0; q < R; q++) {                                                   \
                v##S v[NACC];                                                                      \
                UNROLL for (int k = 0; k < NACC; k++) v[k] = v##S##_load(x[q] + i + k * W_##S);    \
                UNROLL for (int k = 0; k < NACC; k += 2) nan[q] =                                  \
                    v##S##_nan_or(nan[q], v[k], v[k + 1]);                                         \
                UNROLL for (int w = 1; w < NACC; w *= 2)                                           \
                    UNROLL for (int k = 0; k + w < NACC; k += 2 * w) v[k] =                        \
                        v##S##_##HOP(v[k], v[k + w]);                                              \
                vm##S u = v##S##_##BETTER(v[0], b[q]);                                             \
                b[q] = v##S##_select(b[q], u, v[0]);                                               \
                r[q] = vi##S##_select(r[q], u, at);                                                \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int q = 0; q < R; q++) out[q] =                                                \
            NAME##_finish_##S(x[q], n, i, b[q], r[q], nan[q]);                                     \
    }                                                                                              \
                                                                                                   \
    static int64_t NAME##_##S(const T *x, int64_t n) {                                             \
        int64_t out;                                                                               \
        NAME##_body_##S(1, (const char *)x, 0, n, &out);                                           \
        return out;                                                                                \
    }                                                                                              \
    /* Keeps in (*b0, *r0) the better of two lanes of a column, the second shift elements on:      \
     * its group start moves by shift, and of equal values the earlier element wins. A lane that   \
     * never improved (r -1) holds the column's starting value and so never wins. */               \
    INLINE void NAME##_merge_##S(v##S *b0, vi##S *r0, v##S b1, vi##S r1, int64_t shift) {          \
        r1 = vi##S##_add(r1, vi##S##_set1(shift));                                                 \
        vm##S u = vm##S##_or(v##S##_##BETTER(b1, *b0),                                             \
                             vm##S##_and(v##S##_eq(b1, *b0), vi##S##_lt(r1, *r0)));                \
        *b0 = v##S##_select(*b0, u, b1);                                                           \
        *r0 = vi##S##_select(*r0, u, r1);                                                          \
    }                                                                                              \
                                                                                                   \
    /* Lanes start from the columns' best values with no index (-1): a lane only records a         \
     * strict improvement, so the best already held wins ties. */                                  \
    INLINE void NAME##_narrow_##S(int A, const char *x, int64_t rows, int64_t m, int64_t first,    \
                                  T *best, int64_t *index) {                                       \
        const T *p = (const T *)(const void *)x;                                                   \
        int64_t n = rows * m, i = 0;                                                               \
        T lb[NARROW_MAX * W_##S];                                                                  \
        kb_arg_idx_##S lr[NARROW_MAX * W_##S];                                                     \
        for (int64_t q = 0, c = 0; q < A * W_##S; q++, c = next_col(c, m))                         \
            lb[q] = best[c];                                                                       \
        v##S b[NARROW_MAX], nan = v##S##_zero();                                                   \
        vi##S r[NARROW_MAX];                                                                       \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            b[k] = v##S##_load(lb + k * W_##S);                                                    \
            r[k] = vi##S##_set1(-1);                                                               \
        }                                                                                          \
        for (; i + A * W_##S <= n; i += A * W_##S) {                                               \
            vi##S at = vi##S##_set1(i);                                                            \
            v##S v[NARROW_MAX];                                                                    \
            UNROLL for (int k = 0; k < A; k++) v[k] = v##S##_load(p + i + k * W_##S);              \
            UNROLL for (int k = 0; k < A; k += 2) nan =                                            \
                v##S##_nan_or(nan, v[k], v[k + 1 < A ? k + 1 : k]);                                \
            UNROLL for (int k = 0; k < A; k++) {                                                   \
                vm##S u = v##S##_##BETTER(v[k], b[k]);                                             \
                b[k] = v##S##_select(b[k], u, v[k]);                                               \
                r[k] = vi##S##_select(r[k], u, at);                                                \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int k = 0; k < A; k++) if (i + (k + 1) * W_##S <= n) {                         \
            v##S v = v##S##_load(p + i + k * W_##S);                                               \
            nan = v##S##_nan_or(nan, v, v);                                                        \
            vm##S u = v##S##_##BETTER(v, b[k]);                                                    \
            b[k] = v##S##_select(b[k], u, v);                                                      \
            r[k] = vi##S##_select(r[k], u, vi##S##_set1(i));                                       \
        }                                                                                          \
        int64_t e0 = i + (n - i) / W_##S * W_##S;                                                  \
        int tail_nan = 0;                                                                          \
        for (int64_t e = e0; e < n; e++)                                                           \
            tail_nan |= isnan(p[e]);                                                               \
        if (v##S##_any_nan(nan) || tail_nan) {                                                     \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x, rows, (int64_t)sizeof(T) * m, m, first, \
                                                        best, index);                              \
            return;                                                                                \
        }                                                                                          \
        int live;                                                                                  \
        NARROW_COMBINE_ARG(b, r, A, W_##S, lane_period(m, W_##S), live, NAME##_merge_##S);         \
        UNROLL for (int k = 0; k < A; k++) {                                                       \
            v##S##_store(lb + k * W_##S, b[k]);                                                    \
            vi##S##_store(lr + k * W_##S, r[k]);                                                   \
        }                                                                                          \
        /* Per column, the best lane and its element offset; lane q of a group is element q. */    \
        T cb[NACC * W_##S];                                                                        \
        int64_t ce[NACC * W_##S];                                                                  \
        for (int64_t c = 0; c < m; c++) {                                                          \
            cb[c] = best[c];                                                                       \
            ce[c] = -1;                                                                            \
        }                                                                                          \
        for (int64_t q = 0, c = 0; q < live * W_##S; q++, c = next_col(c, m)) {                    \
            if (lr[q] < 0)                                                                         \
                continue;                                                                          \
            int64_t e = lr[q] + q;                                                                 \
            if (ce[c] < 0 || lb[q] CMP cb[c] || (lb[q] == cb[c] && e < ce[c])) {                   \
                cb[c] = lb[q];                                                                     \
                ce[c] = e;                                                                         \
            }                                                                                      \
        }                                                                                          \
        for (int64_t c = 0; c < m; c++)                                                            \
            if (ce[c] >= 0) {                                                                      \
                best[c] = cb[c];                                                                   \
                index[c] = first + ce[c] / m;                                                      \
            }                                                                                      \
        /* The last elements come after every lane's, so a strict improvement decides. */          \
        for (int64_t e = e0, c = e % m; e < n; e++, c = next_col(c, m))                            \
            if (p[e] CMP best[c]) {                                                                \
                best[c] = p[e];                                                                    \
                index[c] = first + e / m;                                                          \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    /* A tile that holds a NaN is left to the scalar reference. */                                 \
    INLINE void NAME##_tile_##S(int nv, const char *x, int64_t rows, int64_t stride,               \
                                int64_t first, T *best, int64_t *index) {                          \
        v##S b[NTILE_ARG], nan = v##S##_zero();                                                    \
        vi##S r[NTILE_ARG];                                                                        \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            b[k] = v##S##_load(best + k * W_##S);                                                  \
            r[k] = vi##S##_set1(-1);                                                               \
        }                                                                                          \
        for (int64_t i = 0; i < rows; i++) {                                                       \
            const T *row = ROW(T, x, i, stride);                                                   \
            vi##S at = vi##S##_set1(i);                                                            \
            v##S v[NTILE_ARG];                                                                     \
            UNROLL for (int k = 0; k < nv; k++) v[k] = v##S##_load(row + k * W_##S);               \
            UNROLL for (int k = 0; k < nv; k += 2) nan =                                           \
                v##S##_nan_or(nan, v[k], v[k + 1 < nv ? k + 1 : k]);                               \
            UNROLL for (int k = 0; k < nv; k++) {                                                  \
                vm##S u = v##S##_##BETTER(v[k], b[k]);                                             \
                b[k] = v##S##_select(b[k], u, v[k]);                                               \
                r[k] = vi##S##_select(r[k], u, at);                                                \
            }                                                                                      \
        }                                                                                          \
        if (v##S##_any_nan(nan)) {                                                                 \
            int64_t w = (int64_t)nv * W_##S;                                                       \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x, rows, stride, w, first, best, index);   \
            return;                                                                                \
        }                                                                                          \
        kb_arg_idx_##S lr[NTILE_ARG * W_##S];                                                      \
        UNROLL for (int k = 0; k < nv; k++) {                                                      \
            v##S##_store(best + k * W_##S, b[k]);                                                  \
            vi##S##_store(lr + k * W_##S, r[k]);                                                   \
        }                                                                                          \
        for (int l = 0; l < nv * W_##S; l++)                                                       \
            if (lr[l] >= 0)                                                                        \
                index[l] = first + lr[l];                                                          \
    }                                                                                              \
                                                                                                   \
    static void NAME##_strided_##S(const char *x, int64_t rows, int64_t stride, int64_t m,         \
                                   int64_t first, T *best, int64_t *index) {                       \
        int64_t j = 0;                                                                             \
        FOR_TILES(j, m, W_##S, NTILE_ARG, NAME##_tile_##S, x + j * (int64_t)sizeof(T), rows,       \
                  stride, first, best + j, index + j);                                             \
        if (j < m)                                                                                 \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x + j * (int64_t)sizeof(T), rows, stride,  \
                                                        m - j, first, best + j, index + j);        \
    }                                                                                              \
                                                                                                   \
    /* Rows [i0, i0 + nr) over the cw columns at xj (whole vectors): each vector's best lanes b    \
     * and their rows rel (offsets from the call's first row) loaded and stored once per           \
     * KB_ARG_ROWWISE_ROWS (four) rows; the lanes read go to the NaN detectors. */                 \
    INLINE void NAME##_colrows_##S(const char *xj, int64_t i0, int64_t nr, int64_t stride,         \
                                   int64_t cw, T *b, kb_arg_idx_##S *rel, v##S *nan, v##S *nan2) { \
        enum { W = W_##S, R = KB_ARG_ROWWISE_ROWS };                                               \
        int64_t i = i0, end = i0 + nr;                                                             \
        for (; i + R <= end; i += R) {                                                             \
            const T *r0 = ROW(T, xj, i, stride), *r1 = ROW(T, xj, i + 1, stride);                  \
            const T *r2 = ROW(T, xj, i + 2, stride), *r3 = ROW(T, xj, i + 3, stride);              \
            vi##S a0 = vi##S##_set1(i), a1 = vi##S##_set1(i + 1);                                  \
            vi##S a2 = vi##S##_set1(i + 2), a3 = vi##S##_set1(i + 3);                              \
            for (int64_t c = 0; c < cw; c += W) {                                                  \
                v##S e = v##S##_load(b + c);                                                       \
                vi##S r = vi##S##_load(rel + c);                                                   \
                v##S p0 = v##S##_load(r0 + c), p1 = v##S##_load(r1 + c);                           \
                v##S p2 = v##S##_load(r2 + c), p3 = v##S##_load(r3 + c);                           \
                *nan = v##S##_nan_or(*nan, p0, p1);                                                \
                *nan2 = v##S##_nan_or(*nan2, p2, p3);                                              \
                /* four rows as a tree (a tie keeps the earlier row), then the running best */     \
                vm##S u = v##S##_##BETTER(p1, p0), w = v##S##_##BETTER(p3, p2);                    \
                v##S m01 = v##S##_select(p0, u, p1), m23 = v##S##_select(p2, w, p3);               \
                vi##S i01 = vi##S##_select(a0, u, a1), i23 = vi##S##_select(a2, w, a3);            \
                u = v##S##_##BETTER(m23, m01);                                                     \
                v##S m = v##S##_select(m01, u, m23);                                               \
                vi##S im = vi##S##_select(i01, u, i23);                                            \
                u = v##S##_##BETTER(m, e);                                                         \
                v##S##_store(b + c, v##S##_select(e, u, m));                                       \
                vi##S##_store(rel + c, vi##S##_select(r, u, im));                                  \
            }                                                                                      \
        }                                                                                          \
        for (; i < end; i++) {                                                                     \
            const T *r0 = ROW(T, xj, i, stride);                                                   \
            vi##S a0 = vi##S##_set1(i);                                                            \
            for (int64_t c = 0; c < cw; c += W) {                                                  \
                v##S e = v##S##_load(b + c), p0 = v##S##_load(r0 + c);                             \
                *nan = v##S##_nan_or(*nan, p0, p0);                                                \
                vm##S u = v##S##_##BETTER(p0, e);                                                  \
                v##S##_store(b + c, v##S##_select(e, u, p0));                                      \
                vi##S##_store(rel + c, vi##S##_select(vi##S##_load(rel + c), u, a0));              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Column argmin or argmax as the column extremes go (reduce_cols_extreme.h): a group of       \
     * KB_EXTREME_GROUP rows across every chunk of a piece's columns (a chunk's best values and    \
     * row offsets take half of L1) before the next group, so that memory sees a few streams over  \
     * whole rows. A piece (at most KB_ARG_PIECE_MAX columns, their offsets on the stack) that     \
     * saw a NaN is folded again by the scalar reference from where the vectors left it: no        \
     * number beats the best of them all, which keeps its first row, and the first NaN takes its   \
     * place, which is what the reference alone gives. */                                          \
    static void NAME##_rowwise_##S(const char *x, int64_t rows, int64_t stride, int64_t m,         \
                                   int64_t first, T *best, int64_t *index) {                       \
        enum { W = W_##S };                                                                        \
        char room[KB_ARG_PIECE_MAX * sizeof(kb_arg_idx_##S) + KB_ALIAS_PAGE];                      \
        kb_arg_idx_##S *rel = kb_alias_place(room, x); /* core/alias.h */                          \
        int64_t chunk = sum_chunk_columns(sizeof(T) + sizeof(kb_arg_idx_##S), W);                  \
        int64_t whole = m / W * W;                                                                 \
        for (int64_t p0 = 0; p0 < whole; p0 += KB_ARG_PIECE_MAX) {                                 \
            int64_t pw = whole - p0 < KB_ARG_PIECE_MAX ? whole - p0 : KB_ARG_PIECE_MAX;            \
            v##S nan = v##S##_zero(), nan2 = v##S##_zero();                                        \
            for (int64_t c = 0; c < pw; c += W)                                                    \
                vi##S##_store(rel + c, vi##S##_set1(-1));                                          \
            for (int64_t i0 = 0; i0 < rows; i0 += KB_EXTREME_GROUP)                                \
                for (int64_t j0 = 0; j0 < pw; j0 += chunk)                                         \
                    NAME##_colrows_##S(                                                            \
                        x + (p0 + j0) * (int64_t)sizeof(T), i0,                                    \
                        rows - i0 < KB_EXTREME_GROUP ? rows - i0 : KB_EXTREME_GROUP, stride,       \
                        pw - j0 < chunk ? pw - j0 : chunk, best + p0 + j0, rel + j0, &nan, &nan2); \
            for (int64_t c = 0; c < pw; c++)                                                       \
                if (rel[c] >= 0)                                                                   \
                    index[p0 + c] = first + rel[c];                                                \
            if (v##S##_any_nan(nan) || v##S##_any_nan(nan2))                                       \
                kb_reduce_kernels_scalar()->NAME##_cols_##S(                                       \
                    x + p0 * (int64_t)sizeof(T), rows, stride, pw, first, best + p0, index + p0);  \
        }                                                                                          \
        if (whole < m)                                                                             \
            kb_reduce_kernels_scalar()->NAME##_cols_##S(x + whole * (int64_t)sizeof(T), rows,      \
                                                        stride, m - whole, first, best + whole,    \
                                                        index + whole);                            \
    }                                                                                              \
                                                                                                   \
    /* Adjacent narrow rows as one run (narrow_acc); rows of KB_ARG_ROWWISE_MIN vectors or more    \
     * rowwise, unless there are KB_ARG_TILE_ROWS of them or more from memory; the rest in tiles   \
     * of NTILE_ARG vectors held in registers down RCHUNK rows (docs/performance.md). */           \
    static void NAME##_pass_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        int A = narrow_acc(stride, m, sizeof(T), W_##S);                                           \
        if (A) {                                                                                   \
            NARROW_DISPATCH(A, NAME##_narrow_##S, x, rows, m, first, best, index);                 \
            return;                                                                                \
        }                                                                                          \
        bool tiles_far = rows >= KB_ARG_TILE_ROWS && kb_cache_far(rows * stride);                  \
        if (m >= KB_ARG_ROWWISE_MIN * W_##S && !tiles_far) {                                       \
            NAME##_rowwise_##S(x, rows, stride, m, first, best, index);                            \
            return;                                                                                \
        }                                                                                          \
        FOR_CHUNKS(x, rows, stride, NAME##_strided_##S, stride, m, first + i0, best, index);       \
    }                                                                                              \
                                                                                                   \
    /* f32 lanes hold 32-bit offsets: each pass keeps its element offsets below 2^30. */           \
    static void NAME##_cols_##S(const char *x, int64_t rows, int64_t stride, int64_t m,            \
                                int64_t first, T *best, int64_t *index) {                          \
        int64_t chunk = m < (INT64_C(1) << 30) ? (INT64_C(1) << 30) / m : 1;                       \
        for (int64_t i = 0; i < rows; i += chunk)                                                  \
            NAME##_pass_##S(x + i * stride, rows - i < chunk ? rows - i : chunk, stride, m,        \
                            first + i, best, index);                                               \
    }

DEFINE_ARG(f32, float, argmin, lt, min, <, INFINITY)
DEFINE_ARG(f32, float, argmax, gt, max, >, -INFINITY)
DEFINE_ARG(f64, double, argmin, lt, min, <, INFINITY)
DEFINE_ARG(f64, double, argmax, gt, max, >, -INFINITY)

/* ---- argmin and argmax of many short rows (shape (N, 32) along axis 1), as reduce_rows.h takes
 * their min and max: rows of at most four vectors go a group of W (a vector's lanes) at a time,
 * each loaded whole (the tail's lanes past n filled with the row's first element) and folded
 * lane-wise, the group's extremes across at once (vfS_hmax_many, HOP##_rows' form); each row is
 * then compared against its extreme vector by vector; each lane keeps the first position that
 * holds it, and the least lane wins. A fill lane can only tie with position 0, which is less.
 * A group with NaN goes row by row to the run kernel, and so do longer rows: from memory (and
 * from L3 for rows of a page or more) NSTREAMS ranges of them, a row of each at once
 * (NAME##_body), where the memory probe finds that faster (kb_reduce_streams). One run kernel
 * call per row had cost 16 ns a row of 32 float32 (Zen 4); a horizontal extreme per row and a
 * position search looping over the row's vectors 9.5 ns (Zen 3), now 6.8 ns. */
#define DEFINE_ARG_ROWS(S, T, NAME, HOP)                                                           \
    /* The first position of a row of F full vectors and, with TAIL, a tail of tail elements (at   \
     * most four vectors in all) that holds best, its extreme: each lane keeps the first vector    \
     * that holds best, the least lane wins; the tail's lanes past n hold the row's first          \
     * element, which can only tie with position 0. F and TAIL are constants where it is called,   \
     * so that the loop unrolls and its position vectors are constants. */                         \
    static inline __attribute__((always_inline))                                                   \
    int64_t NAME##_short_at_##S(const T *r, int F, int TAIL, int64_t tail, T best) {               \
        v##S b = v##S##_set1(best);                                                                \
        vi##S at = vi##S##_set1(4 * W_##S);                                                        \
        if (TAIL)                                                                                  \
            at = vi##S##_select(at, v##S##_eq(v##S##_load_till_or(r + F * W_##S, tail, r[0]), b),  \
                                vi##S##_add(vi##S##_iota(), vi##S##_set1(F * W_##S)));             \
        UNROLL for (int k = F - 1; k >= 0; k--) at =                                               \
            vi##S##_select(at, v##S##_eq(v##S##_load(r + k * W_##S), b),                           \
                           vi##S##_add(vi##S##_iota(), vi##S##_set1(k * W_##S)));                  \
        return vi##S##_min_where(v##S##_eq(b, b), at);                                             \
    }                                                                                              \
    /* The same for any row of at most four vectors (full whole ones and tail elements more). */   \
    static inline int64_t NAME##_short_any_##S(const T *r, int64_t full, int64_t tail, T best) {   \
        switch (full * 2 + (tail != 0)) {                                                          \
            case 1:                                                                                \
                return NAME##_short_at_##S(r, 0, 1, tail, best);                                   \
            case 2:                                                                                \
                return NAME##_short_at_##S(r, 1, 0, tail, best);                                   \
            case 3:                                                                                \
                return NAME##_short_at_##S(r, 1, 1, tail, best);                                   \
            case 4:                                                                                \
                return NAME##_short_at_##S(r, 2, 0, tail, best);                                   \
            case 5:                                                                                \
                return NAME##_short_at_##S(r, 2, 1, tail, best);                                   \
            case 6:                                                                                \
                return NAME##_short_at_##S(r, 3, 0, tail, best);                                   \
            case 7:                                                                                \
                return NAME##_short_at_##S(r, 3, 1, tail, best);                                   \
            default:                                                                               \
                return NAME##_short_at_##S(r, 4, 0, tail, best);                                   \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_rows_##S(const char *x, int64_t rows, int64_t stride, int64_t n,            \
                                int64_t *out, bool far) {                                          \
        int64_t full = n / W_##S, tail = n % W_##S;                                                \
        if (n > 4 * W_##S) {                                                                       \
            /* from memory (and from L3, rows_together), NSTREAMS ranges of rows, a row of each    \
             * at once, when rows hold two groups or more (KB_ARG_RANGES_MIN) */                   \
            bool ranges = far && n >= KB_ARG_RANGES_MIN * W_##S && kb_reduce_streams();            \
            int64_t part = ranges ? rows / NSTREAMS : 0;                                           \
            for (int64_t k = 0; k < part; k++) {                                                   \
                int64_t at[NSTREAMS];                                                              \
                NAME##_body_##S(NSTREAMS, x + k * stride, part * stride, n, at);                   \
                for (int q = 0; q < NSTREAMS; q++)                                                 \
                    out[k + q * part] = at[q];                                                     \
            }                                                                                      \
            for (int64_t i = NSTREAMS * part; i < rows; i++)                                       \
                out[i] = NAME##_##S(ROW(T, x, i, stride), n);                                      \
            return;                                                                                \
        }                                                                                          \
        int64_t i = 0;                                                                             \
        for (; i + W_##S <= rows; i += W_##S) {                                                    \
            /* a group of W rows: their extremes as one vector (HOP##_rows' form), then each       \
             * row's first position that holds its own */                                          \
            v##S a[W_##S], bad = v##S##_zero();                                                    \
            for (int q = 0; q < W_##S; q++)                                                        \
                a[q] = HOP##_row_vector_##S(ROW(T, x, i + q, stride), full, tail, &bad);           \
            if (v##S##_any_nan(bad)) {                                                             \
                for (int q = 0; q < W_##S; q++)                                                    \
                    out[i + q] = NAME##_##S(ROW(T, x, i + q, stride), n);                          \
                continue;                                                                          \
            }                                                                                      \
            T ext[W_##S];                                                                          \
            v##S##_store(ext, v##S##_h##HOP##_many(a));                                            \
            for (int q = 0; q < W_##S; q++)                                                        \
                out[i + q] = NAME##_short_any_##S(ROW(T, x, i + q, stride), full, tail, ext[q]);   \
        }                                                                                          \
        for (; i < rows; i++) {                                                                    \
            const T *r = ROW(T, x, i, stride);                                                     \
            v##S bad = v##S##_zero(), a = HOP##_row_vector_##S(r, full, tail, &bad);               \
            out[i] = v##S##_any_nan(bad) ? NAME##_##S(r, n)                                        \
                                         : NAME##_short_any_##S(r, full, tail, v##S##_h##HOP(a));  \
        }                                                                                          \
    }

DEFINE_ARG_ROWS(f32, float, argmin, min)
DEFINE_ARG_ROWS(f32, float, argmax, max)
DEFINE_ARG_ROWS(f64, double, argmin, min)
DEFINE_ARG_ROWS(f64, double, argmax, max)

#endif

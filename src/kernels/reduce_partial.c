/* Partial results and their pairwise combination, so that any thread count gives the same bits. */
#include <math.h>
#include <string.h>

#include "kernels/reduce_partial.h"

void kb_partial_merge(kb_reduce_op op, kb_partial *acc, const kb_partial *later) {
    switch (op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
            acc->a += later->a;
            return;
        case KB_REDUCE_PROD:
            acc->a *= later->a;
            return;
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD: {
            /* Chan, Golub and LeVeque's pairwise update, on means held as b + d: two means
             * near 1e9 rounded to double would lose their difference (about 1e-7 each) where
             * it matters, in the term delta^2 that adds the spread between the parts. The
             * new mean is kept exactly as a sum of two doubles (kb_two_sum). */
            double n = acc->a + later->a;
            if (later->a == 0)
                return;
            if (acc->a == 0) {
                *acc = *later;
                return;
            }
            double delta = (later->b - acc->b) + (later->d - acc->d);
            acc->c += later->c + delta * delta * (acc->a * later->a / n);
            acc->b = kb_two_sum(acc->b, acc->d + delta * (later->a / n), &acc->d);
            acc->a = n;
            return;
        }
        case KB_REDUCE_MIN:
            if (!isnan(acc->a) && (isnan(later->a) || later->a < acc->a))
                acc->a = later->a;
            return;
        case KB_REDUCE_MAX:
            if (!isnan(acc->a) && (isnan(later->a) || later->a > acc->a))
                acc->a = later->a;
            return;
        case KB_REDUCE_ARGMIN:
            if (!isnan(acc->a) && (isnan(later->a) || later->a < acc->a))
                *acc = *later;
            return;
        case KB_REDUCE_ARGMAX:
            if (!isnan(acc->a) && (isnan(later->a) || later->a > acc->a))
                *acc = *later;
            return;
        default:
            return;
    }
}

int kb_pairwise_depth(int64_t pushes) {
    int depth = 1;
    while (pushes > 1) {
        pushes >>= 1;
        depth++;
    }
    return depth;
}

void kb_pairwise_init(kb_pairwise *pw, kb_reduce_op op, int width, kb_partial *storage) {
    pw->op = op;
    pw->width = width;
    pw->depth = 0;
    pw->rows = storage;
}

/* Row merges run once per block on every column of a tile, so the common ops get loops
 * the compiler can vectorize instead of a call per element. */
static void merge_rows(kb_reduce_op op, kb_partial *acc, const kb_partial *later, int width) {
    switch (op) {
        case KB_REDUCE_SUM:
        case KB_REDUCE_MEAN:
            for (int j = 0; j < width; j++)
                acc[j].a += later[j].a;
            return;
        case KB_REDUCE_MAX:
            for (int j = 0; j < width; j++)
                acc[j].a = isnan(acc[j].a) || later[j].a <= acc[j].a ? acc[j].a : later[j].a;
            return;
        case KB_REDUCE_MIN:
            for (int j = 0; j < width; j++)
                acc[j].a = isnan(acc[j].a) || later[j].a >= acc[j].a ? acc[j].a : later[j].a;
            return;
        default:
            for (int j = 0; j < width; j++)
                kb_partial_merge(op, &acc[j], &later[j]);
            return;
    }
}

static void merge_top(kb_pairwise *pw) {
    kb_partial *acc = pw->rows + (size_t)(pw->depth - 2) * (size_t)pw->width;
    merge_rows(pw->op, acc, acc + pw->width, pw->width);
    pw->depth--;
}

void kb_pairwise_push(kb_pairwise *pw, const kb_partial *row) {
    memcpy(pw->rows + (size_t)pw->depth * (size_t)pw->width, row, (size_t)pw->width * sizeof *row);
    pw->level[pw->depth++] = 0;
    while (pw->depth >= 2 && pw->level[pw->depth - 1] == pw->level[pw->depth - 2]) {
        merge_top(pw);
        pw->level[pw->depth - 1]++;
    }
}

const kb_partial *kb_pairwise_finish(kb_pairwise *pw) {
    if (pw->depth == 0)
        return NULL;
    while (pw->depth >= 2)
        merge_top(pw);
    return pw->rows;
}

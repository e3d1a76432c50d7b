#ifndef KB_KERNELS_REDUCE_PARTIAL_H
#define KB_KERNELS_REDUCE_PARTIAL_H

#include <stdint.h>

#include "kbench/reduce.h"

/* The partial result of one output over part of its elements, the same for every op:
 *   sum, mean, prod:  a = sum (or product)
 *   var, std:         a = count, b + d = mean (d what b could not hold, so that the
 *                     difference of two partials' means keeps its bits when both lie far
 *                     from zero), c = sum of squared deviations from the mean
 *   min, max:         a = extreme so far (NaN once any element was NaN)
 *   argmin, argmax:   a = extreme so far, index = its flat index */
typedef struct kb_partial {
    double a, b, c, d;
    int64_t index;
} kb_partial;

/* The var and std partial of n elements from their sums around center, s1 = sum(x - center)
 * and s2 = sum((x - center)^2): the mean center + s1 / n as b + d, and M2 = s2 - s1^2 / n,
 * negative only by rounding (then 0; a NaN stays). */
static inline kb_partial kb_moments_partial(double n, double center, double s1, double s2) {
    double d = s1 / n, m2 = s2 - s1 * d;
    return (kb_partial){.a = n, .b = center, .c = m2 < 0 ? 0 : m2, .d = d};
}

/* a + b rounded, and in *err what the rounding lost, so that the two add up to a + b exactly
 * (Knuth's two-sum): how the means of var and std partials are kept as b + d. */
static inline double kb_two_sum(double a, double b, double *err) {
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

/* Folds `later` (the partial of the elements after those of `acc`) into acc. */
void kb_partial_merge(kb_reduce_op op, kb_partial *acc, const kb_partial *later);

/* Pairwise combination in a fixed order: partials are pushed in sequence, and whenever the
 * two newest cover equally many pushes they merge, as a binary counter carries. The tree
 * depends only on the number of pushes, so the result is the same however the pushes were
 * computed. Each entry is a row of `width` partials (one per output column). */
#define KB_PAIRWISE_DEPTH 64

typedef struct kb_pairwise {
    kb_reduce_op op;
    int width;
    int depth;
    int level[KB_PAIRWISE_DEPTH];
    kb_partial *rows; /* kb_pairwise_depth(pushes) rows of width partials, caller's */
} kb_pairwise;

/* Rows of storage needed for `pushes` pushes: one per bit of the count, plus one. */
int kb_pairwise_depth(int64_t pushes);

void kb_pairwise_init(kb_pairwise *pw, kb_reduce_op op, int width, kb_partial *storage);
void kb_pairwise_push(kb_pairwise *pw, const kb_partial *row);
/* Merges what remains and returns the row holding the result (NULL after no push). */
const kb_partial *kb_pairwise_finish(kb_pairwise *pw);

#endif

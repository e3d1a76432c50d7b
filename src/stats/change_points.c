/* Change points of a series by E-divisive means: energy-distance bisection, permutation test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/bench.h"
#include "kbench/change_points.h"
#include "util/internal.h"

void kb_change_options_default(kb_change_options *o) {
    *o = (kb_change_options){
        .max_p = KB_CHANGE_DEFAULT_MAX_P,
        .permutations = KB_CHANGE_DEFAULT_PERMUTATIONS,
        .min_change = KB_CHANGE_DEFAULT_MIN_CHANGE,
        .min_segment = KB_CHANGE_DEFAULT_MIN_SEGMENT,
        .seed = KB_CHANGE_DEFAULT_SEED,
    };
}

kb_status kb_change_options_check(const kb_change_options *o) {
    if (!(o->max_p > 0 && o->max_p < 1))
        return kb_fail(KB_EINVAL, "p-value threshold %g is not between 0 and 1", o->max_p);
    if (o->permutations < 1 || o->permutations > 100000)
        return kb_fail(KB_EINVAL, "%d permutations: expected 1 to 100000", o->permutations);
    if (1.0 / (o->permutations + 1) > o->max_p)
        return kb_fail(KB_EINVAL,
                       "%d permutations cannot give a p-value of %g or less (the smallest is "
                       "1/%d)",
                       o->permutations, o->max_p, o->permutations + 1);
    if (!(o->min_change >= 0) || !isfinite(o->min_change))
        return kb_fail(KB_EINVAL, "minimum change %g is not a finite number of 0 or more",
                       o->min_change);
    if (o->min_segment < 2)
        return kb_fail(KB_EINVAL, "minimum segment of %lld values: expected 2 or more",
                       (long long)o->min_segment);
    return KB_OK;
}

typedef struct ranked {
    double value;
    int64_t at;
} ranked;

/* Scratch for the segments of one series, allocated once at its length. */
typedef struct scratch {
    double *value;        /* the segment's values, in series order or shuffled */
    int64_t *rank;        /* of each value among the segment's (ties in any order) */
    double *below;        /* prefix sums of the segment's values sorted: below[r] = sum of r */
    double *left, *right; /* per position: sum of |z_i - z_t| over i before t, over i after */
    double *tree_sum;     /* Fenwick tree over ranks of the values seen so far */
    int64_t *tree_count;  /* and their count */
    ranked *by_value;     /* for the ranks */
} scratch;

static int compare_ranked(const void *x, const void *y) {
    double a = ((const ranked *)x)->value, b = ((const ranked *)y)->value;
    return (a > b) - (a < b);
}

static void scratch_free(scratch *s) {
    free(s->value);
    free(s->rank);
    free(s->below);
    free(s->left);
    free(s->right);
    free(s->tree_sum);
    free(s->tree_count);
    free(s->by_value);
}

static kb_status scratch_alloc(scratch *s, int64_t n) {
    size_t m = (size_t)n + 1;
    *s = (scratch){
        .value = malloc(m * sizeof(double)),
        .rank = malloc(m * sizeof(int64_t)),
        .below = malloc(m * sizeof(double)),
        .left = malloc(m * sizeof(double)),
        .right = malloc(m * sizeof(double)),
        .tree_sum = malloc(m * sizeof(double)),
        .tree_count = malloc(m * sizeof(int64_t)),
        .by_value = malloc(m * sizeof(ranked)),
    };
    if (!s->value || !s->rank || !s->below || !s->left || !s->right || !s->tree_sum ||
        !s->tree_count || !s->by_value) {
        scratch_free(s);
        return kb_fail(KB_ENOMEM, "out of memory for change points of %lld values", (long long)n);
    }
    return KB_OK;
}

/* Loads values[0, n) into the scratch, centred on their mean (so that the sums below cancel
 * little), with their ranks and the prefix sums of the sorted values. */
static void load_segment(scratch *s, const double *values, int64_t n) {
    double mean = 0;
    for (int64_t i = 0; i < n; i++)
        mean += values[i];
    mean /= (double)n;
    for (int64_t i = 0; i < n; i++) {
        s->value[i] = values[i] - mean;
        s->by_value[i] = (ranked){s->value[i], i};
    }
    qsort(s->by_value, (size_t)n, sizeof *s->by_value, compare_ranked);
    s->below[0] = 0;
    for (int64_t r = 0; r < n; r++) {
        s->rank[s->by_value[r].at] = r;
        s->below[r + 1] = s->below[r] + s->by_value[r].value;
    }
}

/* The largest q over the splits [0, t) | [t, n) with min_segment <= t <= n - min_segment, and
 * where it is. For each position t, left[t] = sum over i < t of |z_i - z_t| comes from a
 * Fenwick tree of the values seen so far (how many lie below z_t and their sum), and the sum
 * over every i from the sorted prefix sums, so right[t] is their difference: O(n log n) per
 * evaluation, which a permutation test repeats hundreds of times. Then, moving z_t from the
 * right part to the left, the cross sum gains right[t] and loses left[t]. */
static double best_split(scratch *s, int64_t n, int64_t min_segment, int64_t *at) {
    memset(s->tree_sum, 0, (size_t)(n + 1) * sizeof *s->tree_sum);
    memset(s->tree_count, 0, (size_t)(n + 1) * sizeof *s->tree_count);
    double seen = 0, total = 0;
    for (int64_t t = 0; t < n; t++) {
        double z = s->value[t];
        int64_t r = s->rank[t];
        double sum_below = 0;
        int64_t count_below = 0;
        for (int64_t i = r; i > 0; i -= i & -i) {
            sum_below += s->tree_sum[i];
            count_below += s->tree_count[i];
        }
        s->left[t] = ((double)count_below * z - sum_below) +
                     ((seen - sum_below) - (double)(t - count_below) * z);
        double all = ((double)r * z - s->below[r]) +
                     ((s->below[n] - s->below[r + 1]) - (double)(n - 1 - r) * z);
        s->right[t] = all - s->left[t];
        total += s->left[t];
        seen += z;
        for (int64_t i = r + 1; i <= n; i += i & -i) {
            s->tree_sum[i] += z;
            s->tree_count[i]++;
        }
    }
    double cross = 0, within_left = 0, best = -INFINITY;
    *at = -1;
    for (int64_t t = 0; t <= n - min_segment; t++) {
        if (t >= min_segment) {
            double m = (double)t, k = (double)(n - t);
            double within_right = total - cross - within_left;
            double energy = 2 * cross / (m * k) - within_left / (m * (m - 1) / 2) -
                            within_right / (k * (k - 1) / 2);
            double q = m * k / (m + k) * energy;
            if (q > best) {
                best = q;
                *at = t;
            }
        }
        cross += s->right[t] - s->left[t];
        within_left += s->left[t];
    }
    return best;
}

/* Shuffles the segment's values with their ranks (Fisher-Yates). */
static void shuffle(scratch *s, int64_t n, kb_rng *rng) {
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(kb_rng_uniform(rng) * (double)(i + 1));
        double v = s->value[i];
        int64_t r = s->rank[i];
        s->value[i] = s->value[j];
        s->rank[i] = s->rank[j];
        s->value[j] = v;
        s->rank[j] = r;
    }
}

typedef struct split {
    int64_t index;
    double p, q;
} split;

typedef struct range {
    int64_t start, end;
} range;

typedef struct search {
    const double *values;
    const kb_change_options *o;
    scratch s;
    split *splits; /* found so far */
    int64_t count;
    range *todo; /* segments still to search */
} search;

/* The p-value of the best split of the segment against the best splits of its shuffles, (k +
 * 1) / (permutations + 1) with k the shuffles doing at least as well. The count stops once p
 * is known to exceed max_p: a segment without a change (most of them) costs a few shuffles. */
static double permutation_p(search *w, int64_t start, int64_t n, double observed) {
    kb_rng rng;
    /* Seeded by the segment, so that the result does not depend on the order of the search. */
    kb_rng_seed(&rng,
                w->o->seed ^ kb_splitmix64((uint64_t)start * UINT64_C(1000003) + (uint64_t)n));
    int64_t at_least = 0;
    double shuffles = (double)w->o->permutations + 1;
    for (int i = 0; i < w->o->permutations; i++) {
        shuffle(&w->s, n, &rng);
        int64_t at;
        if (best_split(&w->s, n, w->o->min_segment, &at) >= observed)
            at_least++;
        if ((double)(at_least + 1) / shuffles > w->o->max_p)
            break;
    }
    return (double)(at_least + 1) / shuffles;
}

/* Recursive bisection, with a list of segments to search in place of the recursion (which
 * would go n / min_segment calls deep on a series that steps every min_segment values): each
 * segment whose best split is significant adds both sides of it. At most n / min_segment
 * segments are ever listed at once, as they do not overlap. */
static void bisect(search *w, int64_t n) {
    int64_t pending = 0;
    w->todo[pending++] = (range){0, n};
    while (pending > 0) {
        range r = w->todo[--pending];
        int64_t length = r.end - r.start;
        if (length < 2 * w->o->min_segment)
            continue;
        load_segment(&w->s, w->values + r.start, length);
        int64_t at;
        double q = best_split(&w->s, length, w->o->min_segment, &at);
        if (!(q > 0)) /* a constant segment, or no split beats none */
            continue;
        double p = permutation_p(w, r.start, length, q);
        if (p > w->o->max_p)
            continue;
        w->splits[w->count++] = (split){r.start + at, p, q};
        w->todo[pending++] = (range){r.start, r.start + at};
        w->todo[pending++] = (range){r.start + at, r.end};
    }
}

static int compare_splits(const void *x, const void *y) {
    int64_t a = ((const split *)x)->index, b = ((const split *)y)->index;
    return (a > b) - (a < b);
}

/* The statistics of the segments either side of split i of count: from the split before it
 * (or the start) to it, and from it to the next (or the end). */
static kb_status levels(const double *values, int64_t n, const split *splits, int64_t count,
                        int64_t i, kb_bench_stats *before, kb_bench_stats *after) {
    int64_t start = i > 0 ? splits[i - 1].index : 0, at = splits[i].index;
    int64_t end = i + 1 < count ? splits[i + 1].index : n;
    kb_status st = kb_bench_stats_compute(values + start, at - start, before);
    return st == KB_OK ? kb_bench_stats_compute(values + at, end - at, after) : st;
}

/* Merges away the splits whose change of level is under min_change, the smallest first, as
 * each merge changes the levels either side of its neighbours. */
static kb_status merge_small(search *w, int64_t n) {
    for (;;) {
        int64_t smallest = -1;
        double smallest_change = INFINITY;
        for (int64_t i = 0; i < w->count; i++) {
            kb_bench_stats before, after;
            kb_status st = levels(w->values, n, w->splits, w->count, i, &before, &after);
            if (st != KB_OK)
                return st;
            double change = after.median / before.median - 1;
            if (fabs(change) < smallest_change) {
                smallest_change = fabs(change);
                smallest = i;
            }
        }
        if (smallest < 0 || smallest_change >= w->o->min_change)
            return KB_OK;
        memmove(w->splits + smallest, w->splits + smallest + 1,
                (size_t)(w->count - smallest - 1) * sizeof *w->splits);
        w->count--;
    }
}

static kb_status describe(search *w, int64_t n, kb_change_points *out) {
    if (w->count == 0)
        return KB_OK;
    out->points = calloc((size_t)w->count, sizeof *out->points);
    if (!out->points)
        return kb_fail(KB_ENOMEM, "out of memory for %lld change points", (long long)w->count);
    for (int64_t i = 0; i < w->count; i++) {
        kb_change_point *c = &out->points[i];
        kb_bench_stats before, after;
        kb_status st = levels(w->values, n, w->splits, w->count, i, &before, &after);
        if (st != KB_OK)
            return st;
        c->index = w->splits[i].index;
        c->start = c->index - before.n;
        c->end = c->index + after.n;
        c->before = before.median;
        c->before_low = before.ci_low;
        c->before_high = before.ci_high;
        c->after = after.median;
        c->after_low = after.ci_low;
        c->after_high = after.ci_high;
        c->change = after.median / before.median - 1;
        c->p = w->splits[i].p;
        c->q = w->splits[i].q;
        c->regression = after.median > before.median;
        out->count++;
    }
    return KB_OK;
}

kb_status kb_change_points_detect(const double *values, int64_t n, const kb_change_options *o,
                                  kb_change_points *out) {
    memset(out, 0, sizeof *out);
    kb_status st = kb_change_options_check(o);
    if (st != KB_OK)
        return st;
    if (n < 0)
        return kb_fail(KB_EINVAL, "a series of %lld values", (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (!(isfinite(values[i]) && values[i] > 0))
            return kb_fail(KB_EINVAL, "value %lld of the series is %s", (long long)i,
                           isnan(values[i])   ? "NaN"
                           : isinf(values[i]) ? "infinite"
                                              : "not positive");
    if (n < 2 * o->min_segment)
        return KB_OK;
    search w = {.values = values, .o = o};
    if ((st = scratch_alloc(&w.s, n)) != KB_OK)
        return st;
    /* Each split leaves min_segment values either side: at most n / min_segment segments. */
    size_t segments = (size_t)(n / o->min_segment);
    w.splits = malloc(segments * sizeof *w.splits);
    w.todo = malloc(segments * sizeof *w.todo);
    if (!w.splits || !w.todo) {
        scratch_free(&w.s);
        free(w.splits);
        free(w.todo);
        return kb_fail(KB_ENOMEM, "out of memory for change points of %lld values", (long long)n);
    }
    bisect(&w, n);
    scratch_free(&w.s);
    free(w.todo);
    qsort(w.splits, (size_t)w.count, sizeof *w.splits, compare_splits);
    st = merge_small(&w, n);
    if (st == KB_OK)
        st = describe(&w, n, out);
    free(w.splits);
    if (st != KB_OK)
        kb_change_points_free(out);
    return st;
}

void kb_change_points_free(kb_change_points *points) {
    free(points->points);
    points->points = NULL;
    points->count = 0;
}

/* The reductions of any dtype and layout, element by element: the general fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kernels/reduce_finish.h"
#include "kernels/reduce_float.h"
#include "kernels/reduce_generic.h"
#include "kernels/reduce_kernels.h"
#include "kernels/reduce_partial.h"

typedef enum value_class { CLASS_FLOAT, CLASS_SIGNED, CLASS_UNSIGNED } value_class;

static value_class class_of(kb_dtype dtype) {
    if (kb_dtype_is_float(dtype))
        return CLASS_FLOAT;
    return kb_dtype_is_signed(dtype) ? CLASS_SIGNED : CLASS_UNSIGNED;
}

/* -1, 0 or 1 as a is below, equal to or above b; NaN compares above everything, so that the
 * first NaN wins both argmin and argmax once the callers treat it as a stop. */
static int compare(value_class cls, const kb_element *a, const kb_element *b) {
    if (cls == CLASS_FLOAT)
        return a->real < b->real ? -1 : a->real > b->real;
    if (cls == CLASS_SIGNED)
        return (int64_t)a->bits < (int64_t)b->bits ? -1 : (int64_t)a->bits > (int64_t)b->bits;
    return a->bits < b->bits ? -1 : a->bits > b->bits;
}

/* Walks the reduced elements of one output in plan order. */
typedef struct element_walk {
    const kb_reduce_plan *plan;
    int64_t index[KB_MAX_DIMS];
    const char *p;
} element_walk;

static const char *walk_next(element_walk *w) {
    const char *cur = w->p;
    const kb_reduce_plan *pl = w->plan;
    for (int i = pl->nr - 1; i >= 0; i--) {
        w->p += pl->rin[i];
        if (++w->index[i] < pl->rshape[i])
            break;
        w->p -= pl->rin[i] * pl->rshape[i];
        w->index[i] = 0;
    }
    return cur;
}

static bool wants_float_sum(const kb_reduce_plan *p) {
    switch (p->op) {
        case KB_REDUCE_MEAN:
        case KB_REDUCE_VAR:
        case KB_REDUCE_STD:
            return true;
        case KB_REDUCE_SUM:
        case KB_REDUCE_PROD:
            return kb_dtype_is_float(p->in_dtype);
        default:
            return false;
    }
}

/* Blocked pairwise accumulation in double: sums, products, and var's block moments. */
static kb_status float_output(const kb_reduce_plan *p, const char *base, char *out, double *buf) {
    kb_partial storage[KB_PAIRWISE_DEPTH];
    kb_pairwise pw;
    kb_pairwise_init(&pw, p->op, 1, storage);
    element_walk w = {.plan = p, .p = base};
    for (int64_t done = 0; done < p->count;) {
        int64_t n = p->count - done < KB_REDUCE_BLOCK ? p->count - done : KB_REDUCE_BLOCK;
        for (int64_t i = 0; i < n; i++)
            buf[i] = (double)kb_element_load(p->in_dtype, walk_next(&w)).real;
        kb_partial r = {0};
        if (p->op == KB_REDUCE_PROD) {
            r.a = 1;
            for (int64_t i = 0; i < n; i++)
                r.a *= buf[i];
        } else {
            for (int64_t i = 0; i < n; i++)
                r.a += buf[i];
        }
        if (p->op == KB_REDUCE_VAR || p->op == KB_REDUCE_STD) {
            /* the corrected two-pass form: the deviations' sum gives what the rounded mean
             * lost, which the pairwise merge needs (reduce_partial.h) */
            double mean = r.a / (double)n, dev = 0, dsum = 0;
            for (int64_t i = 0; i < n; i++) {
                dsum += buf[i] - mean;
                dev += (buf[i] - mean) * (buf[i] - mean);
            }
            r = kb_moments_partial((double)n, mean, dsum, dev);
        }
        kb_pairwise_push(&pw, &r);
        done += n;
    }
    const kb_partial *result = kb_pairwise_finish(&pw);
    if (!result) {
        /* No elements: sum 0 and prod 1; mean, var and std of nothing are NaN, as NumPy's
         * 0/0 gives. */
        kb_partial empty = {.a = p->op == KB_REDUCE_PROD ? 1.0 : 0.0, .c = 0.0};
        return kb_reduce_store(p, &empty, out);
    }
    return kb_reduce_store(p, result, out);
}

static kb_status integer_output(const kb_reduce_plan *p, const char *base, char *out) {
    uint64_t acc = p->op == KB_REDUCE_PROD ? 1 : 0;
    element_walk w = {.plan = p, .p = base};
    for (int64_t i = 0; i < p->count; i++) {
        uint64_t v = kb_element_load(p->in_dtype, walk_next(&w)).bits;
        acc = p->op == KB_REDUCE_PROD ? acc * v : acc + v;
    }
    memcpy(out, &acc, sizeof acc);
    return KB_OK;
}

static kb_status extreme_output(const kb_reduce_plan *p, const char *base, char *out) {
    value_class cls = class_of(p->in_dtype);
    bool want_min = p->op == KB_REDUCE_MIN || p->op == KB_REDUCE_ARGMIN;
    element_walk w = {.plan = p, .p = base};
    const char *best_ptr = walk_next(&w);
    kb_element best = kb_element_load(p->in_dtype, best_ptr);
    int64_t best_index = 0;
    for (int64_t i = 1; i < p->count && !(cls == CLASS_FLOAT && isnan(best.real)); i++) {
        const char *ptr = walk_next(&w);
        kb_element e = kb_element_load(p->in_dtype, ptr);
        int c = compare(cls, &e, &best);
        if ((cls == CLASS_FLOAT && isnan(e.real)) || (want_min ? c < 0 : c > 0)) {
            best = e;
            best_ptr = ptr;
            best_index = i;
        }
    }
    if (p->op == KB_REDUCE_ARGMIN || p->op == KB_REDUCE_ARGMAX)
        memcpy(out, &best_index, sizeof best_index);
    else
        memcpy(out, best_ptr, p->itemsize);
    return KB_OK;
}

kb_status kb_reduce_generic(const kb_reduce_plan *p, int threads) {
    bool floats = wants_float_sum(p);
    bool integers = !floats && (p->op == KB_REDUCE_SUM || p->op == KB_REDUCE_PROD);
    kb_status status = KB_OK;
    int parallel = threads > 1 && p->nout > 1 && p->nout * p->count >= KB_REDUCE_PARALLEL_MIN;
#pragma omp parallel num_threads(threads) if (parallel)
    {
        double *buf =
            floats ? kb_scratch_get(KB_SCRATCH_WORK, KB_REDUCE_BLOCK * sizeof *buf) : NULL;
        kb_status mine = floats && !buf ? kb_fail(KB_ENOMEM, "out of memory") : KB_OK;
#pragma omp for schedule(static)
        for (int64_t o = 0; o < p->nout; o++) {
            if (mine != KB_OK)
                continue;
            int64_t in_off, out_off;
            kb_reduce_plan_koffsets(p, o, &in_off, &out_off);
            const char *base = p->in + in_off;
            char *out = p->out + out_off;
            if (floats)
                mine = float_output(p, base, out, buf);
            else if (integers)
                mine = integer_output(p, base, out);
            else
                mine = extreme_output(p, base, out);
        }
        kb_scratch_release(KB_SCRATCH_WORK, buf);
        if (mine != KB_OK) {
#pragma omp critical
            status = mine;
        }
    }
    /* Messages are per thread: restate a worker's failure on the calling thread. */
    return status == KB_OK ? KB_OK : kb_fail(status, "out of memory during the reduction");
}

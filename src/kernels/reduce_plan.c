/* The plan of a reduction: kept and reduced dimensions, simplified and ordered for streaming. */
#include <string.h>

#include "core/cache_size.h"
#include "kernels/reduce_plan.h"

static bool order_free(kb_reduce_op op) {
    return op != KB_REDUCE_ARGMIN && op != KB_REDUCE_ARGMAX;
}

void kb_reduce_plan_build(kb_reduce_plan *plan, const kb_array *in, const kb_reduce_args *args,
                          const bool *reduced, const kb_array *out) {
    memset(plan, 0, sizeof *plan);
    plan->op = args->op;
    plan->in_dtype = in->dtype;
    plan->out_dtype = out->dtype;
    plan->itemsize = kb_dtype_size(in->dtype);
    plan->ddof = args->ddof;
    plan->in = in->data;
    plan->out = out->data;
    plan->count = 1;
    plan->nout = 1;

    int od = 0; /* output dimension matching input dimension i */
    for (int i = 0; i < in->ndim; i++) {
        if (reduced[i]) {
            plan->count *= in->shape[i];
            if (args->keepdims)
                od++;
            if (in->shape[i] != 1) {
                plan->rshape[plan->nr] = in->shape[i];
                plan->rin[plan->nr] = in->strides[i];
                plan->nr++;
            }
            continue;
        }
        plan->nout *= in->shape[i];
        if (in->shape[i] != 1) {
            plan->kshape[plan->nk] = in->shape[i];
            plan->kin[plan->nk] = in->strides[i];
            plan->kout[plan->nk] = out->strides[od];
            plan->nk++;
        }
        od++;
    }
    if (plan->count == 0 || plan->nout == 0)
        return;
    /* Once per call: the kernels ask for every block. */
    plan->far = kb_cache_far(plan->nout * plan->count * (int64_t)plan->itemsize);

    if (order_free(plan->op)) {
        for (int i = 0; i < plan->nr; i++) {
            if (plan->rin[i] < 0) {
                plan->in += (plan->rshape[i] - 1) * plan->rin[i];
                plan->rin[i] = -plan->rin[i];
            }
        }
        /* Insertion sort by decreasing stride: stable, and nr is small. */
        for (int i = 1; i < plan->nr; i++) {
            int64_t s = plan->rshape[i], t = plan->rin[i];
            int j = i;
            for (; j > 0 && plan->rin[j - 1] < t; j--) {
                plan->rshape[j] = plan->rshape[j - 1];
                plan->rin[j] = plan->rin[j - 1];
            }
            plan->rshape[j] = s;
            plan->rin[j] = t;
        }
    }
    /* Merge neighbours where the outer one steps exactly over the inner one: this keeps the
     * C order of the flat index, so it is valid for argmin and argmax too. */
    int n = 0;
    for (int i = 0; i < plan->nr; i++) {
        if (n > 0 && plan->rin[n - 1] == plan->rin[i] * plan->rshape[i]) {
            plan->rshape[n - 1] *= plan->rshape[i];
            plan->rin[n - 1] = plan->rin[i];
            continue;
        }
        plan->rshape[n] = plan->rshape[i];
        plan->rin[n] = plan->rin[i];
        n++;
    }
    plan->nr = n;
}

int64_t kb_reduce_plan_roffset(const kb_reduce_plan *plan, int nr, int64_t r) {
    int64_t off = 0;
    for (int i = nr - 1; i >= 0; i--) {
        off += (r % plan->rshape[i]) * plan->rin[i];
        r /= plan->rshape[i];
    }
    return off;
}

void kb_reduce_plan_koffsets(const kb_reduce_plan *plan, int64_t o, int64_t *in_off,
                             int64_t *out_off) {
    int64_t a = 0, b = 0;
    for (int i = plan->nk - 1; i >= 0; i--) {
        int64_t k = o % plan->kshape[i];
        o /= plan->kshape[i];
        a += k * plan->kin[i];
        b += k * plan->kout[i];
    }
    *in_off = a;
    *out_off = b;
}

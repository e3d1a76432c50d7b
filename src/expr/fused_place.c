/* Addressing a fused kernel's buffers over its iteration: places, gathers and scatters. */
#include <string.h>

#include "core/internal.h"
#include "expr/fused_place.h"
#include "kernels/ew.h"

void kb_fused_iter_init(kb_fused_iter *it, const kb_pkernel *k) {
    it->nk = it->nr = 0;
    it->rows = it->m = 1;
    for (int d = 0; d < k->ndim; d++) {
        if (k->has_reduce && !k->reduced[d]) {
            it->kshape[it->nk++] = k->shape[d];
            it->rows *= k->shape[d];
        } else {
            it->rshape[it->nr++] = k->shape[d];
            it->m *= k->shape[d];
        }
    }
}

void kb_fused_place_of(const kb_pkernel *k, const kb_array *a, kb_fused_place *p) {
    p->data = a->data;
    p->dtype = a->dtype;
    int nk = 0, nr = 0;
    for (int d = 0; d < k->ndim; d++) {
        int j = d - (k->ndim - a->ndim);
        int64_t stride = (j < 0 || a->shape[j] == 1) ? 0 : a->strides[j];
        if (k->has_reduce && !k->reduced[d])
            p->kstride[nk++] = stride;
        else
            p->rstride[nr++] = stride;
    }
}

void kb_fused_place_flat(const kb_fused_iter *it, const kb_array *a, kb_fused_place *p) {
    p->data = a->data;
    p->dtype = a->dtype;
    for (int d = 0; d < it->nk; d++) {
        int j = d - (it->nk - a->ndim);
        p->kstride[d] = (j < 0 || a->shape[j] == 1) ? 0 : a->strides[j];
    }
    for (int d = 0; d < it->nr; d++)
        p->rstride[d] = 0;
}

void kb_fused_row_index(const kb_fused_iter *it, int64_t r, int64_t *idx) {
    for (int d = it->nk - 1; d >= 0; d--) {
        idx[d] = r % it->kshape[d];
        r /= it->kshape[d];
    }
}

int64_t kb_fused_row_offset(const kb_fused_iter *it, const kb_fused_place *p, const int64_t *idx) {
    int64_t base = 0;
    for (int d = 0; d < it->nk; d++)
        base += idx[d] * p->kstride[d];
    return base;
}

/* The elements [j0, j0 + n) of a row as runs along its last dimension: at each, visit(context,
 * address, stride, elements done before it, its length); false from visit stops the walk. */
typedef bool (*run_visitor)(void *context, char *at, int64_t stride, int64_t done, int64_t run);

static bool walk_runs(const kb_fused_iter *it, const kb_fused_place *p, int64_t base, int64_t j0,
                      int64_t n, run_visitor visit, void *context) {
    char *at = p->data + base;
    if (it->nr == 0)
        return visit(context, at, 0, 0, 1);
    int64_t idx[KB_MAX_DIMS], rest = j0;
    for (int d = it->nr - 1; d >= 0; d--) {
        idx[d] = rest % it->rshape[d];
        rest /= it->rshape[d];
        at += idx[d] * p->rstride[d];
    }
    int last = it->nr - 1;
    for (int64_t done = 0; done < n;) {
        int64_t run = it->rshape[last] - idx[last];
        if (run > n - done)
            run = n - done;
        if (!visit(context, at, p->rstride[last], done, run))
            return false;
        done += run;
        at += run * p->rstride[last];
        idx[last] += run;
        for (int d = last; d > 0 && idx[d] == it->rshape[d]; d--) {
            at -= idx[d] * p->rstride[d];
            idx[d] = 0;
            idx[d - 1]++;
            at += p->rstride[d - 1];
        }
    }
    return true;
}

char *kb_fused_contiguous(const kb_fused_iter *it, const kb_fused_place *p, int64_t base,
                          int64_t j0, int64_t n) {
    if (it->nr == 0)
        return n == 1 ? p->data + base : NULL;
    char *at = p->data + base;
    int64_t idx[KB_MAX_DIMS], rest = j0;
    for (int d = it->nr - 1; d >= 0; d--) {
        idx[d] = rest % it->rshape[d];
        rest /= it->rshape[d];
        at += idx[d] * p->rstride[d];
    }
    int last = it->nr - 1;
    if (p->rstride[last] != (int64_t)kb_dtype_size(p->dtype))
        return NULL;
    /* the trailing dimensions p holds densely, one after another, as one run: the elements
     * left in it from j0's on (a chunk of a C-ordered (R, 1024) array spans rows, and had been
     * gathered into a buffer row by row) */
    int64_t span = it->rshape[last], offset = idx[last];
    for (int d = last - 1; d >= 0 && p->rstride[d] == p->rstride[d + 1] * it->rshape[d + 1]; d--) {
        offset += idx[d] * span;
        span *= it->rshape[d];
    }
    return span - offset >= n ? at : NULL;
}

typedef struct transfer {
    kb_dtype want, have;
    char *buf;
    const char *from;
} transfer;

static bool cast_run(void *context, char *at, int64_t stride, int64_t done, int64_t run) {
    const transfer *t = context;
    int64_t size = (int64_t)kb_dtype_size(t->want);
    return kb_ew_cast(t->want, t->buf + done * size, t->have, at, stride, run) == KB_OK;
}

const void *kb_fused_gather(const kb_fused_iter *it, const kb_fused_place *p, int64_t base,
                            int64_t j0, int64_t n, kb_dtype want, void *buf) {
    const char *in_place = p->dtype == want ? kb_fused_contiguous(it, p, base, j0, n) : NULL;
    if (in_place)
        return in_place;
    transfer t = {want, p->dtype, buf, NULL};
    return walk_runs(it, p, base, j0, n, cast_run, &t) ? buf : NULL;
}

static bool copy_run(void *context, char *at, int64_t stride, int64_t done, int64_t run) {
    const transfer *t = context;
    size_t size = kb_dtype_size(t->have);
    const char *from = t->from + done * (int64_t)size;
    if (stride == (int64_t)size)
        memcpy(at, from, (size_t)run * size);
    else
        for (int64_t i = 0; i < run; i++)
            memcpy(at + i * stride, from + i * (int64_t)size, size);
    return true;
}

void kb_fused_scatter(const kb_fused_iter *it, const kb_fused_place *p, int64_t base, int64_t j0,
                      int64_t n, const char *from) {
    transfer t = {p->dtype, p->dtype, NULL, from};
    walk_runs(it, p, base, j0, n, copy_run, &t);
}

/* kb_trace_diff: two traces' kernels side by side per name, by the change of their time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/trace.h"
#include "results/trace_format.h"
#include "util/internal.h"

static double change(const kb_trace_diff_row *r) {
    return fabs((r->b ? r->b->seconds : 0) - (r->a ? r->a->seconds : 0));
}

static int by_change(const void *x, const void *y) {
    const kb_trace_diff_row *a = x, *b = y;
    double ca = change(a), cb = change(b);
    if (ca != cb)
        return ca < cb ? 1 : -1;
    return strcmp(a->name, b->name);
}

static int by_name(const void *x, const void *y) {
    const kb_trace_group *const *a = x, *const *b = y;
    return strcmp((*a)->name, (*b)->name);
}

kb_status kb_trace_diff_make(const kb_trace_analysis *a, const kb_trace_analysis *b,
                             kb_trace_diff *out) {
    memset(out, 0, sizeof *out);
    out->a = a;
    out->b = b;
    /* B's groups by name, to find each of A's names in; each found one is marked. */
    size_t nb = (size_t)b->ngroups;
    const kb_trace_group **sorted = malloc((nb ? nb : 1) * sizeof *sorted);
    bool *matched = calloc(nb ? nb : 1, sizeof *matched);
    out->rows = malloc((size_t)(a->ngroups + b->ngroups + 1) * sizeof *out->rows);
    if (!sorted || !matched || !out->rows) {
        free(sorted);
        free(matched);
        kb_trace_diff_free(out);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < nb; j++)
        sorted[j] = &b->groups[j];
    qsort(sorted, nb, sizeof *sorted, by_name);
    for (int i = 0; i < a->ngroups; i++) {
        const kb_trace_group *ga = &a->groups[i], *key = ga;
        const kb_trace_group **found = bsearch(&key, sorted, nb, sizeof *sorted, by_name);
        if (found)
            matched[found - sorted] = true;
        out->rows[out->nrows++] = (kb_trace_diff_row){ga->name, ga, found ? *found : NULL, NAN};
    }
    for (size_t j = 0; j < nb; j++)
        if (!matched[j])
            out->rows[out->nrows++] = (kb_trace_diff_row){sorted[j]->name, NULL, sorted[j], NAN};
    free(sorted);
    free(matched);
    for (int i = 0; i < out->nrows; i++) {
        kb_trace_diff_row *r = &out->rows[i];
        if (r->a && r->b && r->a->seconds > 0)
            r->ratio = r->b->seconds / r->a->seconds;
    }
    qsort(out->rows, (size_t)out->nrows, sizeof *out->rows, by_change);
    return KB_OK;
}

void kb_trace_diff_free(kb_trace_diff *d) {
    free(d->rows);
    memset(d, 0, sizeof *d);
}

/* kb_bench_plan_filter: keeps the cases of a plan whose names match the --filter patterns. */
#include <stdlib.h>

#include "bench/name_filter.h"
#include "bench/plan.h"
#include "core/internal.h"
#include "util/internal.h"

static kb_status note_filters(kb_bench_plan *plan, const char *const *patterns, int n) {
    char **grown = realloc(plan->filters, (size_t)(plan->nfilters + n) * sizeof *grown);
    if (!grown && plan->nfilters + n > 0)
        return kb_fail(KB_ENOMEM, "out of memory");
    plan->filters = grown;
    for (int i = 0; i < n; i++) {
        if (!(plan->filters[plan->nfilters] = kb_strdup(patterns[i])))
            return KB_ENOMEM;
        plan->nfilters++;
    }
    return KB_OK;
}

/* The matching rule lives in name_filter.c, shared with `kbench compare --filter`. */
kb_status kb_bench_plan_filter(kb_bench_plan *plan, const char *const *patterns, int npatterns) {
    if (npatterns <= 0)
        return KB_OK;
    kb_name_filter filter;
    kb_status st = kb_name_filter_init(&filter, patterns, npatterns);
    if (st != KB_OK)
        return st;
    int kept = 0;
    for (int i = 0; i < plan->count; i++) {
        if (kb_name_filter_keeps(&filter, plan->cases[i].name))
            plan->cases[kept++] = plan->cases[i];
        else
            kb_plan_spec_free(&plan->cases[i]);
    }
    plan->count = kept;
    kb_name_filter_free(&filter);
    return note_filters(plan, patterns, npatterns);
}

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "core/fail.h"

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

kb_status kb_bench_plan_filter(kb_bench_plan *plan, const char *const *patterns, int npatterns) {
    if (npatterns <= 0)
        return KB_OK;
    regex_t *re = calloc((size_t)npatterns, sizeof *re);
    if (!re)
        return kb_fail(KB_ENOMEM, "out of memory");
    int compiled = 0;
    kb_status st = KB_OK;
    bool any_include = false;
    for (; compiled < npatterns; compiled++) {
        const char *p = patterns[compiled];
        bool exclude = p[0] == '-';
        any_include |= !exclude;
        int rc = regcomp(&re[compiled], exclude ? p + 1 : p, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char message[128];
            regerror(rc, &re[compiled], message, sizeof message);
            st = kb_fail(KB_EINVAL, "bad filter '%s': %s", p, message);
            break;
        }
    }
    if (st == KB_OK) {
        int kept = 0;
        for (int i = 0; i < plan->count; i++) {
            const char *name = plan->cases[i].name;
            bool included = !any_include, excluded = false;
            for (int k = 0; k < npatterns && !excluded; k++) {
                bool match = regexec(&re[k], name, 0, NULL, 0) == 0;
                if (patterns[k][0] == '-')
                    excluded = match;
                else
                    included |= match;
            }
            if (included && !excluded)
                plan->cases[kept++] = plan->cases[i];
            else
                kb_plan_spec_free(&plan->cases[i]);
        }
        plan->count = kept;
        st = note_filters(plan, patterns, npatterns);
    }
    for (int k = 0; k < compiled; k++)
        regfree(&re[k]);
    free(re);
    return st;
}

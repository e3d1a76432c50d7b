/* Releasing and counting a run's results (kb_results). */
#include <stdlib.h>
#include <string.h>

#include "kbench/run_results.h"

static void free_strings(char **list, int n) {
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void kb_results_free(kb_results *results) {
    if (!results)
        return;
    for (int i = 0; i < results->ncases; i++) {
        kb_bench_result *r = &results->cases[i];
        free(r->name);
        free(r->group);
        for (int p = 0; p < r->nparams; p++) {
            free(r->params[p].name);
            free(r->params[p].value);
        }
        free(r->params);
        free(r->error);
        free(r->baseline);
        free(r->check_detail);
        free(r->repetition_samples);
        free(r->sample_ns);
        free(r->blocks);
    }
    free(results->cases);
    kb_bench_context *c = &results->context;
    free(c->command);
    free(c->peaks_origin);
    free(c->baseline_info);
    free(c->baseline_unsupported);
    kb_usage_series_free(&c->usage);
    for (int i = 0; i < c->nenv_vars; i++) {
        free(c->env_names[i]);
        free(c->env_values[i]);
    }
    free_strings(c->suites, c->nsuites);
    free_strings(c->filters, c->nfilters);
    memset(results, 0, sizeof *results);
}

int kb_results_failed(const kb_results *results) {
    int failed = 0;
    for (int i = 0; i < results->ncases; i++)
        failed += results->cases[i].failed;
    return failed;
}

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/bench.h"

kb_status kb_bench_result_summarize(kb_bench_result *r) {
    memset(&r->stats, 0, sizeof r->stats);
    r->gb_per_s = r->gb_per_s_low = r->gb_per_s_high = 0;
    r->gflop_per_s = r->gflop_per_s_low = r->gflop_per_s_high = 0;
    if (r->nsamples < 1 || r->calls_per_sample < 1)
        return kb_fail(KB_EINVAL, "%s: no samples to summarize", r->name ? r->name : "case");
    double *per_call = malloc((size_t)r->nsamples * sizeof *per_call);
    if (!per_call)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int64_t i = 0; i < r->nsamples; i++)
        per_call[i] = (double)r->sample_ns[i] / (double)r->calls_per_sample;
    kb_status st = kb_bench_stats_compute(per_call, r->nsamples, &r->stats);
    free(per_call);
    if (st != KB_OK)
        return st;
    /* Bytes per nanosecond are gigabytes (1e9 bytes) per second; a shorter time is a higher
     * rate, so the interval's ends swap. */
    const kb_bench_stats *s = &r->stats;
    if (r->bytes_per_call > 0 && s->median > 0) {
        r->gb_per_s = r->bytes_per_call / s->median;
        r->gb_per_s_low = r->bytes_per_call / s->ci_high;
        r->gb_per_s_high = s->ci_low > 0 ? r->bytes_per_call / s->ci_low : 0;
    }
    if (r->flops_per_call > 0 && s->median > 0) {
        r->gflop_per_s = r->flops_per_call / s->median;
        r->gflop_per_s_low = r->flops_per_call / s->ci_high;
        r->gflop_per_s_high = s->ci_low > 0 ? r->flops_per_call / s->ci_low : 0;
    }
    return KB_OK;
}

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
    }
    free(results->cases);
    kb_bench_context *c = &results->context;
    free(c->command);
    free(c->peaks_origin);
    free(c->baseline_info);
    free(c->baseline_unsupported);
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

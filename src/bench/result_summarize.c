/* kb_bench_result_summarize: a case's statistics and rates from its samples. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/run_results.h"

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

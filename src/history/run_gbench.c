/* Google Benchmark JSON output as a run of the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/run.h"
#include "kbench/bench.h"
#include "util/internal.h"

kb_status kb_hrun_from_gbench(const json_t *root, const char *label, kb_hrun *run) {
    kb_status st = kb_gbench_from_json(root, label, &run->input);
    if (st != KB_OK)
        return st;
    run->kind = "google-benchmark";
    jfield f;
    jfield_init(&f, label);
    size_t mark = jfield_push_key(&f, "context");
    const json_t *ctx = json_object_get(root, "context");
    char date[64];
    jfield_string(&f, ctx, "date", date, sizeof date);
    if (f.status == KB_OK && !kb_parse_utc(date, &run->started_at))
        jfield_fail(&f, "date", "expected a time like 2025-01-31T12:00:00+00:00");
    if (json_is_string(json_object_get(ctx, "host_name")))
        jfield_string(&f, ctx, "host_name", run->hostname, sizeof run->hostname);
    jfield_pop(&f, mark);
    if (f.status != KB_OK)
        return f.status;
    if ((st = kb_hrun_fingerprints(run, &run->input, NULL)) != KB_OK)
        return st;
    if (!(run->settings = kb_json_dumps(ctx, JSON_COMPACT | JSON_SORT_KEYS)))
        return kb_fail(KB_ENOMEM, "out of memory");

    run->cases = calloc((size_t)run->input.nsets + 1, sizeof *run->cases);
    if (!run->cases)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < run->input.nsets; i++) {
        const kb_sample_set *s = &run->input.sets[i];
        kb_hcase *c = &run->cases[run->ncases++];
        c->name = s->name;
        c->failed = s->failed || s->n == 0;
        c->error = s->failed ? s->error : s->n == 0 ? "no repetitions" : NULL;
        /* Each repetition's time per iteration is a sample of one call. */
        c->calls_per_sample = 1;
        c->nsamples = s->n;
        c->sample_reals = s->ns;
        c->nrepetitions = 1;
        c->median = c->ci_low = c->ci_high = c->mad = NAN;
        c->gb_per_s = c->percent_of_bound = NAN;
        kb_bench_stats stats;
        if (c->failed)
            continue;
        if ((st = kb_bench_stats_compute(s->ns, s->n, &stats)) != KB_OK)
            return kb_fail_prefix(st, label);
        c->median = stats.median;
        c->ci_low = stats.ci_low;
        c->ci_high = stats.ci_high;
        c->mad = stats.mad;
        if (stats.unstable)
            snprintf(c->flags, sizeof c->flags, "unstable");
    }
    return KB_OK;
}

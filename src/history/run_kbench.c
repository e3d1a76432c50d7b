/* A kbench results file as a run of the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/run.h"
#include "kbench/roofline.h"
#include "util/internal.h"

/* "impossible,unstable": the roofline's flags, then the statistics' one. */
static void flags_of(const kb_bench_result *r, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned bit = 1; bit <= KB_ROOFLINE_SUSPICIOUS_LOW && r->has_roofline; bit <<= 1)
        if (r->roofline.flags & bit)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "",
                                     kb_roofline_flag_name(bit));
    if (r->stats.unstable && used < size)
        snprintf(buf + used, size - used, "%sunstable", used ? "," : "");
}

static void case_of(const kb_bench_result *r, kb_hcase *c) {
    c->name = r->name;
    c->failed = r->failed;
    c->error = r->error;
    c->calls_per_sample = r->calls_per_sample;
    c->nsamples = r->nsamples;
    c->sample_ints = r->sample_ns;
    c->nrepetitions = r->nrepetitions;
    c->repetition_samples = r->repetition_samples;
    c->median = c->ci_low = c->ci_high = c->mad = NAN;
    c->gb_per_s = c->percent_of_bound = NAN;
    if (r->failed)
        return;
    c->median = r->stats.median;
    c->ci_low = r->stats.ci_low;
    c->ci_high = r->stats.ci_high;
    c->mad = r->stats.mad;
    c->gb_per_s = r->bytes_per_call > 0 ? r->gb_per_s : NAN;
    c->percent_of_bound = r->has_roofline ? r->roofline.percent_of_bound : NAN;
    flags_of(r, c->flags, sizeof c->flags);
}

kb_status kb_hrun_from_results(const json_t *root, kb_json_lifted *samples, const char *label,
                               kb_hrun *run) {
    kb_status st = kb_results_from_json_lifted(root, samples, label, &run->results);
    if (st != KB_OK)
        return st;
    const kb_bench_context *ctx = &run->results.context;
    run->kind = "kbench";
    if (!kb_parse_utc(ctx->date, &run->started_at))
        return kb_fail(KB_EFORMAT,
                       "%s: context.date: expected a UTC time like 2025-01-31T12:00:00Z", label);
    if (strcmp(ctx->build.git_commit, "unknown") != 0)
        kb_copy_string(run->commit, sizeof run->commit, ctx->build.git_commit);
    if (strcmp(ctx->build.git_branch, "unknown") != 0)
        kb_copy_string(run->branch, sizeof run->branch, ctx->build.git_branch);
    kb_copy_string(run->hostname, sizeof run->hostname, ctx->machine.hostname);
    kb_copy_string(run->version, sizeof run->version, ctx->build.version);

    /* The machine and build as compare holds them, and the SIMD levels the build has. */
    kb_compare_input facts = {0};
    kb_compare_input_context_facts(ctx, &facts);
    char simd[128] = "";
    size_t used = 0;
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        if (ctx->simd_compiled & (1u << l))
            used += (size_t)snprintf(simd + used, sizeof simd - used, "%s%s", used ? "," : "",
                                     kb_simd_name((kb_simd_level)l));
    if ((st = kb_hrun_fingerprints(run, &facts, simd)) != KB_OK)
        return st;
    const json_t *settings = json_object_get(json_object_get(root, "context"), "settings");
    if (!(run->settings = kb_json_dumps(settings, JSON_COMPACT | JSON_SORT_KEYS)))
        return kb_fail(KB_ENOMEM, "out of memory");

    run->cases = calloc((size_t)run->results.ncases + 1, sizeof *run->cases);
    if (!run->cases)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < run->results.ncases; i++)
        case_of(&run->results.cases[i], &run->cases[i]);
    run->ncases = run->results.ncases;
    return KB_OK;
}

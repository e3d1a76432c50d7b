/* Results as CSV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/report.h"
#include "util/internal.h"

static void number(FILE *out, double v) {
    fprintf(out, "%.17g,", v);
}

static const char *const fixed[] = {"status",
                                    "simd_in_force",
                                    "threads_in_force",
                                    "calls_per_sample",
                                    "samples",
                                    "median_ns",
                                    "mean_ns",
                                    "min_ns",
                                    "max_ns",
                                    "stddev_ns",
                                    "mad_ns",
                                    "q1_ns",
                                    "q3_ns",
                                    "iqr_ns",
                                    "cv",
                                    "ci_low_ns",
                                    "ci_high_ns",
                                    "outliers_low",
                                    "outliers_high",
                                    "unstable",
                                    "bytes_per_call",
                                    "flops_per_call",
                                    "working_set_bytes",
                                    "gb_per_s",
                                    "gflop_per_s",
                                    "level",
                                    "bound",
                                    "percent_of_bound",
                                    "percent_of_bandwidth",
                                    "percent_of_flops",
                                    "flags",
                                    "error"};
enum { nfixed = sizeof fixed / sizeof fixed[0] };

static bool is_fixed(const char *name) {
    if (strcmp(name, "name") == 0 || strcmp(name, "group") == 0)
        return true;
    for (int i = 0; i < nfixed; i++)
        if (strcmp(name, fixed[i]) == 0)
            return true;
    return false;
}

kb_status kb_report_csv(const kb_results *results, FILE *out) {
    /* One column per parameter name, in order of first appearance. */
    int ncols = 0, cap = 0;
    const char **cols = NULL;
    for (int i = 0; i < results->ncases; i++)
        for (int p = 0; p < results->cases[i].nparams; p++) {
            const char *name = results->cases[i].params[p].name;
            bool seen = false;
            for (int k = 0; k < ncols && !seen; k++)
                seen = strcmp(cols[k], name) == 0;
            if (seen)
                continue;
            if (ncols == cap) {
                cap = cap ? 2 * cap : 16;
                const char **grown = realloc(cols, (size_t)cap * sizeof *grown);
                if (!grown) {
                    free(cols);
                    return kb_fail(KB_ENOMEM, "out of memory");
                }
                cols = grown;
            }
            cols[ncols++] = name;
        }
    fputs("name,group,", out);
    for (int k = 0; k < ncols; k++) {
        if (is_fixed(cols[k]))
            fputs("param_", out);
        kb_csv_field(out, cols[k], false);
    }
    for (int k = 0; k < nfixed; k++)
        kb_csv_field(out, fixed[k], k == nfixed - 1);

    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        kb_csv_field(out, r->name, false);
        kb_csv_field(out, r->group, false);
        for (int k = 0; k < ncols; k++) {
            const char *value = "";
            for (int p = 0; p < r->nparams; p++)
                if (strcmp(r->params[p].name, cols[k]) == 0)
                    value = r->params[p].value;
            kb_csv_field(out, value, false);
        }
        kb_csv_field(out, r->failed ? "failed" : "ok", false);
        kb_csv_field(out, kb_simd_name(r->simd), false);
        fprintf(out, "%d,", r->threads);
        if (r->failed) {
            fputs(",,,,,,,,,,,,,,,,,", out);
        } else {
            const kb_bench_stats *s = &r->stats;
            fprintf(out, "%lld,%lld,", (long long)r->calls_per_sample, (long long)r->nsamples);
            double stats[] = {s->median, s->mean, s->min, s->max, s->stddev, s->mad,
                              s->q1,     s->q3,   s->iqr, s->cv,  s->ci_low, s->ci_high};
            for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++)
                number(out, stats[k]);
            fprintf(out, "%lld,%lld,%s,", (long long)s->outliers_low, (long long)s->outliers_high,
                    s->unstable ? "true" : "false");
        }
        number(out, r->bytes_per_call);
        number(out, r->flops_per_call);
        number(out, r->working_set_bytes);
        number(out, r->gb_per_s);
        number(out, r->gflop_per_s);
        if (r->has_roofline) {
            const kb_roofline *f = &r->roofline;
            char flags[64];
            kb_roofline_flags_describe(f->flags, flags, sizeof flags);
            kb_csv_field(out, kb_mem_level_name(f->level), false);
            kb_csv_field(out, !f->bound_known ? "" : f->memory_bound ? "memory" : "compute", false);
            double percents[] = {f->percent_of_bound, f->percent_of_bandwidth, f->percent_of_flops};
            for (size_t k = 0; k < sizeof percents / sizeof percents[0]; k++)
                if (isfinite(percents[k]))
                    number(out, percents[k]);
                else
                    fputc(',', out);
            kb_csv_field(out, flags, false);
        } else {
            fputs(",,,,,,", out);
        }
        kb_csv_field(out, r->error ? r->error : "", true);
    }
    free(cols);
    return KB_OK;
}

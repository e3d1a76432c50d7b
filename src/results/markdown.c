/* Results as markdown, for a pull request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "results/speedup.h"
#include "util/internal.h"
#include "util/strings.h"

/* Text inside a table cell, escaped as kb_markdown_cell escapes it. */
void kb_report_markdown_cell(FILE *out, const char *s) {
    char *cell = kb_markdown_cell(s);
    fputs(cell ? cell : "", out);
    free(cell);
}

static void size_text(char *buf, size_t size, int64_t bytes) {
    if (bytes <= 0)
        snprintf(buf, size, "?");
    else
        kb_format_bytes(buf, size, bytes);
}

static void list(FILE *out, char *const *items, int n) {
    if (n == 0)
        fputs("none", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s`%s`", i ? ", " : "", items[i]);
}

static void context(const kb_bench_context *c, FILE *out) {
    const kb_machine *m = &c->machine;
    const kb_bench_build *b = &c->build;
    char l1[32], l2[32], l3[32];
    size_text(l1, sizeof l1, m->caches[KB_CACHE_L1D].size);
    size_text(l2, sizeof l2, m->caches[KB_CACHE_L2].size);
    size_text(l3, sizeof l3, m->caches[KB_CACHE_L3].size);
    fprintf(out, "- **run**: %s, `", c->date);
    kb_report_markdown_cell(out, c->command ? c->command : "?");
    fprintf(out, "`\n- **kbench**: %s (commit `%s`), %s, %s %s\n", b->version, b->git_commit,
            b->compiler, b->build_type, b->c_flags);
    fprintf(out, "- **machine**: %s (%s), %d logical CPUs, L1d %s, L2 %s, L3 %s; %s; %s %s%s%s\n",
            m->cpu_model, m->arch, m->logical_cpus, l1, l2, l3, m->os, m->kernel_name,
            m->kernel_release, m->hypervisor[0] ? "; hypervisor " : "", m->hypervisor);
    fprintf(out, "- **clock**: nominal ");
    if (m->nominal_mhz > 0)
        fprintf(out, "%.0f MHz", m->nominal_mhz);
    else
        fprintf(out, "unknown");
    if (c->clock_start.repetitions > 0)
        fprintf(out, "; measured %.0f MHz at the start", c->clock_start.mhz);
    if (c->clock_end.repetitions > 0)
        fprintf(out, ", %.0f MHz at the end", c->clock_end.mhz);
    fprintf(out,
            "\n- **settings**: min-time %g s, at least %d samples, %d repetition%s, %s "
            "cache, %s; SIMD %s, %d thread%s by default\n",
            c->settings.min_time, c->settings.min_samples, c->settings.repetitions,
            kb_plural(c->settings.repetitions), kb_bench_cache_name(c->settings.cache),
            c->settings.pin ? "pinned" : "not pinned", kb_simd_name(c->simd_selected), c->threads,
            kb_plural(c->threads));
    char target[32];
    kb_format_duration(target, sizeof target, (double)c->sample_target_ns);
    fprintf(out,
            "- **timer**: " KB_MONOTONIC_CLOCK_NAME ", resolution %.0f ns, overhead %.0f ns; "
            "samples of about %s\n",
            c->timer.resolution_ns, c->timer.overhead_ns, target);
    fprintf(out, "- **selection**: suites ");
    list(out, c->suites, c->nsuites);
    fprintf(out, "; filters ");
    list(out, c->filters, c->nfilters);
    fprintf(out, "; shard %d/%d\n", c->shard_index, c->shard_count);
    fprintf(out, "- **warnings**: ");
    if (c->env.count == 0)
        fputs("none", out);
    for (int i = 0; i < c->env.count; i++) {
        fprintf(out, "%s`%s` ", i ? "; " : "", kb_env_code_name(c->env.warnings[i].code));
        kb_report_markdown_cell(out, c->env.warnings[i].message);
    }
    fputs("\n", out);
    if (c->nprobes > 0)
        fputs("- **bandwidth probes** (before and after the cases, GB/s): ", out);
    for (int i = 0; i < c->nprobes; i++) {
        const kb_bench_probe *p = &c->probes[i];
        fprintf(out, "%s%s %s at %d thread%s %.1f to %.1f%s", i ? "; " : "",
                kb_bw_kernel_name(p->kernel), kb_mem_level_name(p->level), p->threads,
                kb_plural(p->threads), p->before * 1e-9, p->after * 1e-9,
                kb_bw_probes_disagree(p->before, p->after) ? " (**changed**)" : "");
    }
    if (c->nprobes > 0)
        fputs("\n", out);
}

/* Why each impossible or suspicious-high result is flagged: the figure it was held against. */
static void explanations(const kb_results *results, FILE *out) {
    int n = 0;
    char why[320];
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        if (!r->has_roofline)
            continue;
        kb_roofline_explain(&r->roofline, why, (int)sizeof why);
        if (!why[0])
            continue;
        fputs(n++ ? "- `" : "\nFlagged results, and the figure each was held against:\n\n- `", out);
        kb_report_markdown_cell(out, r->name);
        fputs("`: ", out);
        kb_report_markdown_cell(out, why);
        fputc('\n', out);
    }
}

static kb_status speedups(const kb_results *results, FILE *out) {
    kb_speedup_report report;
    kb_status st = kb_speedup_report_make(results, &report);
    if (st == KB_OK)
        kb_speedup_print_markdown(&report, out);
    kb_speedup_report_free(&report);
    return st;
}

kb_status kb_report_markdown(const kb_results *results, FILE *out) {
    int failed = kb_results_failed(results);
    fprintf(out, "# kbench results\n\n%d case%s", results->ncases, kb_plural(results->ncases));
    if (failed)
        fprintf(out, ", **%d failed**", failed);
    fputs("; times are the median per call with its 95% confidence interval.\n\n", out);
    context(&results->context, out);
    fputs(
        "\n| case | time/call | 95% CI | MAD | GB/s | GFLOP/s | % of bound | bound | % of probe | "
        "samples | notes |\n"
        "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---|\n",
        out);
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        fputs("| `", out);
        kb_report_markdown_cell(out, r->name);
        if (r->failed) {
            fputs("` | | | | | | | | | | **failed**: ", out);
            kb_report_markdown_cell(out, r->error ? r->error : "");
            fputs(" |\n", out);
            continue;
        }
        char time[32], low[32], high[32], gb[32], gflop[32], notes[96], percent[16], where[16],
            of_probe[16];
        kb_format_duration(time, sizeof time, r->stats.median);
        kb_format_duration(low, sizeof low, r->stats.ci_low);
        kb_format_duration(high, sizeof high, r->stats.ci_high);
        kb_format_3(gb, sizeof gb, r->gb_per_s);
        kb_format_3(gflop, sizeof gflop, r->gflop_per_s);
        kb_report_notes(r, notes, sizeof notes);
        kb_report_roofline(r, percent, sizeof percent, where, sizeof where);
        kb_report_of_probe(r, of_probe, sizeof of_probe);
        fprintf(out, "` | %s | %s to %s | %.1f%% | %s | %s | %s | %s | %s | %lld x %lld | %s |\n",
                time, low, high, kb_report_mad_percent(&r->stats), gb, gflop, percent, where,
                of_probe, (long long)r->nsamples, (long long)r->calls_per_sample, notes);
    }
    explanations(results, out);
    return speedups(results, out);
}

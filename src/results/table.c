/* Results as a table for the terminal. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/report.h"
#include "results/speedup.h"
#include "util/internal.h"
#include "util/strings.h"

double kb_report_ci_percent(const kb_bench_stats *s) {
    return s->median > 0 ? 50 * (s->ci_high - s->ci_low) / s->median : 0;
}

double kb_report_mad_percent(const kb_bench_stats *s) {
    return s->median > 0 ? 100 * s->mad / s->median : 0;
}

void kb_report_roofline(const kb_bench_result *r, char *percent, size_t percent_size, char *where,
                        size_t where_size) {
    const kb_roofline *f = &r->roofline;
    snprintf(percent, percent_size, "-");
    snprintf(where, where_size, "-");
    if (!r->has_roofline)
        return;
    /* Seven columns at most, however far above its bound an impossible result is. */
    double pct = f->percent_of_bound;
    if (f->bound_known)
        snprintf(percent, percent_size,
                 pct < 999.95     ? "%.1f%%"
                 : pct < 999999.5 ? "%.0f%%"
                                  : "%.0e%%",
                 pct);
    snprintf(where, where_size, "%s %s", kb_mem_level_name(f->level),
             !f->bound_known   ? "?"
             : f->memory_bound ? "mem"
                               : "flop");
}

bool kb_report_of_probe(const kb_bench_result *r, char *buf, size_t size) {
    double pct = r->has_roofline ? r->roofline.percent_of_probe : NAN;
    bool known = isfinite(pct) && pct > 0;
    if (known)
        snprintf(buf, size, pct < 999.95 ? "%.1f%%" : "%.0e%%", pct);
    else
        snprintf(buf, size, "-");
    return known;
}

void kb_report_notes(const kb_bench_result *r, char *buf, size_t size) {
    int64_t outliers = r->stats.outliers_low + r->stats.outliers_high;
    buf[0] = '\0';
    if (r->has_roofline)
        kb_roofline_flags_describe(r->roofline.flags, buf, (int)size);
    if (r->stats.unstable) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%sunstable", n ? ", " : "");
    }
    if (r->contended) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%scontended", n ? ", " : "");
    }
    if (outliers > 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%lld outlier%s", n ? ", " : "", (long long)outliers,
                 kb_plural(outliers));
    }
}

void kb_results_table_header(FILE *out, int name_width) {
    fprintf(out, "%-*s %10s %7s %6s %8s %8s %7s %-9s %14s  %s\n", name_width, "case", "time/call",
            "+/-CI", "MAD", "GB/s", "GFLOP/s", "%bound", "bound", "samples", "notes");
}

void kb_results_table_row(FILE *out, const kb_bench_result *r, int name_width) {
    if (r->failed) {
        fprintf(out, "%-*s FAILED: %s\n", name_width, r->name, r->error ? r->error : "");
        return;
    }
    char time[32], gb[32], gflop[32], samples[48], notes[96], percent[16], where[16];
    kb_format_duration(time, sizeof time, r->stats.median);
    kb_format_3(gb, sizeof gb, r->gb_per_s);
    kb_format_3(gflop, sizeof gflop, r->gflop_per_s);
    snprintf(samples, sizeof samples, "%lldx%lld", (long long)r->nsamples,
             (long long)r->calls_per_sample);
    kb_report_notes(r, notes, sizeof notes);
    kb_report_roofline(r, percent, sizeof percent, where, sizeof where);
    fprintf(out, "%-*s %10s %6.1f%% %5.1f%% %8s %8s %7s %-9s %14s  %s\n", name_width, r->name, time,
            kb_report_ci_percent(&r->stats), kb_report_mad_percent(&r->stats), gb, gflop, percent,
            where, samples, notes);
}

kb_status kb_report_speedup_table(const kb_results *results, FILE *out) {
    kb_speedup_report report;
    kb_status st = kb_speedup_report_make(results, &report);
    if (st == KB_OK)
        kb_speedup_print_table(&report, out);
    kb_speedup_report_free(&report);
    return st;
}

kb_status kb_report_table(const kb_results *results, FILE *out) {
    int width = 4;
    for (int i = 0; i < results->ncases; i++) {
        int n = (int)strlen(results->cases[i].name);
        if (n > width)
            width = n;
    }
    kb_results_table_header(out, width);
    for (int i = 0; i < results->ncases; i++)
        kb_results_table_row(out, &results->cases[i], width);
    return kb_report_speedup_table(results, out);
}

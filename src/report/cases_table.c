/* The report's table of cases: one row per result, sortable and filterable by the page's
 * script; each numeric cell carries its value in data-v for sorting. */
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "results/internal.h"
#include "util/internal.h"

/* A numeric cell: the value for sorting, the text for people. */
static void cell(FILE *out, double v, const char *text) {
    fprintf(out, "<td data-v=\"%.6g\">%s</td>", isfinite(v) ? v : 0, text);
}

static void rate(FILE *out, double v, double low, double high) {
    char a[32], b[32], c[32], text[128];
    kb_format_3(a, sizeof a, v);
    kb_format_3(b, sizeof b, low);
    kb_format_3(c, sizeof c, high);
    if (v > 0)
        snprintf(text, sizeof text, "%s <small>[%s, %s]</small>", a, b, c);
    else
        snprintf(text, sizeof text, "-");
    cell(out, v, text);
}

void kb_report_cases(FILE *out, const kb_results *run, const char *prefix,
                     const kb_speedup_report *speedups) {
    fprintf(out,
            "<h3>Cases</h3>\n<p><label>Filter: <input type=\"search\" class=\"filter\" "
            "data-table=\"%s-cases\" placeholder=\"part of a case name\"></label></p>\n"
            "<div class=\"long\"><table class=\"cases sortable\" id=\"%s-cases\">\n<thead><tr>"
            "<th data-type=\"text\">case</th><th data-type=\"num\">median</th>"
            "<th data-type=\"num\">95%% CI</th><th data-type=\"num\">GB/s</th>"
            "<th data-type=\"num\">GFLOP/s</th><th data-type=\"num\">%% of bound</th>"
            "<th data-type=\"text\">flags</th></tr></thead>\n<tbody>\n",
            prefix, prefix);
    for (int i = 0; i < run->ncases; i++) {
        const kb_bench_result *r = &run->cases[i];
        kb_html_case_row(out, r->name);
        if (r->failed) {
            fputs("<td data-v=\"0\" colspan=\"5\" class=\"bad\">failed: ", out);
            kb_html_text(out, r->error ? r->error : "");
            fputs("</td><td>failed</td></tr>\n", out);
            continue;
        }
        char a[32], b[32], text[160];
        kb_format_duration(a, sizeof a, r->stats.median);
        cell(out, r->stats.median, a);
        kb_format_duration(a, sizeof a, r->stats.ci_low);
        kb_format_duration(b, sizeof b, r->stats.ci_high);
        snprintf(text, sizeof text, "%s to %s (&plusmn;%.1f%%)", a, b,
                 kb_report_ci_percent(&r->stats));
        cell(out, kb_report_ci_percent(&r->stats), text);
        rate(out, r->gb_per_s, r->gb_per_s_low, r->gb_per_s_high);
        rate(out, r->gflop_per_s, r->gflop_per_s_low, r->gflop_per_s_high);
        char percent[32], where[32];
        kb_report_roofline(r, percent, sizeof percent, where, sizeof where);
        char of_probe[16];
        if (kb_report_of_probe(r, of_probe, sizeof of_probe))
            snprintf(text, sizeof text, "%s <small>%s; %s of the run's probe</small>", percent,
                     where, of_probe);
        else
            snprintf(text, sizeof text, "%s <small>%s</small>", percent, where);
        cell(out, r->has_roofline && r->roofline.bound_known ? r->roofline.percent_of_bound : -1,
             text);
        char notes[256];
        kb_report_notes(r, notes, sizeof notes);
        const kb_eager_speedup *e = kb_speedup_eager_of(speedups, r);
        if (e && e->below_traffic) {
            size_t n = strlen(notes);
            snprintf(notes + n, sizeof notes - n, "%sbelow-traffic", n ? ", " : "");
        }
        fputs("<td>", out);
        kb_html_text(out, notes);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
}

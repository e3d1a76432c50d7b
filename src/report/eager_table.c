/* The report's fusion view: each fused case's speedup over its eager twin, with its 95%
 * interval, the ratio of their traffic and the below-traffic flag, from the speedup report's
 * eager rows (results/speedup.h), as a sortable, filterable table. */
#include <math.h>

#include "report/html.h"
#include "util/internal.h"

/* A numeric cell: the value for sorting, the text for people. */
static void cell(FILE *out, double v, const char *text) {
    fprintf(out, "<td data-v=\"%.6g\">%s</td>", isfinite(v) ? v : 0, text);
}

void kb_report_eager(FILE *out, const kb_speedup_report *speedups, const char *prefix) {
    if (speedups->neager == 0)
        return;
    fprintf(out,
            "<h3>Speedup vs eager</h3>\n<p class=\"note\">Each fused case against its eager twin "
            "(/eval=eager: the same expression through the eager evaluator, timed in the same "
            "rounds): the speedup median(eager) / median(fused) with its 95%% bootstrap "
            "interval, and the traffic ratio, eager bytes / fused bytes (each plan's count). "
            "below-traffic: the speedup is below %.1f &times; the traffic ratio.</p>\n"
            "<p><label>Filter: <input type=\"search\" class=\"filter\" data-table=\"%s-eager\" "
            "placeholder=\"part of a case name\"></label></p>\n"
            "<div class=\"long\"><table class=\"cases sortable\" id=\"%s-eager\">\n<thead><tr>"
            "<th data-type=\"text\">case</th><th data-type=\"num\">median</th>"
            "<th data-type=\"num\">eager</th><th data-type=\"num\">speedup vs eager</th>"
            "<th data-type=\"num\">traffic ratio</th><th data-type=\"text\">flags</th></tr>"
            "</thead>\n<tbody>\n",
            KB_EAGER_TRAFFIC_SHARE, prefix, prefix);
    for (int i = 0; i < speedups->neager; i++) {
        const kb_eager_speedup *e = &speedups->eager[i];
        char a[32], b[32], c[32], text[128];
        kb_html_case_row(out, e->fused->name);
        kb_format_duration(a, sizeof a, e->fused->stats.median);
        cell(out, e->fused->stats.median, a);
        kb_format_duration(a, sizeof a, e->eager->stats.median);
        cell(out, e->eager->stats.median, a);
        kb_format_3(a, sizeof a, e->over_eager.ratio);
        kb_format_3(b, sizeof b, e->over_eager.low);
        kb_format_3(c, sizeof c, e->over_eager.high);
        snprintf(text, sizeof text, "%s&times; <small>[%s, %s]</small>", a, b, c);
        cell(out, e->over_eager.ratio, text);
        snprintf(text, sizeof text, "-");
        if (isfinite(e->traffic_ratio)) {
            kb_format_3(a, sizeof a, e->traffic_ratio);
            snprintf(text, sizeof text, "%s&times;", a);
        }
        cell(out, e->traffic_ratio, text);
        fprintf(out, "<td%s>%s</td></tr>\n", e->below_traffic ? " class=\"bad\"" : "",
                e->below_traffic ? "below-traffic" : "");
    }
    fputs("</tbody></table></div>\n", out);
}

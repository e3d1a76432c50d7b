/* The report's comparison view: kbench compare's verdicts as a chart of each paired case's
 * NEW/BASE time ratio with its 95% interval, coloured by verdict, then its table. */
#include <math.h>

#include "report/html.h"
#include "results/internal.h"
#include "util/internal.h"

static bool paired(const kb_compare_case *c) {
    return c->ratio > 0 && c->ratio_low > 0 && c->ratio_high > 0;
}

/* The ratio, its interval and the p-value as kbench compare writes them. */
static void texts(const kb_compare_case *c, char ratio[32], char ci[64], char p[32]) {
    kb_compare_ratio_text(c, ratio, 32);
    kb_compare_ci_text(c, ci, 64);
    kb_compare_p_text(c, p, 32);
}

static void chart(FILE *out, const kb_comparison *cmp) {
    int n = 0;
    double lo = 1, hi = 1;
    for (int i = 0; i < cmp->ncases; i++) {
        const kb_compare_case *c = &cmp->cases[i];
        if (!paired(c))
            continue;
        n++;
        lo = fmin(lo, c->ratio_low);
        hi = fmax(hi, c->ratio_high);
    }
    if (n == 0)
        return;
    double width = fmax(600, fmin(1400, 80 + 6.0 * n));
    kb_svg_plot p = {.x = {0, n, false, 70, width - 20},
                     .y = {lo / 1.1, hi * 1.1, true, 300, 20},
                     .width = width,
                     .height = 340};
    kb_svg_round_range(&p.y.lo, &p.y.hi, true);
    char desc[192];
    snprintf(desc, sizeof desc,
             "%d paired cases in BASE's order, each at its ratio of medians NEW/BASE (above 1 "
             "is slower) with its 95%% bootstrap interval, coloured by verdict",
             n);
    kb_svg_open(out, &p, "compare-chart", "Ratios NEW / BASE", desc, "case", 0,
                "time ratio NEW / BASE", 1);
    double one = kb_svg_map(&p.y, 1);
    double band_hi = kb_svg_map(&p.y, 1 + cmp->threshold);
    double band_lo = kb_svg_map(&p.y, 1 / (1 + cmp->threshold));
    fprintf(out,
            "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
            "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
            p.x.from, band_hi, p.x.to - p.x.from, band_lo - band_hi, p.x.from, one, p.x.to, one);
    int k = 0;
    for (int i = 0; i < cmp->ncases; i++) {
        const kb_compare_case *c = &cmp->cases[i];
        if (!paired(c))
            continue;
        double x = kb_svg_map(&p.x, k + 0.5);
        const char *colour = kb_verdict_colour(c->verdict);
        fprintf(out,
                "<line class=\"whisker\" style=\"stroke:%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                "y2=\"%.1f\"/>",
                colour, x, kb_svg_map(&p.y, c->ratio_low), x, kb_svg_map(&p.y, c->ratio_high));
        char ratio[32], ci[64], pv[32], text[192];
        texts(c, ratio, ci, pv);
        snprintf(text, sizeof text, "%s: ratio %s (%s), p %s", kb_verdict_name(c->verdict), ratio,
                 ci, pv);
        kb_svg_point(out, x, kb_svg_map(&p.y, c->ratio), colour, c->name, text);
        k++;
    }
    fputs("</svg>\n", out);
}

static void table(FILE *out, const kb_comparison *cmp) {
    fputs("<p><label>Filter: <input type=\"search\" class=\"filter\" data-table=\"compare-cases\" "
          "placeholder=\"part of a case name\"></label></p>\n"
          "<div class=\"long\"><table class=\"cases sortable\" id=\"compare-cases\"><thead><tr>"
          "<th data-type=\"text\">case</th><th data-type=\"text\">verdict</th>"
          "<th data-type=\"num\">BASE median</th><th data-type=\"num\">NEW median</th>"
          "<th data-type=\"num\">ratio</th><th data-type=\"num\">95% CI</th>"
          "<th data-type=\"num\">p</th></tr></thead>\n<tbody>\n",
          out);
    for (int i = 0; i < cmp->ncases; i++) {
        const kb_compare_case *c = &cmp->cases[i];
        char base[32] = "-", head[32] = "-", ratio[32], ci[64], pv[32];
        if (c->base.n > 0)
            kb_format_duration(base, sizeof base, c->base.median);
        if (c->head.n > 0)
            kb_format_duration(head, sizeof head, c->head.median);
        texts(c, ratio, ci, pv);
        kb_html_case_row(out, c->name);
        fprintf(out,
                "<td><span class=\"swatch\" style=\"background:%s\"></span>%s</td>"
                "<td data-v=\"%.6g\">%s</td><td data-v=\"%.6g\">%s</td><td data-v=\"%.6g\">%s</td>"
                "<td data-v=\"%.6g\">%s</td><td data-v=\"%.6g\">%s</td></tr>\n",
                kb_verdict_colour(c->verdict), kb_verdict_name(c->verdict), c->base.median, base,
                c->head.median, head, c->ratio, ratio, c->ratio_high - c->ratio_low, ci,
                isfinite(c->p) ? c->p : 1, pv);
    }
    fputs("</tbody></table></div>\n", out);
}

void kb_report_comparison(FILE *out, const kb_comparison *cmp) {
    char counts[256], geomean[32];
    kb_compare_counts_text(cmp->counts, counts, sizeof counts);
    kb_format_3(geomean, sizeof geomean, cmp->overall.geomean);
    fputs("<section id=\"compare\"><h2>Compare: ", out);
    kb_html_text(out, cmp->base_label);
    fputs(" &rarr; ", out);
    kb_html_text(out, cmp->head_label);
    fprintf(out,
            "</h2>\n<p>%s; geometric mean ratio %s over %d paired cases (threshold %.3g, alpha "
            "%.3g).</p>\n",
            counts, geomean, cmp->overall.ncases, cmp->threshold, cmp->alpha);
    for (int head = 0; head < 2; head++) {
        char note[512];
        if (kb_comparison_load_note(cmp, head, note, sizeof note)) {
            fputs("<p class=\"bad\">", out);
            kb_html_text(out, note);
            fputs("</p>\n", out);
        }
    }
    fputs("<ul class=\"legend\">", out);
    for (int v = 0; v < KB_VERDICT_COUNT; v++)
        fprintf(out, "<li><span class=\"swatch\" style=\"background:%s\"></span>%s</li>",
                kb_verdict_colour((kb_verdict)v), kb_verdict_name((kb_verdict)v));
    fputs("</ul>\n<p class=\"note\">The shaded band is the threshold; cases only in one file or "
          "failed have no ratio and are in the table only.</p>\n",
          out);
    chart(out, cmp);
    table(out, cmp);
    fputs("</section>\n", out);
}

/* The report's dispatch and baselines view: for each group (op and shape), each of kbench's
 * implementations (scalar, each SIMD level, auto, at each thread count) as a bar of its
 * speedup over the group's fastest baseline with its 95% interval, from the speedup report
 * (results/speedup.h), and that report's geometric means. */
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "results/internal.h"
#include "util/internal.h"

#define LEFT 190.0
#define RIGHT 720.0
#define BAR 11.0

static void geometric_means(FILE *out, const kb_speedup_report *report) {
    json_t *all = kb_speedup_json(report);
    json_t *means = json_object_get(all, "geometric_means");
    fputs("<table class=\"means\"><thead><tr><th>implementation</th><th>over</th><th>op</th>"
          "<th>geometric mean speedup</th><th>cases</th></tr></thead><tbody>\n",
          out);
    size_t i;
    json_t *m;
    json_array_foreach(means, i, m) {
        const char *op = json_string_value(json_object_get(m, "op"));
        char value[32];
        kb_format_3(value, sizeof value, json_real_value(json_object_get(m, "geometric_mean")));
        fputs("<tr><td>", out);
        kb_html_text(out, json_string_value(json_object_get(m, "implementation")));
        fputs("</td><td>", out);
        kb_html_text(out, json_string_value(json_object_get(m, "baseline")));
        fputs("</td><td>", out);
        kb_html_text(out, op ? op : "all");
        fprintf(out, "</td><td>%s&times;</td><td>%d</td></tr>\n", value,
                (int)json_integer_value(json_object_get(m, "cases")));
    }
    fputs("</tbody></table>\n", out);
    json_decref(all);
}

kb_status kb_report_speedups(FILE *out, const kb_results *run, const char *prefix) {
    fputs("<h3>Dispatch and baselines</h3>\n", out);
    kb_speedup_report report;
    kb_status st = kb_speedup_report_make(run, &report);
    if (st != KB_OK)
        return st;
    int bars = 0, groups = 0;
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < report.count; i++) {
        const kb_speedup *s = &report.rows[i];
        if (!s->first)
            continue;
        bars++;
        groups += i == 0 || strcmp(report.rows[i - 1].own->group, s->own->group) != 0;
        lo = fmin(lo, fmin(s->over_best.low, s->over_best.ratio));
        hi = fmax(hi, fmax(s->over_best.high, s->over_best.ratio));
    }
    if (bars == 0) {
        fputs("<p class=\"note\">No baselines in this run (kbench run --baseline numpy ...): "
              "nothing to compare kbench's implementations with.</p>\n",
              out);
        kb_speedup_report_free(&report);
        return KB_OK;
    }
    fprintf(out,
            "<p class=\"note\">Each bar is an implementation's speedup over the fastest "
            "baseline of its group (median(baseline) / median(kbench), %s; right of the line at "
            "1 is faster), the whisker its 95%% bootstrap interval; kbench through its Python "
            "module (baseline=python) is held against the other Python libraries (%s). Hover a "
            "bar for the baseline and, for simd=auto, its speedup over scalar.</p>\n",
            report.c_comparison, KB_BASELINE_COMPARISON_PYTHON);
    kb_svg_plot p = {.x = {fmin(lo, 1) / 1.5, fmax(hi, 1) * 1.5, true, LEFT, RIGHT},
                     .y = {0, 1, false, 30 + groups * 16 + bars * BAR, 30},
                     .width = RIGHT + 20,
                     .height = 70 + groups * 16 + bars * BAR};
    kb_svg_round_range(&p.x.lo, &p.x.hi, true);
    char id[64], desc[160];
    snprintf(id, sizeof id, "%s-speedups", prefix);
    snprintf(desc, sizeof desc,
             "%d implementations in %d groups, each a bar of its speedup over the fastest "
             "baseline of its group, log scale",
             bars, groups);
    kb_svg_open(out, &p, id, "Speedup over the fastest baseline", desc,
                "speedup over the fastest baseline (log)", 1, "", 0);
    double one = kb_svg_map(&p.x, 1), y = p.y.to;
    fprintf(out, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", one,
            p.y.to, one, p.y.from);
    for (int i = 0; i < report.count; i++) {
        const kb_speedup *s = &report.rows[i];
        if (!s->first)
            continue;
        if (i == 0 || strcmp(report.rows[i - 1].own->group, s->own->group) != 0) {
            y += 16;
            fprintf(out, "<text class=\"group\" x=\"4\" y=\"%.1f\">", y - 4);
            kb_html_text(out, s->own->group);
            fputs("</text>\n", out);
        }
        const kb_ratio_ci *r = &s->over_best;
        double x = kb_svg_map(&p.x, r->ratio);
        char ratio[32], low[32], high[32], text[160] = "";
        kb_format_3(ratio, sizeof ratio, r->ratio);
        kb_format_3(low, sizeof low, r->low);
        kb_format_3(high, sizeof high, r->high);
        if (s->scalar) {
            char sc[32];
            kb_format_3(sc, sizeof sc, s->over_scalar.ratio);
            snprintf(text, sizeof text, "; %s&times; over scalar", sc);
        }
        fprintf(out, "<text class=\"impl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 4,
                y + BAR - 3);
        kb_html_text(out, kb_speedup_impl(s->own));
        fputs("</text><g class=\"bar\" data-case=\"", out);
        kb_html_text(out, s->own->name);
        fprintf(out,
                "\"><rect x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/><line class=\"whisker\" "
                "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><title>",
                fmin(one, x), y + 1, fabs(x - one), BAR - 2,
                r->ratio >= 1 ? kb_palette_colour(0) : kb_palette_colour(1),
                kb_svg_map(&p.x, r->low), y + BAR / 2, kb_svg_map(&p.x, r->high), y + BAR / 2);
        kb_html_text(out, s->own->name);
        fprintf(out, "\n%s&times; [%s, %s] over ", ratio, low, high);
        kb_html_text(out, s->best->baseline);
        fprintf(out, "%s</title></g>\n", text);
        y += BAR;
    }
    fputs("</svg>\n<h4>Geometric means</h4>\n", out);
    geometric_means(out, &report);
    kb_speedup_report_free(&report);
    return KB_OK;
}

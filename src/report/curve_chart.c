/* The report's chart of the load bandwidth curve from the run's peaks: GB/s against working
 * set, one line per thread count (docs/roofline.md explains the curve). */
#include <math.h>

#include "report/html.h"
#include "util/internal.h"

void kb_report_curve_chart(FILE *out, const kb_results *run, const char *prefix) {
    const kb_bench_context *c = &run->context;
    double xlo = INFINITY, xhi = 0, yhi = 0;
    int n = 0;
    for (int s = 0; c->has_peaks && s < KB_PEAKS_SET_COUNT; s++)
        for (int i = 0; i < c->peaks.sets[s].curves[KB_BW_LOAD].count; i++) {
            const kb_bw_curve_point *pt = &c->peaks.sets[s].curves[KB_BW_LOAD].points[i];
            double ws = (double)pt->working_set_bytes, bw = pt->bytes_per_second.best;
            if (!(bw > 0) || !(ws > 0))
                continue;
            n++;
            xlo = fmin(xlo, ws);
            xhi = fmax(xhi, ws);
            yhi = fmax(yhi, bw);
        }
    fputs("<h3>Load bandwidth curve</h3>\n", out);
    if (n == 0) {
        fputs("<p class=\"note\">The run's peaks have no bandwidth curve.</p>\n", out);
        return;
    }
    kb_svg_plot p = {.x = {xlo, xhi, true, 70, 700},
                     .y = {0, yhi * 1.05, false, 300, 20},
                     .width = 860,
                     .height = 340};
    kb_svg_round_range(&p.x.lo, &p.x.hi, true);
    kb_svg_round_range(&p.y.lo, &p.y.hi, false);
    char id[64];
    snprintf(id, sizeof id, "%s-curve", prefix);
    kb_svg_open(out, &p, id, "Load bandwidth curve",
                "The load kernel's measured bandwidth at each working set, one line per thread "
                "count; the drops are the cache levels' capacities",
                "working set (MB, all threads)", 1e-6, "GB/s", 1e-9);
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        const kb_peak_set *set = &c->peaks.sets[s];
        if (set->curves[KB_BW_LOAD].count == 0 ||
            (s > 0 && set->threads == c->peaks.sets[0].threads))
            continue;
        const char *colour = kb_palette_colour(s);
        fprintf(out, "<polyline class=\"curve\" stroke=\"%s\" points=\"", colour);
        for (int i = 0; i < set->curves[KB_BW_LOAD].count; i++) {
            const kb_bw_curve_point *pt = &set->curves[KB_BW_LOAD].points[i];
            if (pt->bytes_per_second.best > 0)
                fprintf(out, "%.1f,%.1f ", kb_svg_map(&p.x, (double)pt->working_set_bytes),
                        kb_svg_map(&p.y, pt->bytes_per_second.best));
        }
        fputs("\"/>\n", out);
        for (int i = 0; i < set->curves[KB_BW_LOAD].count; i++) {
            const kb_bw_curve_point *pt = &set->curves[KB_BW_LOAD].points[i];
            if (!(pt->bytes_per_second.best > 0))
                continue;
            char ws[32], gb[32], name[64], text[96];
            kb_format_bytes(ws, sizeof ws, pt->working_set_bytes);
            kb_format_3(gb, sizeof gb, pt->bytes_per_second.best / 1e9);
            snprintf(name, sizeof name, "%s, %d thread%s", ws, set->threads,
                     set->threads == 1 ? "" : "s");
            snprintf(text, sizeof text, "%s GB/s", gb);
            fprintf(out, "<circle class=\"cpt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">",
                    kb_svg_map(&p.x, (double)pt->working_set_bytes),
                    kb_svg_map(&p.y, pt->bytes_per_second.best), colour);
            fprintf(out, "<title>%s: %s</title></circle>\n", name, text);
        }
        fprintf(out,
                "<text class=\"roof\" x=\"710\" y=\"%d\" style=\"fill:%s\">%d thread%s</text>\n",
                40 + 16 * s, colour, set->threads, set->threads == 1 ? "" : "s");
    }
    fputs("</svg>\n", out);
}

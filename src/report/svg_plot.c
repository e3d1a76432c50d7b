/* Log and linear axes of the report's SVG charts: scaling, ticks, frame and labels. */
#include <math.h>

#include "report/html.h"
#include "util/internal.h"

void kb_svg_round_range(double *lo, double *hi, bool log) {
    if (log) {
        *lo = pow(10, floor(log10(*lo)));
        *hi = pow(10, ceil(log10(*hi)));
        if (*hi <= *lo)
            *hi = *lo * 10;
    } else {
        double step = pow(10, floor(log10(*hi - *lo > 0 ? *hi - *lo : fabs(*hi) + 1)));
        *lo = floor(*lo / step) * step;
        *hi = ceil(*hi / step) * step;
        if (*hi <= *lo)
            *hi = *lo + step;
    }
}

double kb_svg_map(const kb_svg_axis *a, double v) {
    double t = a->log ? (log10(v > 0 ? v : a->lo) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return a->from + t * (a->to - a->from);
}

/* Ticks at each decade (log) or at ten steps (linear); none for scale 0 (an axis of
 * categories). */
static void ticks(FILE *out, const kb_svg_plot *p, const kb_svg_axis *a, bool vertical,
                  double scale) {
    if (scale == 0)
        return;
    double first = a->log ? log10(a->lo) : 0, last = a->log ? log10(a->hi) : 10;
    for (double k = first; k <= last + 1e-9; k++) {
        double v = a->log ? pow(10, k) : a->lo + (a->hi - a->lo) * k / 10;
        double at = kb_svg_map(a, v);
        char label[32];
        kb_format_3(label, sizeof label, v * scale);
        if (v * scale == 0)
            label[0] = '0', label[1] = '\0';
        if (vertical)
            fprintf(out,
                    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    p->x.from, at, p->x.to, at, p->x.from - 4, at + 4, label);
        else
            fprintf(out,
                    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    at, p->y.from, at, p->y.to, at, p->y.from + 14, label);
    }
}

void kb_svg_open(FILE *out, const kb_svg_plot *p, const char *id, const char *title,
                 const char *desc, const char *x_name, double x_scale, const char *y_name,
                 double y_scale) {
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-labelledby=\"%s-t "
            "%s-d\"><title id=\"%s-t\">",
            id, p->width, p->height, p->width, p->height, id, id, id);
    kb_html_text(out, title);
    fprintf(out, "</title><desc id=\"%s-d\">", id);
    kb_html_text(out, desc);
    fputs("</desc>\n", out);
    ticks(out, p, &p->x, false, x_scale);
    ticks(out, p, &p->y, true, y_scale);
    fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            p->x.from, p->y.to, p->x.to - p->x.from, p->y.from - p->y.to);
    fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (p->x.from + p->x.to) / 2, p->y.from + 32);
    kb_html_text(out, x_name);
    fprintf(out,
            "</text><text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            (p->y.from + p->y.to) / 2);
    kb_html_text(out, y_name);
    fputs("</text>\n", out);
}

void kb_svg_point(FILE *out, double x, double y, const char *colour, const char *name,
                  const char *details) {
    fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" data-case=\"", x,
            y, colour);
    kb_html_text(out, name);
    fputs("\"><title>", out);
    kb_html_text(out, name);
    fputs("\n", out);
    kb_html_text(out, details);
    fputs("</title></circle>\n", out);
}

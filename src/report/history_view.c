/* The report's history view (kbench report --db): every series of a history store as a small
 * chart, its median run by run with the 95% CI as a band and the change points of kbench
 * detect's detector marked, the regressed series first; and a sortable, filterable table of
 * the series. The charts are complete SVG without JavaScript; the page's script adds a hover
 * box naming the run, its date and commit, read from the data the chart carries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "report/html.h"
#include "util/internal.h"

/* A point as the view keeps it: its run (an index into the view's runs) and its values. */
typedef struct hpoint {
    int64_t run_id;
    size_t run;
    double median, low, high;
} hpoint;

typedef struct hseries {
    char *name, *machine, *machine_description;
    hpoint *points;
    size_t npoints;
    kb_change_points cp;
    int kind;      /* 0 regressed (its last change point), 1 improved, 2 no change point */
    double change; /* of its last change point */
} hseries;

typedef struct hrun {
    int64_t id, time;
    char *commit;
} hrun;

typedef struct view {
    hseries *series;
    size_t nseries;
    hrun *runs;
    size_t nruns;
    int64_t series_cap, runs_cap;
} view;

/* One series of the store with its points and change points, kept; its runs noted. */
static kb_status take(const kb_history_series *from, const kb_history_point *points, size_t count,
                      void *context) {
    view *v = context;
    hseries *series =
        kb_reserve(v->series, &v->series_cap, (int64_t)v->nseries + 1, sizeof *v->series);
    if (series)
        v->series = series;
    hrun *runs = kb_reserve(v->runs, &v->runs_cap, (int64_t)(v->nruns + count), sizeof *v->runs);
    if (runs)
        v->runs = runs;
    if (!series || !runs)
        return kb_fail(KB_ENOMEM, "out of memory for the history view");
    kb_status st;
    hseries *s = &v->series[v->nseries++];
    *s = (hseries){.name = kb_strdup(from->case_name),
                   .machine = kb_strdup(from->machine),
                   .machine_description = kb_strdup(from->machine_description),
                   .points = calloc(count + 1, sizeof *s->points),
                   .npoints = count,
                   .kind = 2};
    if (!s->name || !s->machine || !s->machine_description || !s->points)
        return kb_fail(KB_ENOMEM, "out of memory for the history view");
    for (size_t i = 0; i < count; i++) {
        s->points[i] = (hpoint){points[i].run_id, 0, points[i].median_ns, points[i].ci_low_ns,
                                points[i].ci_high_ns};
        hrun *r = &v->runs[v->nruns++];
        *r = (hrun){points[i].run_id, points[i].time, NULL};
        if (points[i].commit && !(r->commit = kb_strdup(points[i].commit)))
            return kb_fail(KB_ENOMEM, "out of memory for the history view");
    }
    if ((st = kb_history_change_points(points, count, &s->cp)) != KB_OK)
        return kb_fail_prefix(st, from->case_name);
    if (s->cp.count > 0) {
        const kb_change_point *last = &s->cp.points[s->cp.count - 1];
        s->kind = last->regression ? 0 : 1;
        s->change = last->change;
    }
    return KB_OK;
}

static int by_run_id(const void *a, const void *b) {
    int64_t x = ((const hrun *)a)->id, y = ((const hrun *)b)->id;
    return (x > y) - (x < y);
}

/* Regressed first, the largest change first; then improved, the largest first; then the
 * rest; by name within each. */
static int by_interest(const void *a, const void *b) {
    const hseries *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    double dx = fabs(x->change), dy = fabs(y->change);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->machine, y->machine);
}

/* The runs once each, by id, and each point's index among them. */
static void index_runs(view *v) {
    qsort(v->runs, v->nruns, sizeof *v->runs, by_run_id);
    size_t n = 0;
    for (size_t i = 0; i < v->nruns; i++) {
        if (n > 0 && v->runs[n - 1].id == v->runs[i].id) {
            free(v->runs[i].commit);
            continue;
        }
        v->runs[n++] = v->runs[i];
    }
    v->nruns = n;
    for (size_t i = 0; i < v->nseries; i++)
        for (size_t k = 0; k < v->series[i].npoints; k++) {
            hrun key = {.id = v->series[i].points[k].run_id};
            const hrun *r = bsearch(&key, v->runs, v->nruns, sizeof key, by_run_id);
            v->series[i].points[k].run = r ? (size_t)(r - v->runs) : 0;
        }
}

static void view_free(view *v) {
    for (size_t i = 0; i < v->nseries; i++) {
        free(v->series[i].name);
        free(v->series[i].machine);
        free(v->series[i].machine_description);
        free(v->series[i].points);
        kb_change_points_free(&v->series[i].cp);
    }
    for (size_t i = 0; i < v->nruns; i++)
        free(v->runs[i].commit);
    free(v->series);
    free(v->runs);
}

/* A JSON string (of a commit) safe inside <script>: '<', '>' and '&' as \u escapes. */
static void script_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* The runs the charts' data refer to: [id, "time", "commit" or null] each. */
static void runs_data(FILE *out, const view *v) {
    fputs("<script type=\"application/json\" id=\"history-runs\">[", out);
    for (size_t i = 0; i < v->nruns; i++) {
        char when[32];
        kb_format_utc(when, sizeof when, v->runs[i].time);
        fprintf(out, "%s[%lld,\"%s\",", i ? "," : "", (long long)v->runs[i].id, when);
        if (v->runs[i].commit)
            script_string(out, v->runs[i].commit);
        else
            fputs("null", out);
        fputc(']', out);
    }
    fputs("]</script>\n", out);
}

/* "+5.2% at abc1234 (run 12, 2026-01-05)" for change point k of s. */
static void change_text(const view *v, const hseries *s, int64_t k, char *buf, size_t size) {
    const kb_change_point *c = &s->cp.points[k];
    const hrun *r = &v->runs[s->points[c->index].run];
    char when[32];
    kb_format_utc(when, sizeof when, r->time);
    when[10] = '\0';
    snprintf(buf, size, "%+.1f%% at %.12s (run %lld, %s)", 100 * c->change,
             r->commit ? r->commit : "no commit", (long long)r->id, when);
}

#define CHART_W 380.0
#define CHART_H 150.0
#define LEFT 62.0
#define RIGHT 8.0
#define TOP 22.0
#define BOTTOM 22.0

/* The series' chart: the CI band, the median line, the change points, a frame with the ends
 * of both axes; data-* attributes carry each point's run and values for the hover box. */
static void chart(FILE *out, const view *v, const hseries *s, size_t index) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < s->npoints; k++) {
        lo = fmin(lo, fmin(s->points[k].low, s->points[k].median));
        hi = fmax(hi, fmax(s->points[k].high, s->points[k].median));
    }
    double pad = hi > lo ? (hi - lo) * 0.05 : fabs(hi) * 0.05 + 1e-9;
    kb_svg_axis y = {lo - pad, hi + pad, false, CHART_H - BOTTOM, TOP};
    double x0 = LEFT + 4,
           dx = s->npoints > 1 ? (CHART_W - RIGHT - 4 - x0) / (double)(s->npoints - 1) : 0;
    char last[32], desc[512];
    kb_format_duration(last, sizeof last, s->points[s->npoints - 1].median);
    int used = snprintf(desc, sizeof desc, "%zu runs, last median %s; ", s->npoints, last);
    if (s->cp.count == 0)
        snprintf(desc + used, sizeof desc - (size_t)used, "no change point");
    else {
        char text[160];
        change_text(v, s, s->cp.count - 1, text, sizeof text);
        snprintf(desc + used, sizeof desc - (size_t)used, "%lld change point%s, the last %s",
                 (long long)s->cp.count, s->cp.count > 1 ? "s" : "", text);
    }
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart hist\" id=\"h%zu\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "aria-labelledby=\"h%zu-t h%zu-d\" data-case=\"",
            index, CHART_W, CHART_H, CHART_W, CHART_H, index, index);
    kb_html_text(out, s->name);
    fprintf(out, "\" data-ax=\"%.2f %.4f %.2f %.2f %.9g %.9g\" data-r=\"", x0, dx, y.from, y.to,
            y.lo, y.hi);
    for (size_t k = 0; k < s->npoints; k++)
        fprintf(out, k ? " %zu" : "%zu", s->points[k].run);
    /* The values in units of data-u, a power of ten that leaves the largest 4 digits: whole
     * numbers are half the bytes of %g's. */
    double unit = pow(10, floor(log10(hi > 0 ? hi : 1)) - 3);
    fprintf(out, "\" data-u=\"%g\" data-v=\"", unit);
    for (size_t k = 0; k < s->npoints; k++)
        fprintf(out, "%s%.0f %.0f %.0f", k ? " " : "", s->points[k].median / unit,
                s->points[k].low / unit, s->points[k].high / unit);
    fprintf(out, "\"><title id=\"h%zu-t\">", index);
    kb_html_text(out, s->name);
    fprintf(out, "</title><desc id=\"h%zu-d\">", index);
    kb_html_text(out, desc);
    fputs("</desc>\n", out);
    /* The name above the plot, the ends of the y axis left of it, the runs below. */
    fprintf(out, "<text class=\"hname\" x=\"%.1f\" y=\"14\">", LEFT - 40);
    kb_html_text(out, s->name);
    char top[32], bottom[32];
    kb_format_duration(top, sizeof top, y.hi);
    kb_format_duration(bottom, sizeof bottom, y.lo);
    fprintf(out,
            "</text><rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
            "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
            "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
            "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">run %lld</text>"
            "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">run %lld</text>\n",
            LEFT, TOP, CHART_W - RIGHT - LEFT, CHART_H - BOTTOM - TOP, LEFT - 3, TOP + 8, top,
            LEFT - 3, CHART_H - BOTTOM, bottom, LEFT, CHART_H - 6,
            (long long)v->runs[s->points[0].run].id, CHART_W - RIGHT, CHART_H - 6,
            (long long)v->runs[s->points[s->npoints - 1].run].id);
    /* The band: the upper ends left to right, then the lower ones back. */
    fputs("<polygon class=\"ci\" points=\"", out);
    for (size_t k = 0; k < s->npoints; k++)
        fprintf(out, "%.1f,%.1f ", x0 + dx * (double)k, kb_svg_map(&y, s->points[k].high));
    for (size_t k = s->npoints; k-- > 0;)
        fprintf(out, "%.1f,%.1f ", x0 + dx * (double)k, kb_svg_map(&y, s->points[k].low));
    fputs("\"/><polyline class=\"med\" points=\"", out);
    for (size_t k = 0; k < s->npoints; k++)
        fprintf(out, "%s%.1f,%.1f", k ? " " : "", x0 + dx * (double)k,
                kb_svg_map(&y, s->points[k].median));
    fputs("\"/>\n", out);
    for (int64_t k = 0; k < s->cp.count; k++) {
        const kb_change_point *c = &s->cp.points[k];
        /* Half-way between the last run at the old level and the first at the new one. */
        double x = x0 + dx * ((double)c->index - 0.5);
        char text[160], before[32], after[32];
        change_text(v, s, k, text, sizeof text);
        kb_format_duration(before, sizeof before, c->before);
        kb_format_duration(after, sizeof after, c->after);
        fprintf(out,
                "<g class=\"cpt %s\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<path d=\"M%.1f %.1fl-5 -7h10z\"/><title>",
                c->regression ? "reg" : "imp", x, TOP, x, CHART_H - BOTTOM, x, TOP + 7);
        kb_html_text(out, s->name);
        fprintf(out, "\n%s ", c->regression ? "regression" : "improvement");
        kb_html_text(out, text);
        fprintf(out, "\nlevel %s before, %s after; p = %.3g</title></g>\n", before, after, c->p);
    }
    fputs("</svg>\n", out);
}

static void table(FILE *out, const view *v) {
    fputs("<p><label>Filter: <input type=\"search\" class=\"filter\" data-table=\"history-series\" "
          "placeholder=\"part of a case name\"></label></p>\n"
          "<div class=\"long\"><table class=\"cases sortable\" id=\"history-series\"><thead><tr>"
          "<th data-type=\"text\">case</th><th data-type=\"text\">machine</th>"
          "<th data-type=\"num\">runs</th><th data-type=\"num\">last median</th>"
          "<th data-type=\"num\">last change</th><th data-type=\"num\">change points</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < v->nseries; i++) {
        const hseries *s = &v->series[i];
        char last[32], change[160] = "-";
        kb_format_duration(last, sizeof last, s->points[s->npoints - 1].median);
        if (s->cp.count > 0)
            change_text(v, s, s->cp.count - 1, change, sizeof change);
        kb_html_case_row(out, s->name);
        fputs("<td title=\"", out);
        kb_html_text(out, s->machine_description);
        fprintf(out, "\">%.8s</td><td data-v=\"%zu\">%zu</td><td data-v=\"%.6g\">%s</td>",
                s->machine, s->npoints, s->npoints, s->points[s->npoints - 1].median, last);
        fprintf(out, "<td data-v=\"%.6g\"%s>", s->cp.count ? s->change : 0,
                s->kind == 0 ? " class=\"bad\"" : "");
        kb_html_text(out, change);
        fprintf(out, "</td><td data-v=\"%lld\"><a href=\"#h%zu\">%lld</a></td></tr>\n",
                (long long)s->cp.count, i, (long long)s->cp.count);
    }
    fputs("</tbody></table></div>\n", out);
}

kb_status kb_report_history(FILE *out, kb_history *h, const kb_history_select *select) {
    view v = {0};
    kb_status st = kb_history_each(h, select, take, &v);
    if (st != KB_OK) {
        view_free(&v);
        return st;
    }
    index_runs(&v);
    qsort(v.series, v.nseries, sizeof *v.series, by_interest);
    size_t counts[3] = {0};
    for (size_t i = 0; i < v.nseries; i++)
        counts[v.series[i].kind]++;
    fprintf(out,
            "<section id=\"history\"><h2>History</h2>\n<p>%zu series (a case on a machine with a "
            "build) over %zu runs of the %s store: <span class=\"bad\">%zu regressed</span>, %zu "
            "improved at their last change point, %zu without one. Change points are kbench "
            "detect's, with its defaults.</p>\n",
            v.nseries, v.nruns, kb_history_backend_name(h), counts[0], counts[1], counts[2]);
    runs_data(out, &v);
    fputs("<h3>Series</h3>\n", out);
    table(out, &v);
    fputs("<h3>Every series, the regressed first</h3>\n<p class=\"note\">Each chart is one "
          "series: its median run by run (line) with its 95% confidence interval (band); "
          "<span class=\"bad\">vermillion</span> marks are regressions, bluish green ones "
          "improvements, between the last run at the old level and the first at the new. Hover "
          "a run for its date and commit, a mark for the change.</p>\n<div class=\"multiples\">\n",
          out);
    for (size_t i = 0; i < v.nseries; i++)
        chart(out, &v, &v.series[i], i);
    fputs("</div>\n</section>\n", out);
    view_free(&v);
    return KB_OK;
}

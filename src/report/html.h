#ifndef KB_REPORT_HTML_H
#define KB_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "kbench/compare.h"
#include "kbench/history.h"
#include "kbench/results.h"
#include "results/speedup.h"

/* The parts of the HTML report (kbench/report.h) and what they share: escaping, the palette
 * and log-scaled SVG plots. */

/* s with &, <, >, " and ' as entities: safe in text and in quoted attribute values. */
void kb_html_text(FILE *out, const char *s);

/* Opens a table row of a case, for the filter to find by name: <tr data-case="NAME"><td>NAME</td>
 * (escaped). */
void kb_html_case_row(FILE *out, const char *name);

/* The colour-blind-safe palette (Okabe and Ito, docs/report.md): colour i of KB_PALETTE_SIZE,
 * cycling. */
#define KB_PALETTE_SIZE 8
const char *kb_palette_colour(int i);

/* The colour of a compare verdict. */
const char *kb_verdict_colour(kb_verdict verdict);

/* A plot area of an SVG chart: the data rectangle in pixels and its two axes, each linear or
 * logarithmic (base 10). */
typedef struct kb_svg_axis {
    double lo, hi; /* data range, > 0 when log */
    bool log;
    double from, to; /* pixels of lo and hi */
} kb_svg_axis;

typedef struct kb_svg_plot {
    kb_svg_axis x, y;
    double width, height; /* of the whole SVG */
} kb_svg_plot;

/* Widens [*lo, *hi] to whole decades (log) or to nice round ends (linear). */
void kb_svg_round_range(double *lo, double *hi, bool log);

/* The pixel of a value on an axis, clamped to the axis's ends. */
double kb_svg_map(const kb_svg_axis *axis, double v);

/* Opens an <svg> of the plot's size with its title and text description (escaped), and
 * draws the frame, the ticks of both axes with their labels (values times the given scale,
 * as kb_format_3 writes them) and the axes' names. */
void kb_svg_open(FILE *out, const kb_svg_plot *plot, const char *id, const char *title,
                 const char *desc, const char *x_name, double x_scale, const char *y_name,
                 double y_scale);

/* A marker with hover details: a circle at (x, y) pixels of the given colour, data-case the
 * case's name, and its <title> (the text shown on hover, without JavaScript too). */
void kb_svg_point(FILE *out, double x, double y, const char *colour, const char *name,
                  const char *details);

/* The sections of the page. Each writes an <h2>/<h3> and its content; prefix makes element
 * ids unique per run. speedups is the run's speedup report (results/speedup.h), whose eager
 * rows give the overview's count and the cases' flag below-traffic, and the eager view. */
void kb_report_overview(FILE *out, const kb_results *run, const kb_speedup_report *speedups);
void kb_report_cases(FILE *out, const kb_results *run, const char *prefix,
                     const kb_speedup_report *speedups);
void kb_report_eager(FILE *out, const kb_speedup_report *speedups, const char *prefix);
void kb_report_roofline_chart(FILE *out, const kb_results *run, const char *prefix);
void kb_report_curve_chart(FILE *out, const kb_results *run, const char *prefix);
kb_status kb_report_speedups(FILE *out, const kb_results *run, const char *prefix);
void kb_report_comparison(FILE *out, const kb_comparison *comparison);

/* The history view: the series select picks from the store, with their change points
 * (kb_history_change_points), as a table and a chart each, the regressed first. */
kb_status kb_report_history(FILE *out, kb_history *h, const kb_history_select *select);

/* The colour of each op (kb_report_op) of a run: the ops in order of first appearance,
 * coloured by the palette in turn. */
#define KB_REPORT_MAX_OPS 64
typedef struct kb_op_colours {
    int count;
    char ops[KB_REPORT_MAX_OPS][64];
} kb_op_colours;
void kb_op_colours_make(const kb_results *run, kb_op_colours *out);
const char *kb_op_colour(const kb_op_colours *colours, const kb_bench_result *r);

/* The stylesheet and the script, inlined in the page's head and end. */
extern const char kb_report_css[];
extern const char kb_report_js[];

#endif

/* The report's roofline chart, log-log: the run's measured roofs (load bandwidth of each level,
 * FLOP ceilings of each type and SIMD level, at one thread and at all cores) and each case
 * with FLOPs at its intensity and achieved FLOP/s; cases without FLOPs, which have no place
 * on the intensity axis, on a strip of achieved bandwidth under the level roofs. */
#include <math.h>
#include <string.h>

#include "report/html.h"
#include "results/internal.h"
#include "util/internal.h"

#define WIDTH 860.0
#define LEFT 70.0
#define RIGHT 230.0 /* room for the roofs' names */

typedef struct roofs {
    int nsets;
    int threads[KB_PEAKS_SET_COUNT];
    double bandwidth[KB_PEAKS_SET_COUNT][KB_MEM_LEVEL_COUNT];
    double flops[KB_PEAKS_SET_COUNT][KB_FLOP_TYPE_COUNT][KB_SIMD_LEVEL_COUNT];
} roofs;

/* The bounds the roofline itself holds results against (kb_roofline_peaks_from), per set. */
static void roofs_of(const kb_bench_context *c, roofs *out) {
    memset(out, 0, sizeof *out);
    if (!c->has_peaks)
        return;
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        int threads = c->peaks.sets[s].threads;
        if (threads < 1 || (out->nsets > 0 && out->threads[out->nsets - 1] == threads))
            continue;
        int k = out->nsets++;
        out->threads[k] = threads;
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                kb_roofline_peaks p;
                if (kb_roofline_peaks_from(&c->peaks, threads, KB_BW_LOAD, (kb_flop_type)t,
                                           (kb_simd_level)l, &p) != KB_OK)
                    continue;
                for (int m = 0; m < KB_MEM_LEVEL_COUNT; m++)
                    out->bandwidth[k][m] = p.bytes_per_second[m];
                if (c->peaks.sets[s].flops[t][l].repetitions > 0)
                    out->flops[k][t][l] = p.flops_per_second;
            }
    }
}

static bool on_roofline(const kb_bench_result *r) {
    return r->has_roofline && r->flops_per_call > 0 && isfinite(r->roofline.intensity) &&
           r->roofline.intensity > 0 && r->roofline.flops_per_second > 0;
}

static bool on_strip(const kb_bench_result *r) {
    return r->has_roofline && !on_roofline(r) && r->roofline.bytes_per_second > 0;
}

static void widen(double *lo, double *hi, double v) {
    if (v > 0 && isfinite(v)) {
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
}

static void details(const kb_bench_result *r, char *buf, size_t size) {
    char median[32], gb[32], gf[32], ai[32];
    kb_format_duration(median, sizeof median, r->stats.median);
    kb_format_3(gb, sizeof gb, r->gb_per_s);
    kb_format_3(gf, sizeof gf, r->gflop_per_s);
    kb_format_3(ai, sizeof ai, r->roofline.intensity);
    snprintf(buf, size, "median %s, %s GB/s, %s GFLOP/s, %s FLOP/byte, %.1f%% of bound (%s)",
             median, gb, gf, ai, r->roofline.percent_of_bound,
             kb_mem_level_name(r->roofline.level));
}

/* The names of the roofs, right of the plot, moved apart so that none overlaps the next. */
#define MAX_LABELS                                                                                 \
    (KB_PEAKS_SET_COUNT * (KB_MEM_LEVEL_COUNT + KB_FLOP_TYPE_COUNT * KB_SIMD_LEVEL_COUNT))
typedef struct labels {
    int count;
    double y[MAX_LABELS];
    char text[MAX_LABELS][96];
} labels;

static void label_add(labels *l, double y, const char *text) {
    if (l->count < MAX_LABELS) {
        l->y[l->count] = y;
        snprintf(l->text[l->count++], sizeof l->text[0], "%s", text);
    }
}

static void labels_write(FILE *out, labels *l, double x) {
    for (int i = 1; i < l->count; i++) /* insertion sort by y: a few dozen labels */
        for (int k = i; k > 0 && l->y[k] < l->y[k - 1]; k--) {
            double y = l->y[k];
            char text[96];
            memcpy(text, l->text[k], sizeof text);
            l->y[k] = l->y[k - 1];
            memcpy(l->text[k], l->text[k - 1], sizeof text);
            l->y[k - 1] = y;
            memcpy(l->text[k - 1], text, sizeof text);
        }
    for (int i = 0; i < l->count; i++) {
        if (i > 0 && l->y[i] < l->y[i - 1] + 11)
            l->y[i] = l->y[i - 1] + 11;
        fprintf(out, "<text class=\"roof\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, l->y[i],
                l->text[i]);
    }
}

static void legend(FILE *out, const kb_op_colours *ops) {
    fputs("<ul class=\"legend\">", out);
    for (int k = 0; k < ops->count; k++) {
        fprintf(out, "<li><span class=\"swatch\" style=\"background:%s\"></span>",
                kb_palette_colour(k));
        kb_html_text(out, ops->ops[k]);
        fputs("</li>", out);
    }
    fputs("</ul>\n", out);
}

static void chart(FILE *out, const kb_results *run, const roofs *rf, const kb_op_colours *ops,
                  const char *prefix) {
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    int n = 0;
    for (int i = 0; i < run->ncases; i++) {
        const kb_bench_result *r = &run->cases[i];
        if (!on_roofline(r))
            continue;
        n++;
        widen(&xlo, &xhi, r->roofline.intensity);
        widen(&ylo, &yhi, r->roofline.flops_per_second);
    }
    if (n == 0)
        return;
    for (int k = 0; k < rf->nsets; k++)
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
                widen(&ylo, &yhi, rf->flops[k][t][l]);
    kb_svg_plot p = {.x = {xlo / 2, xhi * 2, true, LEFT, WIDTH - RIGHT},
                     .y = {ylo / 2, yhi * 2, true, 380, 20},
                     .width = WIDTH,
                     .height = 420};
    kb_svg_round_range(&p.x.lo, &p.x.hi, true);
    kb_svg_round_range(&p.y.lo, &p.y.hi, true);
    char id[64], desc[256];
    snprintf(id, sizeof id, "%s-roofline", prefix);
    snprintf(desc, sizeof desc,
             "%d cases at their arithmetic intensity (FLOPs per byte) and achieved FLOP/s, "
             "under the measured load bandwidth of each memory level (sloped roofs) and the "
             "FLOP ceilings of each type and SIMD level (flat roofs)",
             n);
    kb_svg_open(out, &p, id, "Roofline", desc, "arithmetic intensity (FLOP/byte)", 1,
                "achieved GFLOP/s", 1e-9);
    labels names = {0};
    for (int k = 0; k < rf->nsets; k++) {
        const char *dash = k == 0 && rf->nsets > 1 ? " stroke-dasharray=\"5 3\"" : "";
        for (int m = 0; m < KB_MEM_LEVEL_COUNT; m++) {
            double bw = rf->bandwidth[k][m];
            if (!(bw > 0))
                continue;
            double x1 = fmax(p.x.lo, p.y.lo / bw), x2 = fmin(p.x.hi, p.y.hi / bw);
            if (!(x1 < x2))
                continue;
            char gb[32], text[96];
            kb_format_3(gb, sizeof gb, bw / 1e9);
            snprintf(text, sizeof text, "%s %d thr: %s GB/s", kb_mem_level_name((kb_mem_level)m),
                     rf->threads[k], gb);
            fprintf(out,
                    "<line class=\"roofbw\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s>"
                    "<title>load bandwidth %s</title></line>\n",
                    kb_svg_map(&p.x, x1), kb_svg_map(&p.y, bw * x1), kb_svg_map(&p.x, x2),
                    kb_svg_map(&p.y, bw * x2), dash, text);
            if (x2 >= p.x.hi)
                label_add(&names, kb_svg_map(&p.y, bw * x2) + 3, text);
        }
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                double f = rf->flops[k][t][l];
                if (!(f > 0))
                    continue;
                char gf[32], text[96];
                kb_format_3(gf, sizeof gf, f / 1e9);
                snprintf(text, sizeof text, "%s %s %d thr: %s GFLOP/s",
                         kb_flop_type_name((kb_flop_type)t), kb_simd_name((kb_simd_level)l),
                         rf->threads[k], gf);
                double y = kb_svg_map(&p.y, f);
                fprintf(out,
                        "<line class=\"roofflop\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\"%s><title>FMA %s</title></line>\n",
                        p.x.from, y, p.x.to, y, dash, text);
                label_add(&names, y + 3, text);
            }
    }
    labels_write(out, &names, p.x.to + 4);
    for (int i = 0; i < run->ncases; i++) {
        const kb_bench_result *r = &run->cases[i];
        if (!on_roofline(r))
            continue;
        char text[256];
        details(r, text, sizeof text);
        kb_svg_point(out, kb_svg_map(&p.x, r->roofline.intensity),
                     kb_svg_map(&p.y, r->roofline.flops_per_second), kb_op_colour(ops, r), r->name,
                     text);
    }
    fputs("</svg>\n", out);
}

/* The cases without FLOPs: achieved bandwidth on a log axis, a row per op, under the level
 * roofs as vertical lines. */
static void strip(FILE *out, const kb_results *run, const roofs *rf, const kb_op_colours *ops,
                  const char *prefix) {
    double lo = INFINITY, hi = 0;
    int n = 0;
    for (int i = 0; i < run->ncases; i++)
        if (on_strip(&run->cases[i])) {
            n++;
            widen(&lo, &hi, run->cases[i].roofline.bytes_per_second);
        }
    if (n == 0)
        return;
    for (int k = 0; k < rf->nsets; k++)
        for (int m = 0; m < KB_MEM_LEVEL_COUNT; m++)
            widen(&lo, &hi, rf->bandwidth[k][m]);
    double rows = ops->count > 0 ? ops->count : 1;
    kb_svg_plot p = {.x = {lo / 2, hi * 2, true, LEFT, WIDTH - RIGHT},
                     .y = {0, rows, false, 30 + 18 * rows, 30},
                     .width = WIDTH,
                     .height = 70 + 18 * rows};
    kb_svg_round_range(&p.x.lo, &p.x.hi, true);
    char id[64], desc[256];
    snprintf(id, sizeof id, "%s-strip", prefix);
    snprintf(desc, sizeof desc,
             "%d cases that do no floating-point operations, at their achieved bandwidth, one "
             "row per op, under the measured load bandwidth of each memory level",
             n);
    kb_svg_open(out, &p, id, "Bandwidth-only cases", desc, "achieved GB/s (no FLOPs)", 1e-9, "op",
                0);
    for (int k = 0; k < rf->nsets; k++)
        for (int m = 0; m < KB_MEM_LEVEL_COUNT; m++) {
            double bw = rf->bandwidth[k][m];
            if (!(bw > 0))
                continue;
            double x = kb_svg_map(&p.x, bw);
            fprintf(out,
                    "<line class=\"roofbw\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>"
                    "<text class=\"roof\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s/%d"
                    "</text>\n",
                    x, p.y.from, x, p.y.to,
                    k == 0 && rf->nsets > 1 ? " stroke-dasharray=\"5 3\"" : "", x,
                    p.y.to - 4 - 10 * ((m + k) % 2), kb_mem_level_name((kb_mem_level)m),
                    rf->threads[k]);
        }
    for (int i = 0; i < run->ncases; i++) {
        const kb_bench_result *r = &run->cases[i];
        if (!on_strip(r))
            continue;
        char op[64], text[256];
        kb_report_op(r, op, sizeof op);
        int row = 0;
        for (int k = 0; k < ops->count; k++)
            if (strcmp(ops->ops[k], op) == 0)
                row = k;
        details(r, text, sizeof text);
        kb_svg_point(out, kb_svg_map(&p.x, r->roofline.bytes_per_second),
                     kb_svg_map(&p.y, row + 0.5), kb_op_colour(ops, r), r->name, text);
    }
    fputs("</svg>\n", out);
}

void kb_report_roofline_chart(FILE *out, const kb_results *run, const char *prefix) {
    roofs rf;
    roofs_of(&run->context, &rf);
    kb_op_colours ops;
    kb_op_colours_make(run, &ops);
    int missing = 0;
    for (int i = 0; i < run->ncases; i++)
        missing += !on_roofline(&run->cases[i]) && !on_strip(&run->cases[i]);
    fputs("<h3>Roofline</h3>\n", out);
    fputs("<p class=\"note\">Each case with floating-point work sits at its intensity and "
          "achieved FLOP/s; the roofs are this run's measured peaks (solid: all cores, dashed: "
          "one thread). Cases that do no FLOPs have no intensity: they are on the strip below, "
          "at their achieved bandwidth.</p>\n",
          out);
    legend(out, &ops);
    chart(out, run, &rf, &ops, prefix);
    strip(out, run, &rf, &ops, prefix);
    if (missing > 0)
        fprintf(out,
                "<p class=\"note\">%d case%s not plotted: failed, or without a roofline (the "
                "run had no peaks, or the case declares no bytes and no FLOPs).</p>\n",
                missing, missing == 1 ? "" : "s");
}

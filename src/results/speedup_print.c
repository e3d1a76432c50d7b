/* The speedup report for people and for files: rows, then geometric means of the speedups of
 * simd=auto over each baseline, overall and per op; kbench through its Python module against
 * the other Python libraries first (Python call vs Python call), then kbench's C calls. */
#include <math.h>
#include <string.h>

#include "results/speedup.h"
#include "util/internal.h"
#include "util/strings.h"

/* "numpy", "torch/threads=2": the baseline's name after its group's and "baseline=". */
static const char *label_of(const kb_bench_result *r) {
    const char *impl = kb_speedup_impl(r);
    return strncmp(impl, "baseline=", 9) == 0 ? impl + 9 : impl;
}

/* What a case computes, by which its speedups are also averaged: a reduction's op, an
 * expression's name (the expr suite); NULL for a case of neither. */
static const char *op_of(const kb_bench_result *r) {
    for (int i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, "op") == 0 || strcmp(r->params[i].name, "expr") == 0)
            return r->params[i].value;
    return NULL;
}

/* Six libraries (five and the best) at two thread counts, overall and for each of the nine
 * ops or expressions of a suite, are 120; a run of both suites has more. */
enum { MAX_MEANS = 512 };

/* A geometric mean being gathered: of the speedups of one implementation over one library,
 * for one op ("" for all ops). */
typedef struct mean {
    const char *library, *impl, *op;
    double log_sum;
    int count;
} mean;

static void add(mean *means, int *n, const char *library, const char *impl, const char *op,
                double ratio) {
    if (!op)
        return;
    for (int i = 0; i < *n; i++)
        if (strcmp(means[i].library, library) == 0 && strcmp(means[i].impl, impl) == 0 &&
            strcmp(means[i].op, op) == 0) {
            means[i].log_sum += log(ratio);
            means[i].count++;
            return;
        }
    if (*n < MAX_MEANS)
        means[(*n)++] = (mean){library, impl, op, log(ratio), 1};
}

/* Whether a row is in the section: of kbench's Python module (python), or of simd=auto among
 * kbench's C calls. */
static bool averaged(const kb_speedup *s, bool python) {
    return s->python == python && (python || strstr(kb_speedup_impl(s->own), "simd=auto"));
}

/* The geometric means of a section's speedups: overall (op "") and per op, over each library
 * and, as library "best", over the fastest baseline of each case. */
static int gather(const kb_speedup_report *report, mean *means, bool python) {
    int n = 0;
    for (int i = 0; i < report->count; i++) {
        const kb_speedup *s = &report->rows[i];
        if (!averaged(s, python))
            continue;
        add(means, &n, s->baseline->baseline, label_of(s->own), "", s->over_baseline.ratio);
        add(means, &n, s->baseline->baseline, label_of(s->own), op_of(s->own),
            s->over_baseline.ratio);
    }
    for (int i = 0; i < report->count; i++) {
        const kb_speedup *s = &report->rows[i];
        if (!s->first || !averaged(s, python))
            continue;
        add(means, &n, "best", label_of(s->own), "", s->over_best.ratio);
        add(means, &n, "best", label_of(s->own), op_of(s->own), s->over_best.ratio);
    }
    return n;
}

static int section_rows(const kb_speedup_report *report, bool python) {
    int n = 0;
    for (int i = 0; i < report->count; i++)
        n += report->rows[i].python == python;
    return n;
}

static const char *section_comparison(const kb_speedup_report *report, bool python) {
    return python ? KB_BASELINE_COMPARISON_PYTHON : report->c_comparison;
}

static const char *section_title(bool python) {
    return python ? "Speedup of kbench through Python over the baselines"
                  : "Speedup over the baselines";
}

/* The baselines that could not compute their case: reported, never dropped. */
static void print_unsupported(const kb_speedup_report *report, FILE *out, bool markdown) {
    size_t i;
    json_t *entry;
    if (!report->unsupported)
        return;
    fputs(markdown ? "\n**Not supported by the baseline (not timed)**\n\n"
                   : "\nNot supported by the baseline (not timed):\n",
          out);
    json_array_foreach(report->unsupported, i, entry) {
        const char *name = json_string_value(json_object_get(entry, "case"));
        const char *why = json_string_value(json_object_get(entry, "reason"));
        fprintf(out, markdown ? "- `%s`: %s\n" : "  %s: %s\n", name ? name : "?", why ? why : "");
    }
}

static void ratio_text(char *buf, size_t size, const kb_ratio_ci *r) {
    snprintf(buf, size, "%.2fx (%.2f to %.2f)", r->ratio, r->low, r->high);
}

static void table_section(const kb_speedup_report *report, FILE *out, bool python) {
    if (section_rows(report, python) == 0)
        return;
    /* Columns as wide as their longest entry: a case's name, a baseline's
     * ("torch-compile/threads=2"). */
    int width = 4, bwidth = 15;
    for (int i = 0; i < report->count; i++) {
        int len = (int)strlen(report->rows[i].own->name);
        int blen = (int)strlen(label_of(report->rows[i].baseline));
        if (report->rows[i].python == python && len > width)
            width = len;
        if (report->rows[i].python == python && blen > bwidth)
            bwidth = blen;
    }
    fprintf(out,
            "\n%s (%s): ratio of medians, 95%% bootstrap interval\n"
            "%-*s %10s %-*s %10s %24s %40s %24s\n",
            section_title(python), section_comparison(report, python), width, "case", "time/call",
            bwidth, "baseline", "its time", "speedup", "over the best baseline",
            "auto over scalar");
    for (int i = 0; i < report->count; i++) {
        const kb_speedup *s = &report->rows[i];
        if (s->python != python)
            continue;
        char own[32], base[32], sp[48], best[48], best_text[96] = "", sc[48] = "";
        kb_format_duration(own, sizeof own, s->own->stats.median);
        kb_format_duration(base, sizeof base, s->baseline->stats.median);
        ratio_text(sp, sizeof sp, &s->over_baseline);
        if (s->first) {
            ratio_text(best, sizeof best, &s->over_best);
            snprintf(best_text, sizeof best_text, "%s %s", best, label_of(s->best));
        }
        if (s->scalar)
            ratio_text(sc, sizeof sc, &s->over_scalar);
        fprintf(out, "%-*s %10s %-*s %10s %24s %40s %24s\n", width, s->own->name, own, bwidth,
                label_of(s->baseline), base, sp, best_text, sc);
    }
    mean means[MAX_MEANS];
    int n = gather(report, means, python);
    if (n > 0)
        fprintf(out, "\nGeometric mean speedup of %s over each baseline:\n",
                python ? "kbench through Python" : "simd=auto");
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-13s %-22s %-8s %6.2fx  (%d case%s)\n", means[i].library, means[i].impl,
                means[i].op[0] ? means[i].op : "all ops", exp(means[i].log_sum / means[i].count),
                means[i].count, kb_plural(means[i].count));
}

void kb_speedup_print_table(const kb_speedup_report *report, FILE *out) {
    table_section(report, out, true);
    table_section(report, out, false);
    print_unsupported(report, out, false);
    kb_eager_print_table(report, out);
}

static void markdown_section(const kb_speedup_report *report, FILE *out, bool python) {
    if (section_rows(report, python) == 0)
        return;
    fprintf(out, "\n## %s (%s)\n\n", section_title(python), section_comparison(report, python));
    if (python)
        fputs("kbench called through its Python module (`kbench.sum(a, axis=...)`, ...) against "
              "the other Python libraries, each timed by the same Python loop: both sides pay a "
              "Python call.\n\n",
              out);
    fputs("Ratio of medians (baseline / kbench) with its 95% bootstrap interval; over the best "
          "baseline: over the fastest baseline of the case, named.\n\n"
          "| case | time/call | baseline | its time | speedup | 95% CI | over the best baseline "
          "| auto over scalar |\n"
          "|---|---:|---|---:|---:|---|---|---:|\n",
          out);
    for (int i = 0; i < report->count; i++) {
        const kb_speedup *s = &report->rows[i];
        if (s->python != python)
            continue;
        char own[32], base[32], best[96] = "", sc[48] = "";
        kb_format_duration(own, sizeof own, s->own->stats.median);
        kb_format_duration(base, sizeof base, s->baseline->stats.median);
        if (s->first) {
            ratio_text(best, sizeof best, &s->over_best);
            snprintf(best + strlen(best), sizeof best - strlen(best), " %s", label_of(s->best));
        }
        if (s->scalar)
            ratio_text(sc, sizeof sc, &s->over_scalar);
        fprintf(out, "| `%s` | %s | %s | %s | %.2fx | %.2f to %.2f | %s | %s |\n", s->own->name,
                own, label_of(s->baseline), base, s->over_baseline.ratio, s->over_baseline.low,
                s->over_baseline.high, best, sc);
    }
    mean means[MAX_MEANS];
    int n = gather(report, means, python);
    if (n == 0)
        return;
    fprintf(out,
            "\n**Geometric mean speedup of %s**\n\n| baseline | implementation | ops | "
            "speedup | cases |\n|---|---|---|---:|---:|\n",
            python ? "kbench through Python" : "simd=auto");
    for (int i = 0; i < n; i++)
        fprintf(out, "| %s | `%s` | %s | %.2fx | %d |\n", means[i].library, means[i].impl,
                means[i].op[0] ? means[i].op : "all", exp(means[i].log_sum / means[i].count),
                means[i].count);
}

void kb_speedup_print_markdown(const kb_speedup_report *report, FILE *out) {
    markdown_section(report, out, true);
    markdown_section(report, out, false);
    print_unsupported(report, out, true);
    kb_eager_print_markdown(report, out);
}

static json_t *ratio_json(const kb_ratio_ci *r) {
    return json_pack("{s:f, s:f, s:f}", "ratio", r->ratio, "ci_low", r->low, "ci_high", r->high);
}

json_t *kb_speedup_json(const kb_speedup_report *report) {
    if (report->count == 0)
        return json_null();
    json_t *rows = json_array(), *summary = json_array();
    for (int i = 0; i < report->count; i++) {
        const kb_speedup *s = &report->rows[i];
        json_array_append_new(
            rows,
            json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:o}", "case", s->own->name, "comparison",
                      section_comparison(report, s->python), "baseline_case", s->baseline->name,
                      "over_baseline", ratio_json(&s->over_baseline), "best_baseline_case",
                      s->best->name, "over_best_baseline", ratio_json(&s->over_best), "over_scalar",
                      s->scalar ? ratio_json(&s->over_scalar) : json_null()));
    }
    for (int python = 1; python >= 0; python--) {
        mean means[MAX_MEANS];
        int n = gather(report, means, python);
        for (int i = 0; i < n; i++)
            json_array_append_new(
                summary,
                json_pack("{s:s, s:s, s:s, s:o, s:f, s:i}", "comparison",
                          section_comparison(report, python), "baseline", means[i].library,
                          "implementation", means[i].impl, "op",
                          means[i].op[0] ? json_string(means[i].op) : json_null(), "geometric_mean",
                          exp(means[i].log_sum / means[i].count), "cases", means[i].count));
    }
    return json_pack("{s:s, s:s, s:f, s:o, s:o}", "comparison", report->comparison, "ratio",
                     "median(baseline) / median(kbench)", "ci_level", 0.95, "rows", rows,
                     "geometric_means", summary);
}

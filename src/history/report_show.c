/* `history show`: one case's series, point by point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
#include "history/internal.h"
#include "util/internal.h"

/* The MAD in % of the median, "-" when unknown. */
static void mad_text(const kb_history_point *p, char *buf, size_t size) {
    if (isfinite(p->mad_ns) && p->median_ns > 0)
        snprintf(buf, size, "%.1f%%", 100 * p->mad_ns / p->median_ns);
    else
        snprintf(buf, size, "-");
}

static void print_points(const kb_history_series *s, const kb_history_point *points, size_t n,
                         bool markdown, FILE *out) {
    if (markdown) {
        char *name = kb_markdown_cell(s->case_name);
        fprintf(out, "### %s\n\nmachine `%s` (%s), build `%s` (%s)\n\n", name ? name : "?",
                s->machine, s->machine_description, s->build, s->build_description);
        free(name);
        fprintf(out,
                "| time | commit | branch | median | CI low | CI high | MAD | samples | GB/s | "
                "%%bound | flags |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    } else {
        fprintf(out, "%s\n  machine %s (%s)\n  build %s (%s)\n", s->case_name, s->machine,
                s->machine_description, s->build, s->build_description);
        fprintf(out, "%-20s  %-12s  %-12s  %9s  %9s  %9s  %6s  %7s  %8s  %6s  %s\n", "time",
                "commit", "branch", "median", "CI low", "CI high", "MAD", "samples", "GB/s",
                "%bound", "flags");
    }
    for (size_t i = 0; i < n; i++) {
        const kb_history_point *p = &points[i];
        char time[32], median[32], low[32], high[32], mad[16], gbs[32], bound[16];
        kb_format_utc(time, sizeof time, p->time);
        kb_format_duration(median, sizeof median, p->median_ns);
        kb_format_duration(low, sizeof low, p->ci_low_ns);
        kb_format_duration(high, sizeof high, p->ci_high_ns);
        mad_text(p, mad, sizeof mad);
        kb_format_3(gbs, sizeof gbs, isfinite(p->gb_per_s) ? p->gb_per_s : 0);
        if (isfinite(p->percent_of_bound))
            snprintf(bound, sizeof bound, "%.1f%%", p->percent_of_bound);
        else
            snprintf(bound, sizeof bound, "-");
        const char *commit = p->commit ? p->commit : "-", *branch = p->branch ? p->branch : "-";
        if (markdown)
            fprintf(out, "| %s | %.12s | %s | %s | %s | %s | %s | %lld | %s | %s | %s |\n", time,
                    commit, branch, median, low, high, mad, (long long)p->nsamples, gbs, bound,
                    p->flags);
        else
            fprintf(out, "%-20s  %-12.12s  %-12s  %9s  %9s  %9s  %6s  %7lld  %8s  %6s  %s\n", time,
                    commit, branch, median, low, high, mad, (long long)p->nsamples, gbs, bound,
                    p->flags);
    }
}

kb_status kb_history_report_show(kb_history *h, const kb_history_select *select,
                                 kb_results_format format, FILE *out) {
    kb_history_series *series;
    size_t nseries;
    kb_status st = kb_history_series_list(h, select, &series, &nseries);
    if (st != KB_OK)
        return st;
    if (nseries == 0) {
        kb_history_series_free(series, nseries);
        return kb_fail(KB_EINVAL, "no series of case '%s'%s%s", select->case_name,
                       select->machine ? " on machine " : "",
                       select->machine ? select->machine : "");
    }
    json_t *array = format == KB_RESULTS_JSON ? json_array() : NULL;
    if (format == KB_RESULTS_JSON && !array)
        st = kb_fail(KB_ENOMEM, "out of memory");
    for (size_t i = 0; i < nseries && st == KB_OK; i++) {
        kb_history_point *points;
        size_t n;
        if ((st = kb_history_points(h, series[i].id, select, &points, &n)) != KB_OK)
            break;
        if (array)
            st = kb_history_append_series(array, &series[i], points, n);
        else
            print_points(&series[i], points, n, format == KB_RESULTS_MARKDOWN, out);
        if (!array && i + 1 < nseries)
            fputc('\n', out);
        kb_history_points_free(points, n);
    }
    if (st == KB_OK && array)
        st = kb_json_write(out, array, KB_JSON_EXACT | JSON_INDENT(2));
    json_decref(array);
    kb_history_series_free(series, nseries);
    return st;
}

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

typedef struct show {
    json_t *array; /* for json, else NULL */
    bool markdown;
    size_t shown;
    FILE *out;
} show;

static kb_status show_series(const kb_history_series *s, const kb_history_point *points, size_t n,
                             void *context) {
    show *sh = context;
    if (sh->array)
        return kb_history_append_series(sh->array, s, points, n);
    if (sh->shown++ > 0)
        fputc('\n', sh->out);
    print_points(s, points, n, sh->markdown, sh->out);
    return KB_OK;
}

kb_status kb_history_report_show(kb_history *h, const kb_history_select *select,
                                 kb_results_format format, FILE *out) {
    show sh = {.markdown = format == KB_RESULTS_MARKDOWN, .out = out};
    if (format == KB_RESULTS_JSON && !(sh.array = json_array()))
        return kb_fail(KB_ENOMEM, "out of memory");
    kb_status st = kb_history_each(h, select, show_series, &sh);
    if (st == KB_OK && (sh.array ? json_array_size(sh.array) : sh.shown) == 0)
        st = kb_fail(KB_EINVAL, "no series of case '%s'%s%s", select->case_name,
                     select->machine ? " on machine " : "", select->machine ? select->machine : "");
    if (st == KB_OK && sh.array)
        return kb_history_write_json(sh.array, out);
    json_decref(sh.array);
    return st;
}

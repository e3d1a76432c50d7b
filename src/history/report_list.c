/* `history list`: the series, with their length, last value and last change point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/internal.h"
#include "util/internal.h"

/* A series with its points, what each format prints from. */
typedef struct row {
    const kb_history_series *series;
    kb_history_point *points;
    size_t npoints;
    ptrdiff_t step; /* the first point at the level of the last change point, -1 for none */
    double change;  /* the change of level there, after / before - 1 */
} row;

/* "+5.2% at abc1234" (the commit of the first point at the new level, or its run), "-" for
 * none. */
static void step_text(const row *r, char *buf, size_t size) {
    if (r->step < 0) {
        snprintf(buf, size, "-");
        return;
    }
    const kb_history_point *p = &r->points[r->step];
    if (p->commit)
        snprintf(buf, size, "%+.1f%% at %.12s", 100 * r->change, p->commit);
    else
        snprintf(buf, size, "%+.1f%% at run %lld", 100 * r->change, (long long)p->run_id);
}

/* The row's last change point (kb_history_change_points), named by its series on failure. */
static kb_status last_change(row *r) {
    kb_change_points cp;
    kb_status st = kb_history_change_points(r->points, r->npoints, &cp);
    r->step = -1;
    if (st == KB_OK && cp.count > 0) {
        r->step = (ptrdiff_t)cp.points[cp.count - 1].index;
        r->change = cp.points[cp.count - 1].change;
    }
    kb_change_points_free(&cp);
    return st == KB_OK ? st : kb_fail_prefix(st, r->series->case_name);
}

static void print_text(const row *rows, size_t n, bool markdown, FILE *out) {
    int width = 4;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(rows[i].series->case_name);
        width = len > width ? len : width;
    }
    if (markdown)
        fprintf(out, "| case | machine | build | points | last | commit | last change |\n"
                     "|---|---|---|---:|---:|---|---|\n");
    else
        fprintf(out, "%-*s  %-8s  %-8s  %6s  %9s  %-12s  %s\n", width, "case", "machine", "build",
                "points", "last", "commit", "last change");
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        const kb_history_point *last = &r->points[r->npoints - 1];
        char median[32], change[64];
        kb_format_duration(median, sizeof median, last->median_ns);
        step_text(r, change, sizeof change);
        const char *commit = last->commit ? last->commit : "-";
        if (markdown) {
            char *name = kb_markdown_cell(r->series->case_name);
            fprintf(out, "| %s | %.8s | %.8s | %zu | %s | %.12s | %s |\n", name ? name : "?",
                    r->series->machine, r->series->build, r->npoints, median, commit, change);
            free(name);
        } else {
            fprintf(out, "%-*s  %.8s  %.8s  %6zu  %9s  %-12.12s  %s\n", width, r->series->case_name,
                    r->series->machine, r->series->build, r->npoints, median, commit, change);
        }
    }
}

static kb_status print_json(const row *rows, size_t n, FILE *out) {
    json_t *a = json_array();
    for (size_t i = 0; i < n && a; i++) {
        const row *r = &rows[i];
        json_t *o = kb_history_series_json(r->series);
        json_t *step = r->step < 0 ? json_null()
                                   : json_pack("{s:o, s:o}", "point",
                                               kb_history_point_json(&r->points[r->step]), "change",
                                               kb_json_real(r->change));
        if (!o || !step ||
            json_object_set_new(o, "last", kb_history_point_json(&r->points[r->npoints - 1])) ||
            json_object_set_new(o, "last_change", step) || json_array_append_new(a, o)) {
            json_decref(o);
            json_decref(a);
            a = NULL;
        }
    }
    return kb_history_write_json(a, out);
}

kb_status kb_history_report_list(kb_history *h, const kb_history_select *select,
                                 kb_results_format format, FILE *out) {
    kb_history_series *series;
    size_t nseries;
    kb_status st = kb_history_series_list(h, select, &series, &nseries);
    if (st != KB_OK)
        return st;
    row *rows = calloc(nseries + 1, sizeof *rows);
    size_t n = 0;
    if (!rows)
        st = kb_fail(KB_ENOMEM, "out of memory");
    for (size_t i = 0; i < nseries && st == KB_OK; i++) {
        row *r = &rows[n];
        r->series = &series[i];
        st = kb_history_points(h, series[i].id, select, &r->points, &r->npoints);
        if (st == KB_OK && r->npoints > 0) {
            n++;
            st = last_change(r);
        } else {
            kb_history_points_free(r->points, r->npoints);
            r->points = NULL;
            r->npoints = 0;
        }
    }
    if (st == KB_OK && format == KB_RESULTS_JSON)
        st = print_json(rows, n, out);
    else if (st == KB_OK)
        print_text(rows, n, format == KB_RESULTS_MARKDOWN, out);
    for (size_t i = 0; rows && i <= n && i < nseries; i++)
        kb_history_points_free(rows[i].points, rows[i].npoints);
    free(rows);
    kb_history_series_free(series, nseries);
    return st;
}

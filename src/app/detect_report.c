/* The change points `kbench detect` finds in each series, as a table, a markdown alert or JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "app/detect_report.h"
#include "core/internal.h"
#include "results/internal.h"
#include "util/internal.h"

/* The series' index of the first point in the window: the last N points, those since a time. */
static size_t window_start(const kb_detect_report *r, const kb_detect_series *s) {
    size_t first = 0;
    if (r->last > 0 && s->npoints > (size_t)r->last)
        first = s->npoints - (size_t)r->last;
    while (r->since > 0 && first < s->npoints && s->points[first].time < r->since)
        first++;
    return first;
}

kb_status kb_detect_report_add(kb_detect_report *r, const kb_detect_series *s) {
    size_t first = window_start(r, s), n = s->npoints - first;
    r->nseries++;
    r->npoints += n;
    double *values = malloc((n ? n : 1) * sizeof *values);
    if (!values)
        return kb_fail(KB_ENOMEM, "out of memory for %zu points", n);
    for (size_t i = 0; i < n; i++)
        values[i] = s->points[first + i].median_ns;
    kb_change_points cp;
    kb_status st = kb_change_points_detect(values, (int64_t)n, &r->options, &cp);
    free(values);
    if (st != KB_OK) {
        char why[256];
        kb_copy_string(why, sizeof why, kb_last_error());
        return kb_fail(st, "%s%s%s: %s", s->case_name, s->machine[0] ? " on " : "", s->machine,
                       why);
    }
    if (r->count + (size_t)cp.count > r->capacity) {
        size_t capacity = 2 * r->capacity + (size_t)cp.count;
        kb_detect_finding *grown = realloc(r->findings, capacity * sizeof *grown);
        if (!grown) {
            kb_change_points_free(&cp);
            return kb_fail(KB_ENOMEM, "out of memory for change points");
        }
        r->findings = grown;
        r->capacity = capacity;
    }
    for (int64_t i = 0; i < cp.count; i++) {
        r->findings[r->count++] = (kb_detect_finding){s, first, cp.points[i]};
        if (cp.points[i].regression)
            r->regressions++;
        else
            r->improvements++;
    }
    kb_change_points_free(&cp);
    return KB_OK;
}

void kb_detect_report_free(kb_detect_report *r) {
    free(r->findings);
    r->findings = NULL;
    r->count = r->capacity = 0;
}

/* ---- Pieces of text ---- */

static const kb_detect_point *point_before(const kb_detect_finding *f) {
    return &f->series->points[f->first + (size_t)f->point.index - 1];
}

static const kb_detect_point *point_after(const kb_detect_finding *f) {
    return &f->series->points[f->first + (size_t)f->point.index];
}

/* The run of the first point at the new level, counted from 1 over the whole series. */
static size_t run_number(const kb_detect_finding *f) {
    return f->first + (size_t)f->point.index + 1;
}

static const char *direction(const kb_detect_finding *f) {
    return f->point.regression ? "regression" : "improvement";
}

/* "1.23 ms [1.21 ms, 1.25 ms]": a level and its 95% confidence interval. */
static void level_text(char *buf, size_t size, double median, double low, double high) {
    char m[32], l[32], h[32];
    kb_format_duration(m, sizeof m, median);
    kb_format_duration(l, sizeof l, low);
    kb_format_duration(h, sizeof h, high);
    snprintf(buf, size, "%s [%s, %s]", m, l, h);
}

/* A commit as people read it: its first 10 characters; "?" when unknown. */
static void short_commit(char *buf, size_t size, const char *commit) {
    snprintf(buf, size, "%.10s", commit ? commit : "?");
}

static void settings_text(const kb_detect_report *r, char *buf, size_t size) {
    snprintf(buf, size,
             "E-divisive means, p <= %g (%d permutations), change >= %g%%, at least %lld runs "
             "per level",
             r->options.max_p, r->options.permutations, 100 * r->options.min_change,
             (long long)r->options.min_segment);
}

static void counts_text(const kb_detect_report *r, char *buf, size_t size) {
    if (r->count == 0)
        snprintf(buf, size, "no change points");
    else
        snprintf(buf, size, "%zu regression%s, %zu improvement%s", r->regressions,
                 kb_plural((long long)r->regressions), r->improvements,
                 kb_plural((long long)r->improvements));
}

/* ---- Table ---- */

static kb_status print_table(const kb_detect_report *r, FILE *out) {
    char settings[256], counts[128];
    settings_text(r, settings, sizeof settings);
    counts_text(r, counts, sizeof counts);
    fprintf(out, "kbench detect: %zu series, %zu points from %s; %s\n", r->nseries, r->npoints,
            r->source, settings);
    int case_width = 4, machine_width = 7;
    for (size_t i = 0; i < r->count; i++) {
        int c = (int)strlen(r->findings[i].series->case_name);
        int m = (int)strlen(r->findings[i].series->machine);
        case_width = c > case_width ? c : case_width;
        machine_width = m > machine_width ? m : machine_width;
    }
    if (r->count > 0)
        fprintf(out, "\n%-*s  %-*s  %5s  %-22s  %-30s  %-30s  %7s  %6s  %s\n", case_width, "case",
                machine_width, "machine", "run", "commits", "before [95% CI]", "after [95% CI]",
                "change", "p", "direction");
    for (size_t i = 0; i < r->count; i++) {
        const kb_detect_finding *f = &r->findings[i];
        char before[112], after[112], from[16], to[16], commits[40];
        level_text(before, sizeof before, f->point.before, f->point.before_low,
                   f->point.before_high);
        level_text(after, sizeof after, f->point.after, f->point.after_low, f->point.after_high);
        short_commit(from, sizeof from, point_before(f)->commit);
        short_commit(to, sizeof to, point_after(f)->commit);
        snprintf(commits, sizeof commits, "%s..%s", from, to);
        fprintf(out, "%-*s  %-*s  %5zu  %-22s  %-30s  %-30s  %+6.1f%%  %6.4f  %s\n", case_width,
                f->series->case_name, machine_width, f->series->machine, run_number(f), commits,
                before, after, 100 * f->point.change, f->point.p, direction(f));
    }
    fprintf(out, "\n%s\n", counts);
    return ferror(out) ? kb_fail(KB_EIO, "cannot write the report") : KB_OK;
}

/* ---- Markdown ---- */

/* The length of the repository's URL without the slashes it may end with, which the links
 * add themselves. */
static int url_length(const char *url) {
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        n--;
    return (int)n;
}

/* A commit as a link when the repository is known: [`abcdef0123`](URL/commit/FULL). */
static void markdown_commit(const kb_detect_report *r, const char *commit, FILE *out) {
    char shown[16];
    short_commit(shown, sizeof shown, commit);
    if (r->repository && commit)
        fprintf(out, "[`%s`](%.*s/commit/%s)", shown, url_length(r->repository), r->repository,
                commit);
    else
        fprintf(out, "`%s`", shown);
}

static void markdown_alert(const kb_detect_report *r, const kb_detect_finding *f, FILE *out) {
    const char *from = point_before(f)->commit, *to = point_after(f)->commit;
    char before[112], after[112];
    level_text(before, sizeof before, f->point.before, f->point.before_low, f->point.before_high);
    level_text(after, sizeof after, f->point.after, f->point.after_low, f->point.after_high);
    fprintf(out, "- **%+.1f%%** in `", 100 * f->point.change);
    kb_report_markdown_cell(out, f->series->case_name);
    fputs("`", out);
    if (f->series->machine[0]) {
        fputs(" on `", out);
        kb_report_markdown_cell(out, f->series->machine);
        fputs("`", out);
    }
    fprintf(out, " from run %zu, commit ", run_number(f));
    markdown_commit(r, to, out);
    fputs(" (the run before: ", out);
    markdown_commit(r, from, out);
    if (r->repository && from && to)
        fprintf(out, "; [the changes between](%.*s/compare/%s...%s)", url_length(r->repository),
                r->repository, from, to);
    fprintf(out, "): %s before, %s after, p = %.4f\n", before, after, f->point.p);
}

static kb_status print_markdown(const kb_detect_report *r, FILE *out) {
    char settings[256], counts[128];
    settings_text(r, settings, sizeof settings);
    counts_text(r, counts, sizeof counts);
    fprintf(out, "## kbench detect: %s\n\n", counts);
    for (int regression = 1; regression >= 0; regression--) {
        size_t n = regression ? r->regressions : r->improvements;
        if (n == 0)
            continue;
        fprintf(out, "**%s** (%s):\n\n", regression ? "Regressions" : "Improvements",
                regression ? "slower" : "faster");
        for (size_t i = 0; i < r->count; i++)
            if (r->findings[i].point.regression == (regression == 1))
                markdown_alert(r, &r->findings[i], out);
        fputs("\n", out);
    }
    fprintf(out, "<sub>%zu series, %zu points from ", r->nseries, r->npoints);
    kb_report_markdown_cell(out, r->source);
    fprintf(out, "; %s.</sub>\n", settings);
    return ferror(out) ? kb_fail(KB_EIO, "cannot write the report") : KB_OK;
}

/* ---- JSON ---- */

static json_t *level_json(double median, double low, double high) {
    return json_pack("{s:f, s:f, s:f}", "median_ns", median, "ci_low_ns", low, "ci_high_ns", high);
}

static json_t *commit_json(const char *commit) {
    return commit ? json_string(commit) : json_null();
}

static json_t *finding_json(const kb_detect_finding *f) {
    char time[32];
    kb_format_utc(time, sizeof time, point_after(f)->time);
    const kb_change_point *c = &f->point;
    return json_pack(
        "{s:s, s:s, s:I, s:o, s:o, s:s, s:o, s:o, s:f, s:f, s:s}", "case", f->series->case_name,
        "machine", f->series->machine, "run", (json_int_t)run_number(f), "commit_before",
        commit_json(point_before(f)->commit), "commit_after", commit_json(point_after(f)->commit),
        "time_after", time, "before", level_json(c->before, c->before_low, c->before_high), "after",
        level_json(c->after, c->after_low, c->after_high), "change", c->change, "p_value", c->p,
        "direction", direction(f));
}

static kb_status print_json(const kb_detect_report *r, FILE *out) {
    char since[32];
    json_t *changes = json_array();
    for (size_t i = 0; changes && i < r->count; i++)
        if (json_array_append_new(changes, finding_json(&r->findings[i])) != 0) {
            json_decref(changes);
            changes = NULL;
        }
    json_t *settings =
        json_pack("{s:f, s:i, s:f, s:I, s:o, s:o}", "max_p", r->options.max_p, "permutations",
                  r->options.permutations, "min_change", r->options.min_change, "min_segment",
                  (json_int_t)r->options.min_segment, "last",
                  r->last > 0 ? json_integer((json_int_t)r->last) : json_null(), "since",
                  r->since > 0 && kb_format_utc(since, sizeof since, r->since) ? json_string(since)
                                                                               : json_null());
    json_t *root = json_pack("{s:s, s:i, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:o}", "schema",
                             "kbench-detect", "schema_version", 1, "source", r->source,
                             "repository", r->repository ? json_string(r->repository) : json_null(),
                             "settings", settings, "series", (json_int_t)r->nseries, "points",
                             (json_int_t)r->npoints, "regressions", (json_int_t)r->regressions,
                             "improvements", (json_int_t)r->improvements, "change_points", changes);
    if (!root)
        return kb_fail(KB_ENOMEM, "out of memory for the JSON report");
    kb_status st = kb_json_write(out, root, KB_JSON_EXACT | JSON_INDENT(2));
    json_decref(root);
    return st;
}

kb_status kb_detect_report_print(const kb_detect_report *r, kb_results_format format, FILE *out) {
    switch (format) {
        case KB_RESULTS_MARKDOWN:
            return print_markdown(r, out);
        case KB_RESULTS_JSON:
            return print_json(r, out);
        default:
            return print_table(r, out);
    }
}

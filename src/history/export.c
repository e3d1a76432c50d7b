/* `history export`: every point of every series, as CSV or JSON, for other tools. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "core/internal.h"
#include "history/internal.h"
#include "util/internal.h"

#define EXPORT_SCHEMA "kbench-history-export"
#define EXPORT_VERSION 1

static const char *const columns[] = {"case",      "machine",          "build",  "run_id",
                                      "time",      "commit",           "branch", "median_ns",
                                      "ci_low_ns", "ci_high_ns",       "mad_ns", "n_samples",
                                      "gb_per_s",  "percent_of_bound", "flags"};
enum { ncolumns = sizeof columns / sizeof columns[0] };

/* Every double exactly; empty for unknown. */
static void real(FILE *out, double v) {
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    fputc(',', out);
}

static void csv_points(const kb_history_series *s, const kb_history_point *points, size_t n,
                       FILE *out) {
    for (size_t i = 0; i < n; i++) {
        const kb_history_point *p = &points[i];
        char time[32];
        kb_format_utc(time, sizeof time, p->time);
        kb_csv_field(out, s->case_name, false);
        kb_csv_field(out, s->machine, false);
        kb_csv_field(out, s->build, false);
        fprintf(out, "%" PRId64 ",", p->run_id);
        kb_csv_field(out, time, false);
        kb_csv_field(out, p->commit ? p->commit : "", false);
        kb_csv_field(out, p->branch ? p->branch : "", false);
        real(out, p->median_ns);
        real(out, p->ci_low_ns);
        real(out, p->ci_high_ns);
        real(out, p->mad_ns);
        fprintf(out, "%" PRId64 ",", p->nsamples);
        real(out, p->gb_per_s);
        real(out, p->percent_of_bound);
        kb_csv_field(out, p->flags, true);
    }
}

static kb_status csv_series(const kb_history_series *s, const kb_history_point *points, size_t n,
                            void *out) {
    csv_points(s, points, n, out);
    return KB_OK;
}

static kb_status json_series(const kb_history_series *s, const kb_history_point *points, size_t n,
                             void *array) {
    return kb_history_append_series(array, s, points, n);
}

kb_status kb_history_export(kb_history *h, const kb_history_select *select,
                            kb_results_format format, FILE *out) {
    if (format == KB_RESULTS_CSV) {
        for (int c = 0; c < ncolumns; c++)
            kb_csv_field(out, columns[c], c == ncolumns - 1);
        return kb_history_each(h, select, csv_series, out);
    }
    json_t *array = json_array();
    kb_status st = array ? kb_history_each(h, select, json_series, array)
                         : kb_fail(KB_ENOMEM, "out of memory");
    if (st == KB_OK)
        return kb_history_write_json(json_pack("{s:s, s:i, s:o}", "schema", EXPORT_SCHEMA,
                                               "schema_version", EXPORT_VERSION, "series", array),
                                     out);
    json_decref(array);
    return st;
}

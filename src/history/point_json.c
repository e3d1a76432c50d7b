/* Series and points as JSON, one shape for every report of the history. */
#include "core/internal.h"
#include "history/internal.h"
#include "util/internal.h"

/* A string, or null. */
static json_t *text_or_null(const char *s) {
    return s ? json_string(s) : json_null();
}

json_t *kb_history_point_json(const kb_history_point *p) {
    char time[32];
    kb_format_utc(time, sizeof time, p->time);
    return json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:s}", "run_id",
                     (json_int_t)p->run_id, "time", time, "commit", text_or_null(p->commit),
                     "branch", text_or_null(p->branch), "median_ns", kb_json_real(p->median_ns),
                     "ci_low_ns", kb_json_real(p->ci_low_ns), "ci_high_ns",
                     kb_json_real(p->ci_high_ns), "mad_ns", kb_json_real(p->mad_ns), "n_samples",
                     (json_int_t)p->nsamples, "gb_per_s", kb_json_real(p->gb_per_s),
                     "percent_of_bound", kb_json_real(p->percent_of_bound), "flags", p->flags);
}

json_t *kb_history_series_json(const kb_history_series *s) {
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "case", s->case_name, "machine", s->machine,
                     "machine_description", s->machine_description, "build", s->build,
                     "build_description", s->build_description, "length", (json_int_t)s->npoints);
}

kb_status kb_history_append_series(json_t *array, const kb_history_series *s,
                                   const kb_history_point *points, size_t n) {
    json_t *o = kb_history_series_json(s), *a = json_array();
    bool ok = o && a && json_object_set(o, "points", a) == 0;
    for (size_t i = 0; i < n && ok; i++)
        ok = json_array_append_new(a, kb_history_point_json(&points[i])) == 0;
    ok = ok && json_array_append(array, o) == 0;
    json_decref(a);
    json_decref(o);
    return ok ? KB_OK : kb_fail(KB_ENOMEM, "out of memory");
}

kb_status kb_history_write_json(json_t *value, FILE *out) {
    kb_status st = value ? kb_json_write(out, value, KB_JSON_EXACT | JSON_INDENT(2))
                         : kb_fail(KB_ENOMEM, "out of memory");
    json_decref(value);
    return st;
}

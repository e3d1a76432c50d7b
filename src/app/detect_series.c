/* The series `kbench detect --input FILE` reads, from JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/detect_series.h"
#include "core/internal.h"
#include "util/internal.h"

static void read_point(jfield *f, const json_t *item, kb_detect_point *p) {
    p->commit = jfield_strdup(f, item, "commit", true);
    const json_t *time = jfield_get(f, item, "time", J_STRING);
    if (time && !kb_parse_utc(json_string_value(time), &p->time))
        jfield_fail(f, "time", "expected a UTC time like 2025-01-31T12:00:00Z, found '%s'",
                    json_string_value(time));
    p->median_ns = jfield_number(f, item, "median", false);
    if (f->status == KB_OK && !(p->median_ns > 0 && isfinite(p->median_ns)))
        jfield_fail(f, "median", "expected a positive number, found %g", p->median_ns);
}

static void read_series(jfield *f, const json_t *item, kb_detect_series *s) {
    if (!json_is_object(item)) {
        jfield_fail(f, NULL, "expected an object, found %s", jfield_kind_name(item));
        return;
    }
    s->case_name = jfield_strdup(f, item, "case", false);
    s->machine =
        json_object_get(item, "machine") ? jfield_strdup(f, item, "machine", false) : kb_strdup("");
    if (f->status == KB_OK && !s->machine)
        f->status = kb_fail(KB_ENOMEM, "out of memory");
    const json_t *points = jfield_get(f, item, "points", J_ARRAY);
    if (!points || json_array_size(points) == 0)
        return;
    s->points = calloc(json_array_size(points), sizeof *s->points);
    if (!s->points) {
        f->status = kb_fail(KB_ENOMEM, "out of memory for %zu points", json_array_size(points));
        return;
    }
    size_t mark = jfield_push_key(f, "points"), i;
    const json_t *point;
    json_array_foreach(points, i, point) {
        if (f->status != KB_OK)
            break;
        size_t at = jfield_push_index(f, i);
        if (json_is_object(point))
            read_point(f, point, &s->points[s->npoints++]);
        else
            jfield_fail(f, NULL, "expected an object, found %s", jfield_kind_name(point));
        jfield_pop(f, at);
    }
    jfield_pop(f, mark);
}

static kb_status read_root(json_t *root, const char *label, void *out) {
    kb_detect_series_set *set = out;
    jfield f;
    jfield_init(&f, label);
    const json_t *series = root;
    if (json_is_object(root)) {
        series = jfield_get(&f, root, "series", J_ARRAY);
        set->repository = jfield_strdup(&f, root, "repository", true);
    } else if (!json_is_array(root)) {
        return jfield_fail(&f, NULL,
                           "expected an array of series or an object with \"series\", "
                           "found %s",
                           jfield_kind_name(root));
    }
    if (f.status != KB_OK || json_array_size(series) == 0)
        return f.status;
    set->series = calloc(json_array_size(series), sizeof *set->series);
    if (!set->series)
        return kb_fail(KB_ENOMEM, "out of memory for %zu series", json_array_size(series));
    size_t i;
    const json_t *item;
    json_array_foreach(series, i, item) {
        size_t at = jfield_push_index(&f, i);
        read_series(&f, item, &set->series[set->count++]);
        jfield_pop(&f, at);
        if (f.status != KB_OK)
            break;
    }
    return f.status;
}

kb_status kb_detect_series_read(const char *path, kb_detect_series_set *out) {
    memset(out, 0, sizeof *out);
    kb_status st = kb_json_read_file(path, false, read_root, out);
    if (st != KB_OK)
        kb_detect_series_set_free(out);
    return st;
}

void kb_detect_series_set_free(kb_detect_series_set *set) {
    for (size_t i = 0; i < set->count; i++) {
        kb_detect_series *s = &set->series[i];
        for (size_t k = 0; k < s->npoints; k++)
            free(s->points[k].commit);
        free(s->points);
        free(s->case_name);
        free(s->machine);
    }
    free(set->series);
    free(set->repository);
    memset(set, 0, sizeof *set);
}

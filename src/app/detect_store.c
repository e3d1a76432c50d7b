/* The series of a history store, for `kbench detect --db URL`. */
#include <stdlib.h>
#include <string.h>

#include "app/detect_series.h"
#include "core/internal.h"
#include "kbench/history.h"
#include "util/internal.h"

typedef struct reading {
    kb_detect_series_set *set;
    size_t capacity;
} reading;

/* A copy of one series of the store and its points, added to the set. */
static kb_status copy_series(const kb_history_series *from, const kb_history_point *points,
                             size_t count, void *context) {
    reading *r = context;
    kb_detect_series_set *set = r->set;
    if (set->count == r->capacity) {
        size_t capacity = 2 * r->capacity + 16;
        kb_detect_series *grown = realloc(set->series, capacity * sizeof *grown);
        if (!grown)
            return kb_fail(KB_ENOMEM, "out of memory for %zu series", capacity);
        set->series = grown;
        r->capacity = capacity;
    }
    kb_detect_series *s = &set->series[set->count++];
    *s = (kb_detect_series){
        .case_name = kb_strdup(from->case_name),
        .machine = kb_strdup(from->machine_description),
        .points = calloc(count ? count : 1, sizeof *s->points),
    };
    if (!s->case_name || !s->machine || !s->points)
        return kb_fail(KB_ENOMEM, "out of memory for the series of %s", from->case_name);
    for (size_t i = 0; i < count; i++, s->npoints++) {
        s->points[i] = (kb_detect_point){.time = points[i].time, .median_ns = points[i].median_ns};
        if (points[i].commit && !(s->points[i].commit = kb_strdup(points[i].commit)))
            return kb_fail(KB_ENOMEM, "out of memory for the series of %s", from->case_name);
    }
    return KB_OK;
}

kb_status kb_detect_series_from_store(const char *url, kb_detect_series_set *out) {
    memset(out, 0, sizeof *out);
    kb_history *h;
    kb_status st = kb_history_open(url, &h);
    if (st != KB_OK)
        return st;
    kb_history_select all = {0};
    reading r = {.set = out};
    st = kb_history_each(h, &all, copy_series, &r);
    kb_history_close(h);
    if (st != KB_OK)
        kb_detect_series_set_free(out);
    return st;
}

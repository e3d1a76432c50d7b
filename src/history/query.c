/* Reading the history: its series and the points of each. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "history/backend.h"
#include "util/internal.h"

static const char series_sql[] =
    "SELECT s.id, s.name, m.fingerprint, m.description, b.fingerprint, b.description,"
    " (SELECT COUNT(*) FROM cases c WHERE c.series_id = s.id AND c.status = 'ok')"
    " FROM series s JOIN machines m ON m.id = s.machine_id JOIN builds b ON b.id = s.build_id";
static const char series_order[] = " ORDER BY s.name, m.fingerprint, b.fingerprint";

/* A copy of a column's text; "" for NULL. NULL when out of memory. */
static char *text_of(kb_history *h, kb_stmt *s, int i) {
    const char *t = h->b->column_text(s, i);
    return kb_strdup(t ? t : "");
}

/* Grows an array of n items to hold one more; capacity doubles. */
static kb_status reserve(void **items, size_t n, size_t *cap, size_t size) {
    if (n < *cap)
        return KB_OK;
    size_t grown = *cap ? 2 * *cap : 64;
    void *p = realloc(*items, grown * size);
    if (!p)
        return kb_fail(KB_ENOMEM, "out of memory");
    *items = p;
    *cap = grown;
    return KB_OK;
}

kb_status kb_history_series_list(kb_history *h, const kb_history_select *select,
                                 kb_history_series **series, size_t *count) {
    *series = NULL;
    *count = 0;
    const kb_history_select none = {0};
    if (!select)
        select = &none;
    char sql[sizeof series_sql + sizeof series_order + 32];
    snprintf(sql, sizeof sql, "%s%s%s", series_sql, select->case_name ? " WHERE s.name = ?" : "",
             series_order);
    kb_stmt *s;
    kb_status st = h->b->prepare(h->db, sql, &s);
    if (st != KB_OK)
        return st;
    if (select->case_name)
        st = h->b->bind_text(s, 1, select->case_name);
    size_t cap = 0;
    bool row = true;
    while (st == KB_OK && (st = h->b->step(s, &row)) == KB_OK && row) {
        const char *machine = h->b->column_text(s, 2);
        int64_t npoints = h->b->column_int(s, 6);
        /* A series whose every case failed has no points to show. */
        if (npoints == 0 ||
            (select->machine && strncmp(machine, select->machine, strlen(select->machine)) != 0))
            continue;
        if ((st = reserve((void **)series, *count, &cap, sizeof **series)) != KB_OK)
            break;
        kb_history_series *x = &(*series)[(*count)++];
        memset(x, 0, sizeof *x);
        x->id = h->b->column_int(s, 0);
        x->npoints = npoints;
        if (!(x->case_name = text_of(h, s, 1)) || !(x->machine = text_of(h, s, 2)) ||
            !(x->machine_description = text_of(h, s, 3)) || !(x->build = text_of(h, s, 4)) ||
            !(x->build_description = text_of(h, s, 5)))
            st = kb_fail(KB_ENOMEM, "out of memory");
    }
    h->b->finalize(s);
    if (st != KB_OK) {
        kb_history_series_free(*series, *count);
        *series = NULL;
        *count = 0;
    }
    return st;
}

void kb_history_series_free(kb_history_series *series, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(series[i].case_name);
        free(series[i].machine);
        free(series[i].machine_description);
        free(series[i].build);
        free(series[i].build_description);
    }
    free(series);
}

/* Newest first, so that LIMIT keeps the last points; reversed after reading. */
static const char points_sql[] =
    "SELECT r.id, r.started_at, r.git_commit, r.git_branch, c.median_ns, c.ci_low_ns,"
    " c.ci_high_ns, c.mad_ns, c.n_samples, c.gb_per_s, c.percent_of_bound, c.flags"
    " FROM cases c JOIN runs r ON r.id = c.run_id"
    " WHERE c.series_id = ? AND c.status = 'ok' AND r.started_at >= ?"
    " ORDER BY r.started_at DESC, r.id DESC LIMIT ?";

kb_status kb_history_points(kb_history *h, int64_t series_id, const kb_history_select *select,
                            kb_history_point **points, size_t *count) {
    *points = NULL;
    *count = 0;
    /* Prepared once: a report reads the points of thousands of series. */
    kb_status st = h->points ? KB_OK : h->b->prepare(h->db, points_sql, &h->points);
    if (st != KB_OK)
        return st;
    kb_stmt *s = h->points;
    int64_t since = select && select->since ? select->since : INT64_MIN;
    int64_t last = select && select->last > 0 ? select->last : INT64_MAX;
    if ((st = h->b->bind_int(s, 1, series_id)) == KB_OK &&
        (st = h->b->bind_int(s, 2, since)) == KB_OK)
        st = h->b->bind_int(s, 3, last);
    size_t cap = 0;
    bool row = true;
    while (st == KB_OK && (st = h->b->step(s, &row)) == KB_OK && row) {
        if ((st = reserve((void **)points, *count, &cap, sizeof **points)) != KB_OK)
            break;
        kb_history_point *p = &(*points)[(*count)++];
        memset(p, 0, sizeof *p);
        p->run_id = h->b->column_int(s, 0);
        p->time = h->b->column_int(s, 1);
        const char *commit = h->b->column_text(s, 2), *branch = h->b->column_text(s, 3);
        p->median_ns = h->b->column_double(s, 4);
        p->ci_low_ns = h->b->column_double(s, 5);
        p->ci_high_ns = h->b->column_double(s, 6);
        p->mad_ns = h->b->column_double(s, 7);
        p->nsamples = h->b->column_int(s, 8);
        p->gb_per_s = h->b->column_double(s, 9);
        p->percent_of_bound = h->b->column_double(s, 10);
        if ((commit && !(p->commit = kb_strdup(commit))) ||
            (branch && !(p->branch = kb_strdup(branch))) || !(p->flags = text_of(h, s, 11)))
            st = kb_fail(KB_ENOMEM, "out of memory");
    }
    h->b->reset(s);
    if (st != KB_OK) {
        kb_history_points_free(*points, *count);
        *points = NULL;
        *count = 0;
        return st;
    }
    for (size_t i = 0, j = *count; i + 1 < j; i++, j--) {
        kb_history_point t = (*points)[i];
        (*points)[i] = (*points)[j - 1];
        (*points)[j - 1] = t;
    }
    return KB_OK;
}

void kb_history_points_free(kb_history_point *points, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(points[i].commit);
        free(points[i].branch);
        free(points[i].flags);
    }
    free(points);
}

kb_status kb_history_each(kb_history *h, const kb_history_select *select, kb_history_series_fn fn,
                          void *context) {
    kb_history_series *series;
    size_t nseries;
    kb_status st = kb_history_series_list(h, select, &series, &nseries);
    for (size_t i = 0; i < nseries && st == KB_OK; i++) {
        kb_history_point *points;
        size_t n;
        if ((st = kb_history_points(h, series[i].id, select, &points, &n)) == KB_OK && n > 0)
            st = fn(&series[i], points, n, context);
        kb_history_points_free(points, n);
    }
    kb_history_series_free(series, nseries);
    return st;
}

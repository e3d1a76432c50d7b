#ifndef KB_HISTORY_INTERNAL_H
#define KB_HISTORY_INTERNAL_H

/* What the history layer offers the layers below it beyond kbench/history.h: its reports, in
 * the formats of kb_results_format. Other folders include this header, never history's
 * others. */

#include <stdio.h>

#include <jansson.h>

#include "kbench/history.h"
#include "kbench/results.h"

/* `history list`: a row per series (table, markdown or json) with its length, its last point
 * and its last change point (kb_history_change_points). */
kb_status kb_history_report_list(kb_history *h, const kb_history_select *select,
                                 kb_results_format format, FILE *out);

/* `history show`: every series of select->case_name (required), point by point, with CIs and
 * commits. KB_EINVAL when there is none. */
kb_status kb_history_report_show(kb_history *h, const kb_history_select *select,
                                 kb_results_format format, FILE *out);

/* `history export`: every point of every series, csv (a row per point) or json (the series
 * with their points), docs/history.md. */
kb_status kb_history_export(kb_history *h, const kb_history_select *select,
                            kb_results_format format, FILE *out);

/* A point as JSON, as every report writes it; NULL when out of memory. */
json_t *kb_history_point_json(const kb_history_point *p);

/* A series' identity as JSON (case, machine and build with their descriptions, its length),
 * the object the reports add their own keys to; NULL when out of memory. */
json_t *kb_history_series_json(const kb_history_series *s);

/* Writes value (NULL: out of memory) to out as kbench writes JSON, and releases it. */
kb_status kb_history_write_json(json_t *value, FILE *out);

/* Appends to array the series' JSON with its points under "points". */
kb_status kb_history_append_series(json_t *array, const kb_history_series *s,
                                   const kb_history_point *points, size_t n);

#endif

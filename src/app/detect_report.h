#ifndef KB_APP_DETECT_REPORT_H
#define KB_APP_DETECT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app/detect_series.h"
#include "kbench/change_points.h"
#include "kbench/results.h"

/* What `kbench detect` found, and how it says so: a table, a markdown alert ready to be an
 * issue or a pull-request comment, or JSON (docs/cli.md). */

typedef struct kb_detect_finding {
    const kb_detect_series *series;
    size_t first; /* the series' index of the first point the detector saw (--last, --since) */
    kb_change_point point; /* its indices count from first */
} kb_detect_finding;

typedef struct kb_detect_report {
    kb_change_options options;
    const char *source;      /* the input's name, for the header */
    const char *repository;  /* URL of the commits, or NULL: no links */
    int64_t last, since;     /* the window: last N points, points since (epoch s); 0: none */
    size_t nseries, npoints; /* series and points looked at */
    kb_detect_finding *findings;
    size_t count, capacity;
    size_t regressions, improvements;
} kb_detect_report;

/* Looks for change points in the window of one series and adds them to the report. KB_EINVAL
 * naming the series when its values cannot be searched; KB_ENOMEM. */
kb_status kb_detect_report_add(kb_detect_report *r, const kb_detect_series *series);

void kb_detect_report_free(kb_detect_report *r);

/* KB_EIO when writing fails. */
kb_status kb_detect_report_print(const kb_detect_report *r, kb_results_format format, FILE *out);

#endif

#ifndef KB_APP_DETECT_SERIES_H
#define KB_APP_DETECT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"

/* The series `kbench detect` looks at: one case on one machine, one point per run, oldest
 * first, from a JSON file (--input) or a history store (--db), which hands over the same
 * things (case, machine, and per run its time, commit and median). */

typedef struct kb_detect_point {
    int64_t time;     /* when the run started, seconds since the epoch, UTC */
    char *commit;     /* NULL when unknown */
    double median_ns; /* the run's median time per call */
} kb_detect_point;

typedef struct kb_detect_series {
    char *case_name;
    char *machine; /* "" when not given */
    kb_detect_point *points;
    size_t npoints;
} kb_detect_series;

typedef struct kb_detect_series_set {
    kb_detect_series *series;
    size_t count;
    char *repository; /* the commits' repository URL when the input names it; else NULL */
} kb_detect_series_set;

/* Reads the series of a JSON file: an array of series, or an object with "series" (that
 * array) and "repository" (a URL, or null). A series is {"case": NAME, "machine": NAME
 * (optional), "points": [{"commit": SHA or null, "time": "2025-01-31T12:00:00Z",
 * "median": NS}, ...]}, oldest point first; other keys (ci_low, ci_high, ...) are ignored.
 * KB_EIO for a file that cannot be read, KB_EFORMAT with one line naming the file and the
 * field ("s.json: [2].points[7].median: expected a positive number, found -1"); KB_ENOMEM.
 * out is empty after a failure; free it with kb_detect_series_set_free either way. */
kb_status kb_detect_series_read(const char *path, kb_detect_series_set *out);

/* The series of a history store (kbench history, include/kbench/history.h): each series of
 * the store (one case, machine and build), the machine named by its description, the points
 * oldest first. The store keeps no repository URL. */
kb_status kb_detect_series_from_store(const char *url, kb_detect_series_set *out);

void kb_detect_series_set_free(kb_detect_series_set *set);

#endif

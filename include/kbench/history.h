#ifndef KBENCH_HISTORY_H
#define KBENCH_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbench/change_points.h"
#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The history: every run ingested from results files, kept in SQLite or PostgreSQL behind one
 * interface (docs/history.md). A series is one case name measured on one machine (its
 * fingerprint) with one build configuration; runs from different machines or builds never mix
 * in a series. A point of a series is one run's summary of that case, oldest first. */

typedef struct kb_history kb_history;

/* The store a URL names: "sqlite:PATH" or a bare PATH (SQLite), "postgresql://..." or
 * "postgres://..." (PostgreSQL, a libpq connection URI). The file of a SQLite store and its
 * directory are created when missing; the schema is brought to the current version, each
 * migration once, whoever else opens the store at the same time. KB_EINVAL for a URL of no
 * known kind, KB_EUNSUPPORTED for PostgreSQL in a build without libpq or where libpq (libpq.so.5,
 * loaded when the first PostgreSQL store is opened) cannot be loaded, KB_EIO when the store cannot
 * be opened or migrated. *out is NULL on failure. */
kb_status kb_history_open(const char *url, kb_history **out);

/* Closes the store; NULL allowed. */
void kb_history_close(kb_history *h);

/* The URL of the default store into buf: $KB_HISTORY_DB when set and not empty, else
 * "$XDG_DATA_HOME/kbench/history.sqlite" ($XDG_DATA_HOME defaulting to ~/.local/share).
 * KB_EINVAL when neither KB_HISTORY_DB, XDG_DATA_HOME nor HOME is set, or buf is too small. */
kb_status kb_history_default_url(char *buf, size_t size);

/* "sqlite" or "postgresql". */
const char *kb_history_backend_name(const kb_history *h);

/* The schema version the store is at (the highest migration applied). */
kb_status kb_history_schema_version(kb_history *h, int *version);

/* An ingested run's commit and branch when the file does not say, or says otherwise: NULL
 * keeps the file's (context.git_commit and context.git_branch of a kbench results file,
 * "unknown" being none; Google Benchmark output records neither). */
typedef struct kb_history_add_options {
    const char *commit;
    const char *branch;
} kb_history_add_options;

/* What an ingest did. */
typedef struct kb_history_added {
    int64_t run_id;   /* the run's id, the existing one for a duplicate */
    bool duplicate;   /* the same bytes were stored before: nothing was written */
    int ncases;       /* cases in the file */
    const char *kind; /* "kbench" or "google-benchmark" */
} kb_history_added;

/* Stores the run in a kbench results file (docs/results-schema.md) or Google Benchmark JSON
 * output, in one transaction: all of it or, on any failure, nothing. A file whose bytes were
 * stored before is not stored again (added->duplicate). A malformed file is KB_EFORMAT with one
 * line naming the file and the field ("r.json: cases[3].statistics.median_ns: missing"); a
 * file that cannot be read KB_EIO; a failure of the store KB_EIO. options may be NULL. */
kb_status kb_history_add_file(kb_history *h, const char *path,
                              const kb_history_add_options *options, kb_history_added *added);

/* Stores each of n files as kb_history_add_file does, each in its transaction, and calls done
 * after each, in order, with its status (kb_last_error() holds the message of a failure
 * during the call) and what was added. The next files are read on the threads in force
 * (kb_threads_set) while the ones before are stored. Returns KB_OK, or the failure that kept the
 * store from taking any file (the files' own failures go to done). */
typedef void (*kb_history_added_fn)(const char *path, kb_status status,
                                    const kb_history_added *added, void *context);
kb_status kb_history_add_files(kb_history *h, const char *const *paths, int n,
                               const kb_history_add_options *options, kb_history_added_fn done,
                               void *context);

/* Deletes the runs that started before the given time (seconds since the epoch, UTC), their
 * cases and samples, and the series left without points, in one transaction. *removed counts
 * the runs deleted. */
kb_status kb_history_prune(kb_history *h, int64_t before, int64_t *removed);

/* ---- Reading ---- */

/* Which series and points to read; zeroed, everything. */
typedef struct kb_history_select {
    const char *case_name; /* only series of this case name, exactly; NULL: all */
    const char *machine;   /* only machines whose fingerprint starts with this; NULL: all */
    int64_t since;         /* only points of runs that started at or after (epoch s); 0: all */
    int last;              /* only the last N points of each series; 0: all */
} kb_history_select;

/* A series: a case on a machine with a build. The strings belong to the array. */
typedef struct kb_history_series {
    int64_t id;                /* for kb_history_points */
    char *case_name;           /* "reduce/sum/f32/64x64/axis=None/simd=avx2/threads=1" */
    char *machine;             /* the machine's fingerprint, 16 hex digits */
    char *machine_description; /* "AMD EPYC 9654, x86_64, 2 logical CPUs (host ci-3)" */
    char *build;               /* the build configuration's fingerprint, 16 hex digits */
    char *build_description;   /* "Release, GCC 12.2.0, -O3 -DNDEBUG, simd scalar avx2" */
    int64_t npoints;           /* points in the series, whatever select says */
} kb_history_series;

/* A point: one run's summary of the series' case. The strings belong to the array. Times are
 * nanoseconds per call. Cases that failed in a run are stored, but are no point. */
typedef struct kb_history_point {
    int64_t run_id;
    int64_t time; /* when the run started, seconds since the epoch, UTC */
    char *commit; /* NULL when unknown */
    char *branch; /* NULL when unknown */
    double median_ns;
    double ci_low_ns; /* the 95% confidence interval of the median */
    double ci_high_ns;
    double mad_ns; /* median absolute deviation, unscaled */
    int64_t nsamples;
    double gb_per_s;         /* NAN when the case declares no bytes */
    double percent_of_bound; /* % of the roofline bound; NAN without a roofline */
    char *flags;             /* "suspicious-high,unstable": roofline flags, then "unstable";
                              * "" when none */
} kb_history_point;

/* The series that select picks (case_name, machine; since and last are ignored), ordered by
 * case name, machine, build. The caller frees them with kb_history_series_free. */
kb_status kb_history_series_list(kb_history *h, const kb_history_select *select,
                                 kb_history_series **series, size_t *count);
void kb_history_series_free(kb_history_series *series, size_t count);

/* The points of one series, oldest first (by run start, then run id), of the runs select
 * picks (since, last). The caller frees them with kb_history_points_free. */
kb_status kb_history_points(kb_history *h, int64_t series_id, const kb_history_select *select,
                            kb_history_point **points, size_t *count);
void kb_history_points_free(kb_history_point *points, size_t count);

/* Calls fn with each series that select picks (as kb_history_series_list) and its points (as
 * kb_history_points), in order; a series left without points by select is skipped. The
 * arguments are valid during the call. Stops at fn's first failure and returns it. */
typedef kb_status (*kb_history_series_fn)(const kb_history_series *series,
                                          const kb_history_point *points, size_t count,
                                          void *context);
kb_status kb_history_each(kb_history *h, const kb_history_select *select, kb_history_series_fn fn,
                          void *context);

/* The change points of a series (oldest point first): kb_change_points_detect with the
 * default options (kb_change_options_default, as `kbench detect`) over the points' medians.
 * points[out->points[k].index] is the first point at the new level. KB_EINVAL when a median is
 * not positive. The caller frees out with kb_change_points_free, also after a failure. */
kb_status kb_history_change_points(const kb_history_point *points, size_t count,
                                   kb_change_points *out);

#ifdef __cplusplus
}
#endif

#endif

/* `kbench detect`: the change points of every series, a regression alert, a CI gate. */
#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/detect_report.h"
#include "app/detect_series.h"
#include "app/options.h"
#include "app/usage.h"
#include "kbench/history.h"
#include "bench/internal.h"
#include "core/internal.h"
#include "util/internal.h"

static const char *const command = "kbench detect";

/* --since: a UTC time as kbench writes it (2025-01-31T12:00:00Z), or a day (2025-01-31, from
 * its midnight UTC). */
static kb_status parse_since(const char *name, const char *value, void *target) {
    char full[40];
    bool day = strlen(value) == 10;
    snprintf(full, sizeof full, "%s%s", value, day ? "T00:00:00Z" : "");
    if (strlen(value) >= 30 || !kb_parse_utc(full, target))
        return kb_option_bad(name, value, "a UTC day or time: 2025-01-31, 2025-01-31T12:00:00Z");
    return KB_OK;
}

/* The store's URL as the report names it: a PostgreSQL URL without its password (in the
 * user information or as a password= parameter), since the report goes into issues and
 * artifacts that others read. NULL when out of memory. */
static char *redacted_url(const char *url) {
    size_t n = strlen(url);
    char *out = malloc(2 * n + 4), *o = out;
    if (!out)
        return NULL;
    bool pg = strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0;
    const char *host = pg ? strstr(url, "://") + 3 : url;
    const char *authority_end = host + strcspn(host, "/?#");
    const char *at = memchr(host, '@', (size_t)(authority_end - host));
    const char *colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL; /* user:password@ */
    for (const char *c = url; *c;) {
        bool param = pg && c > authority_end && (c[-1] == '?' || c[-1] == '&') &&
                     strncmp(c, "password=", 9) == 0;
        if (colon && c == colon + 1) {
            o += sprintf(o, "***");
            c = at;
            colon = NULL; /* an empty password leaves c where it was */
        } else if (param) {
            o += sprintf(o, "password=***");
            c += 9 + strcspn(c + 9, "&#");
        } else
            *o++ = *c++;
    }
    *o = '\0';
    return out;
}

typedef struct detect_args {
    const char *input, *db, *repository;
    int last;
    int64_t since;
    kb_results_format format;
    bool fail_on_regression;
} detect_args;

static int detect(const detect_args *a, const kb_arg_list *filters,
                  const kb_change_options *options) {
    kb_name_filter filter;
    if (kb_name_filter_init(&filter, filters->items, filters->count) != KB_OK)
        return kb_usage_error(command, "%s", kb_last_error());
    kb_detect_series_set set;
    char *redacted = !a->input && a->db ? redacted_url(a->db) : NULL;
    if (!a->input && a->db && !redacted) {
        kb_name_filter_free(&filter);
        return kb_usage_error(command, "out of memory");
    }
    const char *source = a->input ? a->input : redacted;
    if ((a->input ? kb_detect_series_read(a->input, &set)
                  : kb_detect_series_from_store(a->db, &set)) != KB_OK) {
        kb_name_filter_free(&filter);
        free(redacted);
        fprintf(stderr, "%s: %s\n", command, kb_last_error());
        return KB_EXIT_USAGE;
    }
    kb_detect_report report = {
        .options = *options,
        .source = source,
        .repository = a->repository ? a->repository : set.repository,
        .last = a->last,
        .since = a->since,
    };
    kb_status st = KB_OK;
    size_t kept = 0;
    for (size_t i = 0; i < set.count && st == KB_OK; i++)
        if (kb_name_filter_keeps(&filter, set.series[i].case_name)) {
            kept++;
            st = kb_detect_report_add(&report, &set.series[i]);
        }
    int status = KB_EXIT_OK;
    if (st != KB_OK) {
        fprintf(stderr, "%s: %s: %s\n", command, source, kb_last_error());
        status = KB_EXIT_USAGE;
    } else if (filters->count > 0 && kept == 0) {
        status = kb_usage_error(command, "no series of %s matches the filters", source);
    } else if (kb_detect_report_print(&report, a->format, stdout) != KB_OK) {
        status = kb_report_failure(command);
    } else if (a->fail_on_regression && report.regressions > 0) {
        fprintf(stderr, "%s: %zu regression%s\n", command, report.regressions,
                kb_plural((long long)report.regressions));
        status = KB_EXIT_FAILURE;
    }
    kb_detect_report_free(&report);
    kb_detect_series_set_free(&set);
    kb_name_filter_free(&filter);
    free(redacted);
    return status;
}

int kb_cmd_detect(int argc, char **argv) {
    kb_change_options options;
    kb_change_options_default(&options);
    detect_args a = {.format = KB_RESULTS_TABLE};
    kb_arg_list filters = {0};
    int min_segment = (int)options.min_segment;
    const kb_option table[] = {
        {KB_OPTION_GROUP, .help = "series"},
        {KB_OPTION_STRING, 0, "db", "URL", &a.db, .once = true,
         .help = "read the series of the history at URL (PATH, sqlite:PATH, postgresql://...; "
                 "default $KB_HISTORY_DB, else the user's history: kbench history --help)"},
        {KB_OPTION_STRING, 0, "input", "FILE", &a.input, .once = true,
         .help = "read the series from FILE instead: JSON, [{\"case\":..., \"machine\":..., "
                 "\"points\":[{\"commit\":..., \"time\":..., \"median\":...}, ...]}, ...]"},
        {KB_OPTION_REPEATED, 'f', "filter", "REGEX", &filters,
         .help = "look at the cases whose name matches, as kbench run --filter (a leading '-' "
                 "excludes); repeatable"},
        {KB_OPTION_INT, 0, "last", "N", &a.last, .min = 1, .max = 1000000,
         .expected = "a whole number from 1", .help = "look at the last N runs of each series"},
        {KB_OPTION_STRING, 0, "since", "DATE", &a.since, parse_since,
         .help = "look at the runs since DATE (2025-01-31 or 2025-01-31T12:00:00Z, UTC)"},
        {KB_OPTION_GROUP, .help = "detector"},
        {KB_OPTION_DOUBLE, 0, "max-p", "P", &options.max_p, .min = DBL_TRUE_MIN,
         .max = 1 - DBL_EPSILON / 2, .expected = "a number between 0 and 1",
         .help = "a change needs a permutation p-value of at most P (default " KB_STRING(
             KB_CHANGE_DEFAULT_MAX_P) ")"},
        {KB_OPTION_STRING, 0, "min-change", "C", &options.min_change, kb_option_fraction,
         .help = "a change needs its level to move by at least C: 0.02 or 2% (default " KB_STRING(
             KB_CHANGE_DEFAULT_MIN_CHANGE) ")"},
        {KB_OPTION_INT, 0, "min-segment", "N", &min_segment, .min = 2, .max = 1000000,
         .expected = "a whole number from 2",
         .help = "a level needs at least N runs (default " KB_STRING(
             KB_CHANGE_DEFAULT_MIN_SEGMENT) ")"},
        {KB_OPTION_GROUP, .help = "output"},
        {KB_OPTION_STRING, 0, "format", "F", &a.format, kb_option_report_format,
         .help = "table (default), markdown (an alert for an issue or a pull request) or json"},
        {KB_OPTION_STRING, 0, "repo-url", "URL", &a.repository,
         .help = "link the commits in markdown to URL/commit/SHA (default: the input's "
                 "\"repository\")"},
        {KB_OPTION_FLAG, 0, "fail-on-regression", .target = &a.fail_on_regression,
         .help = "exit 1 when a change point is a regression"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis = "usage: kbench detect [--db URL | --input FILE] [--filter RE]\n"
                    "                     [--last N | --since DATE]\n"
                    "                     [--format table|markdown|json] "
                    "[--fail-on-regression]\n\n"
                    "Finds where each series of run medians changed level, by E-divisive means\n"
                    "with a permutation test and a minimum change, and says for each change\n"
                    "point the case, the commits before and after, the levels with their 95%\n"
                    "confidence intervals, the change in % and its p-value, and whether it is\n"
                    "a regression (slower) or an improvement. A series is one case on one\n"
                    "machine, its points oldest first. kbench's history documentation explains\n"
                    "the detector and how its defaults were measured.\n\n",
        .options = table,
        .epilogue = "exit status: 0 searched (1 with --fail-on-regression when a change point\n"
                    "is a regression), 2 bad arguments or an input that cannot be read or\n"
                    "holds an invalid series.\n",
    };
    int status;
    char default_db[4096];
    if (kb_program_parse(&program, argc, argv, NULL, &status)) {
        options.min_segment = min_segment;
        if (a.input && a.db)
            status = kb_usage_error(command, "--db and --input exclude each other");
        else if (!a.input && !a.db &&
                 kb_history_default_url(default_db, sizeof default_db) != KB_OK)
            status = kb_report_failure(command);
        else if (a.last > 0 && a.since > 0)
            status = kb_usage_error(command, "--last and --since exclude each other");
        else if (kb_change_options_check(&options) != KB_OK)
            status = kb_usage_error(command, "%s", kb_last_error());
        else if ((status = kb_check_settings(command)) == KB_EXIT_OK) {
            if (!a.input && !a.db)
                a.db = default_db;
            status = detect(&a, &filters, &options);
        }
    }
    kb_arg_list_free(&filters);
    return status;
}

/* `kbench history`: runs stored in SQLite or PostgreSQL (add), and their series read back
 * (list, show, export) or pruned. */
#include <stdio.h>
#include <time.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "history/internal.h"
#include "util/internal.h"

#define HISTORY_EXIT_STATUS                                                                        \
    "exit status: 0 success, 1 failure (a file that cannot be read or is not a\n"                  \
    "results file, a store that cannot be opened or written, no such series),\n"                   \
    "2 bad arguments.\n"

#define HISTORY_ENVIRONMENT                                                                        \
    "environment: KB_HISTORY_DB=URL is the default store, else\n"                                  \
    "$XDG_DATA_HOME/kbench/history.sqlite (~/.local/share when XDG_DATA_HOME is unset).\n"

#define DB_OPTION(url)                                                                             \
    {                                                                                              \
        KB_OPTION_STRING, 0, "db", "URL", &(url),                                                  \
            .help = "the store: PATH or sqlite:PATH (SQLite), postgresql://... (PostgreSQL); "     \
                    "default: KB_HISTORY_DB or ~/.local/share/kbench/history.sqlite"               \
    }
#define MACHINE_OPTION(select)                                                                     \
    {                                                                                              \
        KB_OPTION_STRING, 0, "machine", "M", &(select).machine,                                    \
            .help = "only machines whose fingerprint starts with M"                                \
    }
#define LAST_OPTION(select)                                                                        \
    {                                                                                              \
        KB_OPTION_INT, 0, "last", "N", &(select).last,                                             \
            .min = 1, .max = 1e9, .expected = "a count from 1",                                    \
            .help = "only the last N points of each series"                                        \
    }

static kb_status parse_export_format(const char *name, const char *value, void *target) {
    kb_results_format format;
    if (kb_results_format_parse(value, &format) != KB_OK ||
        (format != KB_RESULTS_CSV && format != KB_RESULTS_JSON))
        return kb_option_bad(name, value, "csv or json");
    *(kb_results_format *)target = format;
    return KB_OK;
}

#define FORMAT_OPTION(format)                                                                      \
    {                                                                                              \
        KB_OPTION_STRING, 0, "format", "F", &(format), kb_option_report_format,                    \
            .help = "stdout as table (default), markdown or json"                                  \
    }

/* The store the options name, or the default one; NULL after saying why. */
static kb_history *open_store(const char *program, const char *url) {
    char fallback[4096];
    kb_history *h = NULL;
    if (!url && kb_history_default_url(fallback, sizeof fallback) == KB_OK)
        url = fallback;
    if (!url || kb_history_open(url, &h) != KB_OK) {
        kb_report_failure(program);
        return NULL;
    }
    return h;
}

typedef struct adding {
    const char *program;
    int status;
} adding;

static void added_one(const char *path, kb_status status, const kb_history_added *added,
                      void *context) {
    adding *a = context;
    if (status != KB_OK)
        a->status = kb_report_failure(a->program);
    else if (added->duplicate)
        printf("%s: already stored as run %lld\n", path, (long long)added->run_id);
    else
        printf("%s: stored as run %lld, %d case%s (%s)\n", path, (long long)added->run_id,
               added->ncases, kb_plural(added->ncases), added->kind);
}

static int add(const char *program, const char *url, const kb_arg_list *files,
               const kb_history_add_options *options) {
    kb_history *h = open_store(program, url);
    if (!h)
        return KB_EXIT_FAILURE;
    adding a = {program, KB_EXIT_OK};
    if (kb_history_add_files(h, files->items, files->count, options, added_one, &a) != KB_OK)
        a.status = kb_report_failure(program);
    kb_history_close(h);
    return a.status;
}

static int run_add(int argc, char **argv) {
    const char *url = NULL;
    kb_history_add_options options = {0};
    const kb_option table[] = {
        DB_OPTION(url),
        {KB_OPTION_STRING, 0, "commit", "C", &options.commit,
         .help = "the commit the runs measured (default: the file's context.git_commit)"},
        {KB_OPTION_STRING, 0, "branch", "B", &options.branch,
         .help = "the branch the runs measured (default: the file's context.git_branch)"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench history add",
        .synopsis =
            "usage: kbench history add RESULTS.json... [--db URL] [--commit C] [--branch B]\n\n"
            "Stores each file's run: when, the commit and branch, the machine (a\n"
            "fingerprint of its CPU, caches and architecture) and the build, and per case\n"
            "its summary (median, CI, MAD, samples, GB/s, % of bound, flags) and its raw\n"
            "samples. kbench results files and Google Benchmark JSON output are read.\n"
            "Each file is one transaction: stored whole or not at all. A file stored\n"
            "before (the same bytes) is not stored again. A malformed file is refused\n"
            "with one line naming the file and the field; the others are still stored.\n\n",
        .options = table,
        .epilogue = HISTORY_ENVIRONMENT HISTORY_EXIT_STATUS,
    };
    kb_arg_list files = {0};
    int status;
    if (kb_program_parse(&program, argc, argv, &files, &status)) {
        if (files.count < 1)
            status = kb_usage_error(program.name, "missing RESULTS.json");
        else if ((status = kb_check_settings(program.name)) == KB_EXIT_OK)
            status = add(program.name, url, &files, &options);
    }
    kb_arg_list_free(&files);
    return status;
}

typedef kb_status (*report_fn)(kb_history *h, const kb_history_select *select,
                               kb_results_format format, FILE *out);

/* Opens the store, runs a report into stdout, closes it. */
static int report(const char *program, const char *url, report_fn fn,
                  const kb_history_select *select, kb_results_format format) {
    kb_history *h = open_store(program, url);
    if (!h)
        return KB_EXIT_FAILURE;
    int status = fn(h, select, format, stdout) == KB_OK ? KB_EXIT_OK : kb_report_failure(program);
    kb_history_close(h);
    return status;
}

/* The subcommands that read: each takes these options, and show a CASE too. */
typedef struct reader {
    const char *url;
    kb_history_select select;
    kb_results_format format;
} reader;

static int run_reader(int argc, char **argv, const kb_program *program, reader *r, report_fn fn,
                      bool takes_case) {
    kb_arg_list args = {0};
    int status;
    if (kb_program_parse(program, argc, argv, &args, &status)) {
        if (takes_case && args.count < 1)
            status = kb_usage_error(program->name, "missing CASE");
        else if (args.count > (takes_case ? 1 : 0))
            status = kb_usage_error(program->name, "unexpected argument '%s'",
                                    args.items[takes_case ? 1 : 0]);
        else if ((status = kb_check_settings(program->name)) == KB_EXIT_OK) {
            r->select.case_name = takes_case ? args.items[0] : NULL;
            status = report(program->name, r->url, fn, &r->select, r->format);
        }
    }
    kb_arg_list_free(&args);
    return status;
}

static int run_list(int argc, char **argv) {
    reader r = {.format = KB_RESULTS_TABLE};
    const kb_option table[] = {
        DB_OPTION(r.url),        MACHINE_OPTION(r.select), LAST_OPTION(r.select),
        FORMAT_OPTION(r.format), {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench history list",
        .synopsis =
            "usage: kbench history list [--db URL] [--machine M] [--last N] [--format F]\n\n"
            "Lists the series (a case on one machine with one build): their length, the\n"
            "last median and its commit, and the last change: the last change point that\n"
            "kbench detect's detector (with its defaults) finds in the series, as the change\n"
            "of level and the commit of the first run at the new level.\n\n",
        .options = table,
        .epilogue = HISTORY_ENVIRONMENT HISTORY_EXIT_STATUS,
    };
    return run_reader(argc, argv, &program, &r, kb_history_report_list, false);
}

static int run_show(int argc, char **argv) {
    reader r = {.format = KB_RESULTS_TABLE};
    const kb_option table[] = {
        DB_OPTION(r.url),        MACHINE_OPTION(r.select), LAST_OPTION(r.select),
        FORMAT_OPTION(r.format), {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench history show",
        .synopsis = "usage: kbench history show CASE [--machine M] [--db URL] [--last N]\n"
                    "                           [--format F]\n\n"
                    "Shows each series of the case (one per machine and build), point by point,\n"
                    "oldest first: when, commit, branch, median with its 95% confidence\n"
                    "interval, MAD, samples, GB/s, % of the roofline bound, flags.\n\n",
        .options = table,
        .epilogue = HISTORY_ENVIRONMENT HISTORY_EXIT_STATUS,
    };
    return run_reader(argc, argv, &program, &r, kb_history_report_show, true);
}

static int run_export(int argc, char **argv) {
    reader r = {.format = KB_RESULTS_CSV};
    const kb_option table[] = {
        DB_OPTION(r.url),
        MACHINE_OPTION(r.select),
        {KB_OPTION_STRING, 0, "format", "F", &r.format, parse_export_format,
         .help = "csv (default; a row per point) or json (the series with their points)"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench history export",
        .synopsis = "usage: kbench history export [--format csv|json] [--db URL] [--machine M]\n\n"
                    "Writes every point of every series to stdout, every number exactly:\n"
                    "csv (case, machine, build, run, time, commit, branch, median, CI, MAD,\n"
                    "samples, GB/s, % of bound, flags) or json.\n\n",
        .options = table,
        .epilogue = HISTORY_ENVIRONMENT HISTORY_EXIT_STATUS,
    };
    return run_reader(argc, argv, &program, &r, kb_history_export, false);
}

static int prune(const char *program, const char *url, int keep_days) {
    kb_history *h = open_store(program, url);
    if (!h)
        return KB_EXIT_FAILURE;
    int64_t before = (int64_t)time(NULL) - (int64_t)keep_days * 86400, removed;
    int status = KB_EXIT_OK;
    if (kb_history_prune(h, before, &removed) != KB_OK) {
        status = kb_report_failure(program);
    } else {
        char when[32];
        kb_format_utc(when, sizeof when, before);
        printf("removed %lld run%s that started before %s\n", (long long)removed,
               kb_plural(removed), when);
    }
    kb_history_close(h);
    return status;
}

static int run_prune(int argc, char **argv) {
    const char *url = NULL;
    int keep_days = -1;
    const kb_option table[] = {
        DB_OPTION(url),
        {KB_OPTION_INT, 0, "keep-days", "N", &keep_days, .min = 0, .max = 1000000,
         .expected = "a number of days from 0",
         .help = "keep the runs that started in the last N days (required)"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = "kbench history prune",
        .synopsis = "usage: kbench history prune --keep-days N [--db URL]\n\n"
                    "Removes the runs that started more than N days ago, with their cases and\n"
                    "samples, and the series, machines and builds left without runs, in one\n"
                    "transaction.\n\n",
        .options = table,
        .epilogue = HISTORY_ENVIRONMENT HISTORY_EXIT_STATUS,
    };
    int status;
    if (kb_program_parse(&program, argc, argv, NULL, &status)) {
        if (keep_days < 0)
            status = kb_usage_error(program.name, "missing --keep-days N");
        else if ((status = kb_check_settings(program.name)) == KB_EXIT_OK)
            status = prune(program.name, url, keep_days);
    }
    return status;
}

int kb_cmd_history(int argc, char **argv) {
    const kb_option options[] = {{.kind = KB_OPTION_END}};
    const kb_program program = {
        .name = "kbench history",
        .synopsis = "usage: kbench history add RESULTS.json... [--db URL]\n"
                    "       kbench history list | show CASE | export | prune --keep-days N\n\n"
                    "Every run remembered, in SQLite (a file) or PostgreSQL (a server): a series\n"
                    "is one case on one machine with one build, point by point.\n\n"
                    "subcommands:\n"
                    "  add     store results files (kbench or Google Benchmark JSON)\n"
                    "  list    the series, their last value and last change\n"
                    "  show    one case's series, point by point\n"
                    "  export  every point as csv or json\n"
                    "  prune   remove old runs\n\n",
        .options = options,
        .epilogue =
            "'kbench history SUBCOMMAND --help' describes a subcommand.\n" HISTORY_ENVIRONMENT
                HISTORY_EXIT_STATUS,
        .flags = KB_OPTIONS_STOP_AT_ARGUMENT,
    };
    static const kb_subcommand subcommands[] = {
        {"add", run_add},       {"list", run_list},   {"show", run_show},
        {"export", run_export}, {"prune", run_prune}, {NULL, NULL},
    };
    return kb_program_run_subcommand(&program, argc, argv, subcommands);
}

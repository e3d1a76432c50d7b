/* `kbench report`: results files, and optionally a comparison, as one self-contained HTML
 * page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "core/internal.h"
#include "kbench/compare.h"
#include "kbench/history.h"
#include "kbench/report.h"
#include "kbench/results.h"

static const char *const command = "kbench report";

static kb_status check_output(const char *name, const char *path, void *target) {
    size_t n = strlen(path);
    if (n < 5 || (strcmp(path + n - 5, ".html") != 0 && strcmp(path + n - 4, ".htm") != 0))
        return kb_option_bad(name, path, "an .html file");
    kb_status st = kb_atomic_write_possible(path);
    if (st == KB_OK)
        *(const char **)target = path;
    return st;
}

/* What the options ask for. */
typedef struct request {
    const char *base, *head; /* --compare */
    bool allow_different_machines;
    const char *db; /* --db: the history view */
    int last;
    const char *output;
} request;

static int report(const kb_arg_list *paths, const request *q) {
    int n = paths->count, status = KB_EXIT_OK;
    kb_results *runs = calloc((size_t)n + 1, sizeof *runs);
    if (!runs)
        return kb_usage_error(command, "out of memory");
    for (int i = 0; i < n && status == KB_EXIT_OK; i++)
        if (kb_results_load(paths->items[i], &runs[i]) != KB_OK)
            status = kb_report_failure(command);
    kb_comparison comparison;
    bool compared = false;
    if (status == KB_EXIT_OK && q->base) {
        kb_compare_options options;
        kb_compare_options_default(&options);
        options.allow_different_machines = q->allow_different_machines;
        if (kb_compare_files(q->base, q->head, &options, &comparison) != KB_OK)
            status = kb_report_failure(command);
        compared = status == KB_EXIT_OK;
    }
    kb_history *history = NULL;
    if (status == KB_EXIT_OK && q->db && kb_history_open(q->db, &history) != KB_OK)
        status = kb_report_failure(command);
    if (status == KB_EXIT_OK) {
        kb_report_input input = {runs,    paths->items,     n, compared ? &comparison : NULL,
                                 history, {.last = q->last}};
        if (kb_report_html_save(&input, q->output) != KB_OK)
            status = kb_report_failure(command);
        else
            fprintf(stderr, "%s: wrote %s\n", command, q->output);
    }
    kb_history_close(history);
    if (compared)
        kb_comparison_free(&comparison);
    for (int i = 0; i < n; i++)
        kb_results_free(&runs[i]);
    free(runs);
    return status;
}

int kb_cmd_report(int argc, char **argv) {
    /* --compare takes two files, which the option parser's one value cannot: they are taken
     * out of the arguments first. */
    request q = {0};
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args)
        return kb_usage_error(command, "out of memory");
    int nargs = 0;
    bool options_end = false;
    for (int i = 0; i < argc; i++) {
        options_end = options_end || strcmp(argv[i], "--") == 0;
        if (!options_end && i > 0 && strcmp(argv[i], "--compare") == 0) {
            if (i + 2 >= argc || q.base) {
                free(args);
                return kb_usage_error(command, q.base ? "--compare given twice"
                                                      : "--compare expects two files, BASE NEW");
            }
            q.base = argv[++i];
            q.head = argv[++i];
            continue;
        }
        args[nargs++] = argv[i];
    }
    args[nargs] = NULL;

    const kb_option table[] = {
        {KB_OPTION_STRING, 'o', "output", "FILE", &q.output, check_output,
         .help = "the report (.html); required"},
        {KB_OPTION_FLAG, 0, "allow-different-machines", .target = &q.allow_different_machines,
         .help = "with --compare: compare files from different machines or builds"},
        {KB_OPTION_STRING, 0, "db", "URL", &q.db,
         .help = "add the history view of this store: PATH or sqlite:PATH (SQLite), "
                 "postgresql://... (PostgreSQL)"},
        {KB_OPTION_INT, 0, "last", "N", &q.last, .min = 1, .max = 1e9, .expected = "a count from 1",
         .help = "with --db: the last N runs of each series"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis =
            "usage: kbench report [RESULTS.json...] [--db URL [--last N]]\n"
            "                     [--compare BASE.json NEW.json] -o FILE.html\n\n"
            "Writes one self-contained HTML page (inline CSS, SVG charts and a little\n"
            "JavaScript; nothing loaded from the network): for each results file its\n"
            "overview and flag counts, roofline chart, load bandwidth curve, speedups over\n"
            "the baselines, speedups of fused expressions over eager, and a sortable,\n"
            "filterable table of cases; with --db, the history\n"
            "view: every series of the store as a chart of its medians with their CIs and\n"
            "the change points kbench detect finds, the regressed first, and a table; with\n"
            "--compare BASE NEW, kbench compare's verdicts as a chart of ratios and a table.\n\n",
        .options = table,
        .epilogue = "exit status: 0 written, 1 input that cannot be read or compared, or a\n"
                    "store that cannot be opened (nothing is written), 2 bad arguments.\n",
    };
    kb_arg_list paths = {0};
    int status;
    if (kb_program_parse(&program, nargs, args, &paths, &status)) {
        if (paths.count == 0 && !q.base && !q.db)
            status =
                kb_usage_error(command, "expected results files, --db URL or --compare BASE NEW");
        else if (!q.output)
            status = kb_usage_error(command, "expected -o FILE.html");
        else if (q.last && !q.db)
            status = kb_usage_error(command, "--last needs --db");
        else
            status = report(&paths, &q);
    }
    kb_arg_list_free(&paths);
    free(args);
    return status;
}

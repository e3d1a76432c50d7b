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

static int report(const kb_arg_list *paths, const char *base, const char *head,
                  bool allow_different_machines, const char *output) {
    int n = paths->count, status = KB_EXIT_OK;
    kb_results *runs = calloc((size_t)n + 1, sizeof *runs);
    if (!runs)
        return kb_usage_error(command, "out of memory");
    for (int i = 0; i < n && status == KB_EXIT_OK; i++)
        if (kb_results_load(paths->items[i], &runs[i]) != KB_OK)
            status = kb_report_failure(command);
    kb_comparison comparison;
    bool compared = false;
    if (status == KB_EXIT_OK && base) {
        kb_compare_options options;
        kb_compare_options_default(&options);
        options.allow_different_machines = allow_different_machines;
        if (kb_compare_files(base, head, &options, &comparison) != KB_OK)
            status = kb_report_failure(command);
        compared = status == KB_EXIT_OK;
    }
    if (status == KB_EXIT_OK) {
        kb_report_input input = {runs, paths->items, n, compared ? &comparison : NULL};
        if (kb_report_html_save(&input, output) != KB_OK)
            status = kb_report_failure(command);
        else
            fprintf(stderr, "%s: wrote %s\n", command, output);
    }
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
    const char *base = NULL, *head = NULL;
    char **args = malloc(((size_t)argc + 1) * sizeof *args);
    if (!args)
        return kb_usage_error(command, "out of memory");
    int nargs = 0;
    bool options_end = false;
    for (int i = 0; i < argc; i++) {
        options_end = options_end || strcmp(argv[i], "--") == 0;
        if (!options_end && i > 0 && strcmp(argv[i], "--compare") == 0) {
            if (i + 2 >= argc || base) {
                free(args);
                return kb_usage_error(command, base ? "--compare given twice"
                                                    : "--compare expects two files, BASE NEW");
            }
            base = argv[++i];
            head = argv[++i];
            continue;
        }
        args[nargs++] = argv[i];
    }
    args[nargs] = NULL;

    const char *output = NULL;
    bool allow_different_machines = false;
    const kb_option table[] = {
        {KB_OPTION_STRING, 'o', "output", "FILE", &output, check_output,
         .help = "the report (.html); required"},
        {KB_OPTION_FLAG, 0, "allow-different-machines", .target = &allow_different_machines,
         .help = "with --compare: compare files from different machines or builds"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis =
            "usage: kbench report [RESULTS.json...] [--compare BASE.json NEW.json] -o FILE.html\n\n"
            "Writes one self-contained HTML page (inline CSS, SVG charts and a little\n"
            "JavaScript; nothing loaded from the network): for each results file its\n"
            "overview and flag counts, roofline chart, load bandwidth curve, speedups over\n"
            "the baselines and a sortable, filterable table of cases; with --compare BASE\n"
            "NEW, kbench compare's verdicts as a chart of ratios and a table.\n\n",
        .options = table,
        .epilogue = "exit status: 0 written, 1 input that cannot be read or compared (nothing is\n"
                    "written), 2 bad arguments.\n",
    };
    kb_arg_list paths = {0};
    int status;
    if (kb_program_parse(&program, nargs, args, &paths, &status)) {
        if (paths.count == 0 && !base)
            status = kb_usage_error(command, "expected results files or --compare BASE NEW");
        else if (!output)
            status = kb_usage_error(command, "expected -o FILE.html");
        else
            status = report(&paths, base, head, allow_different_machines, output);
    }
    kb_arg_list_free(&paths);
    free(args);
    return status;
}

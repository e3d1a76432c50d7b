/* `kbench compare`: matches two results files case by case and says what changed. */
#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "app/options.h"
#include "app/usage.h"
#include "core/internal.h"
#include "kbench/compare.h"
#include "util/strings.h"

static const char *const command = "kbench compare";

/* The format the name of an output file asks for: .json or .md. */
static kb_status output_format(const char *path, kb_results_format *format) {
    if (kb_results_format_of_path(path, format) != KB_OK || *format == KB_RESULTS_CSV)
        return kb_fail(KB_EINVAL,
                       "cannot tell the format of '%s' from its extension (.json or .md)", path);
    return KB_OK;
}

static kb_status add_output(const char *name, const char *value, void *target) {
    kb_results_format format;
    kb_status st = output_format(value, &format);
    return st == KB_OK ? kb_arg_list_push(target, value) : st;
}

typedef struct output {
    const kb_comparison *comparison;
    kb_results_format format;
} output;

static kb_status print_output(FILE *f, void *context) {
    const output *o = context;
    return kb_comparison_print(o->comparison, o->format, false, f);
}

/* Written as every output is (kb_atomic_write: where the path points, whole or not at all). */
static int write_output(const kb_comparison *c, const char *path) {
    output o = {.comparison = c};
    output_format(path, &o.format); /* known good: checked when the option was parsed */
    if (kb_atomic_write(path, print_output, &o) != KB_OK) {
        fprintf(stderr, "%s: %s\n", command, kb_last_error());
        return KB_EXIT_USAGE;
    }
    return KB_EXIT_OK;
}

/* head_path NULL: the A/B run in base_path. */
static int compare(const char *base_path, const char *head_path, kb_compare_options *options,
                   const kb_arg_list *filters, const kb_arg_list *outputs, kb_results_format format,
                   bool fail_on_regression) {
    options->filters = filters->items;
    options->nfilters = filters->count;

    kb_comparison c;
    kb_status st = head_path ? kb_compare_files(base_path, head_path, options, &c)
                             : kb_compare_ab(base_path, options, &c);
    if (st != KB_OK) {
        const char *hint = "";
        if (st == KB_EINVAL && strstr(kb_last_error(), "different machines or builds"))
            hint = " (--allow-different-machines compares them anyway)";
        fprintf(stderr, "%s: %s%s\n", command, kb_last_error(), hint);
        return KB_EXIT_USAGE;
    }
    const char *no_colour = getenv("NO_COLOR");
    bool colour = format == KB_RESULTS_TABLE && isatty(fileno(stdout)) &&
                  !(no_colour && no_colour[0] != '\0');
    int status = KB_EXIT_OK;
    if (kb_comparison_print(&c, format, colour, stdout) != KB_OK) {
        fprintf(stderr, "%s: %s\n", command, kb_last_error());
        status = KB_EXIT_USAGE;
    }
    for (int i = 0; i < outputs->count && status == KB_EXIT_OK; i++)
        status = write_output(&c, outputs->items[i]);
    /* The table and markdown on stdout state the warnings themselves; JSON, read by
     * programs, has them on stderr as well, for the person who runs the command. */
    bool warn = status == KB_EXIT_OK && format == KB_RESULTS_JSON;
    if (warn && c.ndifferences > 0)
        fprintf(stderr,
                "%s: warning: %s and %s come from different machines or "
                "builds; compared as --allow-different-machines asks\n",
                command, c.base_label, c.head_label);
    char note[512];
    for (int head = 0; head < 2 && warn; head++)
        if (kb_comparison_load_note(&c, head, note, sizeof note))
            fprintf(stderr, "%s: warning: %s\n", command, note);
    if (status == KB_EXIT_OK && fail_on_regression && kb_comparison_regressed(&c)) {
        fprintf(stderr, "%s: %d case%s regressed\n", command, c.counts[KB_VERDICT_REGRESSED],
                kb_plural(c.counts[KB_VERDICT_REGRESSED]));
        status = KB_EXIT_FAILURE;
    }
    kb_comparison_free(&c);
    return status;
}

int kb_cmd_compare(int argc, char **argv) {
    kb_compare_options options;
    kb_compare_options_default(&options);
    kb_arg_list paths = {0}, filters = {0}, outputs = {0};
    kb_results_format format = KB_RESULTS_TABLE;
    bool fail_on_regression = false, ab = false;
    const kb_option table[] = {
        {KB_OPTION_STRING, 0, "threshold", "T", &options.threshold, kb_option_fraction,
         .help = "smallest change that counts: 0.05 or 5% (default " KB_STRING(
             KB_COMPARE_DEFAULT_THRESHOLD) "); a bare 5 would mean 500% and is refused"},
        {KB_OPTION_DOUBLE, 0, "alpha", "A", &options.alpha, .min = DBL_TRUE_MIN,
         .max = 1 - DBL_EPSILON / 2, .expected = "a number between 0 and 1",
         .help =
             "significance level of the test (default " KB_STRING(KB_COMPARE_DEFAULT_ALPHA) ")"},
        {KB_OPTION_REPEATED, 'f', "filter", "REGEX", &filters,
         .help = "compare the cases whose name matches, as kbench run --filter (a leading '-' "
                 "excludes); repeatable"},
        {KB_OPTION_STRING, 0, "format", "F", &format, kb_option_report_format,
         .help = "stdout as table (default), markdown or json"},
        {KB_OPTION_REPEATED, 'o', "output", "FILE", &outputs, add_output,
         .help = "also write to FILE, in the format its extension names (.json, .md); "
                 "repeatable"},
        {KB_OPTION_FLAG, 0, "fail-on-regression", .target = &fail_on_regression,
         .help = "exit 1 when any case regressed"},
        {KB_OPTION_FLAG, 0, "ab", .target = &ab,
         .help = "compare within one run of kbench run --baseline kbench=PATH: the other build "
                 "as BASE, this build's simd=auto cases as NEW (one file)"},
        {KB_OPTION_FLAG, 0, "allow-different-machines", .target = &options.allow_different_machines,
         .help = "compare files from different machines or builds (otherwise refused); the "
                 "output says so"},
        {.kind = KB_OPTION_END},
    };
    const kb_program program = {
        .name = command,
        .synopsis =
            "usage: kbench compare BASE NEW [OPTIONS]\n"
            "       kbench compare --ab RUN [OPTIONS]\n\n"
            "Compares two runs case by case: medians, the ratio NEW/BASE of the times\n"
            "(above 1 is slower) with its 95% bootstrap confidence interval, the p-value\n"
            "of a two-sided Mann-Whitney U test on the raw times per call, and a verdict:\n"
            "regressed or improved (beyond the threshold and p < alpha), noisy (beyond the\n"
            "threshold, not significant), unchanged, new, missing, failed. BASE and NEW are\n"
            "kbench results files (kbench run -o FILE.json) or Google Benchmark JSON output\n"
            "(--benchmark_repetitions=N --benchmark_format=json), both of one kind.\n"
            "kbench's compare documentation explains the statistics and the defaults.\n\n",
        .options = table,
        .epilogue = "Colour on a terminal unless NO_COLOR is set.\n"
                    "exit status: 0 compared (1 with --fail-on-regression when a case regressed),\n"
                    "2 bad arguments, unreadable or invalid input, different machines or builds,\n"
                    "or an output that cannot be written.\n",
    };
    int status;
    if (kb_program_parse(&program, argc, argv, &paths, &status)) {
        int want = ab ? 1 : 2;
        if (paths.count < want)
            status = kb_usage_error(command, ab ? "expected one file, the A/B run"
                                                : "expected two files, BASE and NEW");
        else if (paths.count > want)
            status = kb_usage_error(command, "unexpected argument '%s' (%s given)",
                                    paths.items[want], ab ? "the A/B run" : "BASE and NEW");
        else if ((status = kb_check_settings(command)) == KB_EXIT_OK)
            status = compare(paths.items[0], ab ? NULL : paths.items[1], &options, &filters,
                             &outputs, format, fail_on_regression);
    }
    kb_arg_list_free(&paths);
    kb_arg_list_free(&filters);
    kb_arg_list_free(&outputs);
    return status;
}

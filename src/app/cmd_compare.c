#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "app/usage.h"
#include "kbench/compare.h"

#define MAX_OPTION_VALUES 32

static void print_help(FILE *out) {
    fprintf(out,
            "usage: kbench compare BASE NEW [OPTIONS]\n\n"
            "Compares two runs case by case: medians, the ratio NEW/BASE of the times\n"
            "(above 1 is slower) with its 95%% bootstrap confidence interval, the p-value\n"
            "of a two-sided Mann-Whitney U test on the raw times per call, and a verdict:\n"
            "regressed or improved (beyond the threshold and p < alpha), noisy (beyond the\n"
            "threshold, not significant), unchanged, new, missing, failed. BASE and NEW are\n"
            "kbench results files (kbench run -o FILE.json) or Google Benchmark JSON output\n"
            "(--benchmark_repetitions=N --benchmark_format=json), both of one kind.\n"
            "docs/compare.md explains the statistics and the defaults.\n\n"
            "options:\n"
            "      --threshold T    smallest change that counts: 0.05 or 5%% (default %g)\n"
            "      --alpha A        significance level of the test (default %g)\n"
            "  -f, --filter REGEX   compare the cases whose name matches, as kbench run\n"
            "                       --filter (a leading '-' excludes); repeatable\n"
            "      --format F       stdout as table (default), markdown or json\n"
            "  -o, --output FILE    also write to FILE, in the format its extension names\n"
            "                       (.json, .md); repeatable\n"
            "      --fail-on-regression  exit 1 when any case regressed\n"
            "      --allow-different-machines  compare files from different machines or\n"
            "                       builds (otherwise refused); the output says so\n"
            "  -h, --help           show this help\n\n"
            "Colour on a terminal unless NO_COLOR is set.\n"
            "exit status: 0 compared (1 with --fail-on-regression when a case regressed),\n"
            "2 bad arguments, unreadable or invalid input, different machines or builds,\n"
            "or an output that cannot be written.\n",
            KB_COMPARE_DEFAULT_THRESHOLD, KB_COMPARE_DEFAULT_ALPHA);
}

/* "0.05" or "5%". */
static bool parse_fraction(const char *text, bool percent_allowed, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno != 0)
        return false;
    if (percent_allowed && *end == '%') {
        v /= 100;
        end++;
    }
    if (*end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static const char *option_value(int argc, char **argv, int *i, const char *name) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (strcmp(arg, name) != 0)
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

static bool is_option(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strcmp(arg, name) == 0 || (strncmp(arg, name, n) == 0 && arg[n] == '=');
}

static int write_output(const kb_comparison *c, const char *path) {
    kb_results_format format;
    if (kb_results_format_of_path(path, &format) != KB_OK || format == KB_RESULTS_CSV)
        return kb_usage_error("compare",
                              "cannot tell the format of '%s' from its extension "
                              "(.json or .md)",
                              path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "kbench compare: %s: %s\n", path, strerror(errno));
        return KB_EXIT_USAGE;
    }
    kb_status st = kb_comparison_print(c, format, false, f);
    if (fclose(f) != 0 && st == KB_OK) {
        fprintf(stderr, "kbench compare: %s: %s\n", path, strerror(errno));
        return KB_EXIT_USAGE;
    }
    if (st != KB_OK) {
        fprintf(stderr, "kbench compare: %s: %s\n", path, kb_last_error());
        return KB_EXIT_USAGE;
    }
    return KB_EXIT_OK;
}

int kb_cmd_compare(int argc, char **argv) {
    if (kb_wants_help(argc, argv)) {
        print_help(stdout);
        return KB_EXIT_OK;
    }
    kb_compare_options options;
    kb_compare_options_default(&options);
    const char *filters[MAX_OPTION_VALUES], *outputs[MAX_OPTION_VALUES], *paths[2];
    int nfilters = 0, noutputs = 0, npaths = 0;
    kb_results_format format = KB_RESULTS_TABLE;
    bool fail_on_regression = false, only_paths = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (only_paths || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (npaths == 2)
                return kb_usage_error("compare", "unexpected argument '%s' (BASE and NEW given)",
                                      arg);
            paths[npaths++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            only_paths = true;
        } else if ((v = option_value(argc, argv, &i, "--threshold"))) {
            if (!parse_fraction(v, true, &options.threshold) || !(options.threshold > 0))
                return kb_usage_error("compare",
                                      "--threshold wants a positive fraction or percentage "
                                      "(0.05, 5%%), not '%s'",
                                      v);
        } else if ((v = option_value(argc, argv, &i, "--alpha"))) {
            if (!parse_fraction(v, false, &options.alpha) ||
                !(options.alpha > 0 && options.alpha < 1))
                return kb_usage_error("compare", "--alpha wants a number between 0 and 1, not '%s'",
                                      v);
        } else if ((v = option_value(argc, argv, &i, "--filter")) ||
                   (v = option_value(argc, argv, &i, "-f"))) {
            if (nfilters == MAX_OPTION_VALUES)
                return kb_usage_error("compare", "at most %d filters", MAX_OPTION_VALUES);
            if (!*v)
                return kb_usage_error("compare", "%s needs a regular expression", arg);
            filters[nfilters++] = v;
        } else if ((v = option_value(argc, argv, &i, "--format"))) {
            if (kb_results_format_parse(v, &format) != KB_OK || format == KB_RESULTS_CSV)
                return kb_usage_error("compare", "--format wants table, markdown or json, not '%s'",
                                      v);
        } else if ((v = option_value(argc, argv, &i, "--output")) ||
                   (v = option_value(argc, argv, &i, "-o"))) {
            if (noutputs == MAX_OPTION_VALUES)
                return kb_usage_error("compare", "at most %d outputs", MAX_OPTION_VALUES);
            if (!*v)
                return kb_usage_error("compare", "%s needs a file name", arg);
            outputs[noutputs++] = v;
        } else if (is_option(arg, "--fail-on-regression")) {
            fail_on_regression = true;
        } else if (is_option(arg, "--allow-different-machines")) {
            options.allow_different_machines = true;
        } else {
            return kb_usage_error("compare", "unknown option '%s'", arg);
        }
    }
    if (npaths < 2)
        return kb_usage_error("compare", "expected two files, BASE and NEW");
    for (int i = 0; i < noutputs; i++) {
        kb_results_format f;
        if (kb_results_format_of_path(outputs[i], &f) != KB_OK || f == KB_RESULTS_CSV)
            return kb_usage_error("compare",
                                  "cannot tell the format of '%s' from its extension (.json or "
                                  ".md)",
                                  outputs[i]);
    }
    options.filters = filters;
    options.nfilters = nfilters;

    kb_comparison c;
    kb_status st = kb_compare_files(paths[0], paths[1], &options, &c);
    if (st != KB_OK) {
        const char *hint = "";
        if (st == KB_EINVAL && strstr(kb_last_error(), "different machines or builds"))
            hint = " (--allow-different-machines compares them anyway)";
        fprintf(stderr, "kbench compare: %s%s\n", kb_last_error(), hint);
        return KB_EXIT_USAGE;
    }
    const char *no_colour = getenv("NO_COLOR");
    bool colour = format == KB_RESULTS_TABLE && isatty(fileno(stdout)) &&
                  !(no_colour && no_colour[0] != '\0');
    int status = KB_EXIT_OK;
    st = kb_comparison_print(&c, format, colour, stdout);
    if (fflush(stdout) != 0 || st != KB_OK) {
        fprintf(stderr, "kbench compare: %s\n", st != KB_OK ? kb_last_error() : strerror(errno));
        status = KB_EXIT_USAGE;
    }
    for (int i = 0; i < noutputs && status == KB_EXIT_OK; i++)
        status = write_output(&c, outputs[i]);
    if (status == KB_EXIT_OK && c.ndifferences > 0)
        fprintf(stderr,
                "kbench compare: warning: %s and %s come from different machines or "
                "builds; compared as --allow-different-machines asks\n",
                c.base_label, c.head_label);
    char note[512];
    for (int head = 0; head < 2 && status == KB_EXIT_OK; head++)
        if (kb_comparison_load_note(&c, head, note, sizeof note))
            fprintf(stderr, "kbench compare: warning: %s\n", note);
    if (status == KB_EXIT_OK && fail_on_regression && kb_comparison_regressed(&c)) {
        fprintf(stderr, "kbench compare: %d case%s regressed\n", c.counts[KB_VERDICT_REGRESSED],
                c.counts[KB_VERDICT_REGRESSED] == 1 ? "" : "s");
        status = KB_EXIT_FAILURE;
    }
    kb_comparison_free(&c);
    return status;
}

/* The program behind `kbench run`, `kbench list` and kb_bench_main: options, plan, run,
 * output. Everything it prints goes through here and run_display.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbench/bench_main.h"
#include "kbench/results.h"
#include "app/bench_program.h"
#include "app/bench_options.h"
#include "results/internal.h"
#include "app/run_display.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static void print_help(const char *program, bool list, bool builtin) {
    const char *suites = builtin ? " [SUITE ...]" : "";
    if (list)
        printf("usage: %s%s [--filter REGEX ...] [--shard K/N]\n\n"
               "Lists the cases a run with the same arguments would measure, one name per line,\n"
               "in the order they run.\n\n",
               program, suites);
    else
        printf("usage: %s%s [OPTIONS]\n\n"
               "Measures each case: calibrated samples, warm-up, interleaved implementations,\n"
               "robust statistics (docs/measurement.md). Prints a table on stdout and progress\n"
               "on stderr; -o writes the results (docs/results-schema.md).\n\n",
               program, suites);
    if (builtin) {
        printf("suites (default: quick):\n");
        for (const char *const *s = kb_bench_suite_names(); *s; s++)
            printf("  %-10s %s\n", *s, kb_bench_suite_summary(*s));
        printf("\n");
    }
    printf("selection:\n"
           "  -f, --filter REGEX   keep cases whose name matches REGEX (POSIX extended, anywhere\n"
           "                       in the name); a leading '-' excludes instead; repeatable: a\n"
           "                       case is kept if it matches any including filter (or there is\n"
           "                       none) and no excluding one\n"
           "      --shard K/N      keep part K of N (1 <= K <= N): deterministic, balanced by\n"
           "                       estimated cost, each case in exactly one part\n");
    if (!list)
        printf(
            "\nmeasurement:\n"
            "      --min-time S     seconds of samples per case (default %g)\n"
            "      --min-samples N  at least N samples per case (default and minimum %d)\n"
            "      --repetitions N  repeat the whole measurement N times (default 1)\n"
            "      --cache hot|cold cold reads a buffer twice the last-level cache before\n"
            "                       each sample (default hot)\n"
            "      --pin            pin this thread and each OpenMP thread to its own core\n"
            "      --baseline LIB   also time each case with numpy, numexpr, torch or jax\n"
            "                       (repeatable), interleaved, on the same input, and check\n"
            "                       the results agree (docs/baselines.md)\n"
            "\nroofline (docs/roofline.md):\n"
            "      --peaks FILE     hold results against the peaks in FILE (kbench peaks --json)\n"
            "                       instead of this machine's, cached or measured once (~15 s)\n"
            "      --quick-peaks    short peak measurements (seconds; for tests, not numbers)\n"
            "      --no-roofline    no peaks, no roofline metrics, no plausibility flags\n"
            "      --allow-impossible  exit 0 even when a result is above 100%% of its bound\n"
            "\noutput:\n"
            "  -o, --output FILE    also write the results to FILE, in the format its\n"
            "                       extension names: .json, .csv or .md; repeatable\n"
            "      --format F       stdout as table (default), csv, markdown or json\n"
            "  -q, --quiet          no progress on stderr\n",
            KB_BENCH_DEFAULT_MIN_TIME, KB_BENCH_MIN_SAMPLES);
    printf("  -h, --help           show this help\n\n"
           "exit status: 0 %s, 1 %s, 2 bad arguments.\n",
           list ? "success" : "every case ran",
           list ? "failure"
                : "a case failed (recorded in the results), a result is impossible, or an output "
                  "failed");
}

static int usage_error(const char *program, const char *message) {
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program, message, program);
    return EXIT_USAGE;
}

static bool wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
    }
    return false;
}

/* The plan for the options; on failure the exit status is in *status. */
static kb_bench_plan *make_plan(const char *program, const kb_bench_options *o,
                                const kb_bench_def *defs, int ndefs, int *status) {
    kb_bench_plan *plan;
    if (kb_bench_plan_new(&plan) != KB_OK) {
        fprintf(stderr, "%s: %s\n", program, kb_last_error());
        *status = EXIT_FAILED;
        return NULL;
    }
    kb_status st = KB_OK;
    if (defs) {
        /* A malformed definition is the program's bug, not a bad argument. */
        for (int i = 0; i < ndefs && st == KB_OK; i++)
            st = kb_bench_plan_add(plan, &defs[i]);
        *status = EXIT_FAILED;
    } else {
        *status = EXIT_USAGE;
        if (o->nsuites == 0)
            st = kb_bench_plan_add_suite(plan, "quick");
        for (int i = 0; i < o->nsuites && st == KB_OK; i++)
            st = kb_bench_plan_add_suite(plan, o->suites[i]);
        if (st == KB_ENOMEM)
            *status = EXIT_FAILED;
    }
    if (st == KB_OK) {
        *status = EXIT_USAGE;
        st = kb_bench_plan_filter(plan, o->filters, o->nfilters);
    }
    if (st == KB_OK && kb_bench_plan_size(plan) == 0) {
        kb_bench_plan_free(plan);
        *status = usage_error(program, "no case matches the selection");
        return NULL;
    }
    if (st == KB_OK && o->shard_count > 0)
        st = kb_bench_plan_shard(plan, o->shard_index, o->shard_count);
    if (st != KB_OK) {
        if (*status == EXIT_USAGE)
            usage_error(program, kb_last_error());
        else
            fprintf(stderr, "%s: %s\n", program, kb_last_error());
        kb_bench_plan_free(plan);
        return NULL;
    }
    *status = EXIT_OK;
    return plan;
}

static char *join_command(const char *prefix, int argc, char **argv) {
    size_t n = strlen(prefix) + 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 3;
    char *s = malloc(n);
    if (!s)
        return NULL;
    strcpy(s, prefix);
    for (int i = 0; i < argc; i++) {
        if (s[0])
            strcat(s, " ");
        bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t'\"*?[]()|$\\") != NULL;
        if (quote)
            strcat(s, "'");
        strcat(s, argv[i]);
        if (quote)
            strcat(s, "'");
    }
    return s;
}

typedef struct peaks_progress {
    const char *program;
    bool quiet, announced;
} peaks_progress;

static void show_peaks_progress(void *arg, const char *message) {
    peaks_progress *p = arg;
    if (p->quiet)
        return;
    if (!p->announced)
        fprintf(stderr,
                "%s: measuring this machine's peaks for the roofline (once; later runs read them "
                "from the cache)\n",
                p->program);
    p->announced = true;
    fprintf(stderr, "%s: peaks: %s\n", p->program, message);
}

/* The peaks the results are held against, as the options ask, and a note of where they came
 * from. False (after a message) when they cannot be had. */
static bool get_peaks(const char *program, const kb_bench_options *o, kb_peaks *peaks, char *origin,
                      size_t size) {
    if (o->peaks_file) {
        if (kb_peaks_load(o->peaks_file, peaks) != KB_OK) {
            fprintf(stderr, "%s: --peaks: %s\n", program, kb_last_error());
            return false;
        }
        snprintf(origin, size, "file %s", o->peaks_file);
        return true;
    }
    peaks_progress progress = {program, o->quiet, false};
    kb_peaks_options options = {0, o->quick_peaks, show_peaks_progress, &progress};
    kb_peaks_source source;
    if (kb_peaks_get(&options, false, peaks, &source) != KB_OK) {
        fprintf(stderr, "%s: measuring peaks: %s (--no-roofline runs without them)\n", program,
                kb_last_error());
        return false;
    }
    if (source.cache_warning[0] && !o->quiet)
        fprintf(stderr, "%s: peaks: %s\n", program, source.cache_warning);
    snprintf(origin, size, "%s %s%s", source.reused ? "cache" : "measured, cached in",
             source.cache_path, o->quick_peaks ? " (quick)" : "");
    return true;
}

/* Exit status for the baselines' checks: a result that differs from a baseline's fails the
 * run. */
static int check_baselines(const char *program, const kb_results *results) {
    int mismatches = 0;
    const kb_bench_result *first = NULL;
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        if (r->baseline && !r->failed && r->check_detail) {
            mismatches++;
            if (!first)
                first = r;
        }
    }
    if (mismatches == 0)
        return EXIT_OK;
    fprintf(stderr,
            "%s: %d result%s differ%s from the baseline's beyond tolerance; the first, %s: %s\n",
            program, mismatches, mismatches == 1 ? "" : "s", mismatches == 1 ? "s" : "",
            first->name, first->check_detail);
    return EXIT_FAILED;
}

/* Exit status for the plausibility of the results: impossible ones fail the run unless
 * allowed; the others are only counted. */
static int check_plausible(const char *program, const kb_bench_options *o,
                           const kb_results *results) {
    int impossible = 0, high = 0, low = 0;
    const kb_bench_result *first = NULL;
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        if (!r->has_roofline)
            continue;
        if (r->roofline.flags & KB_ROOFLINE_IMPOSSIBLE) {
            if (!first)
                first = r;
            impossible++;
        }
        high += (r->roofline.flags & KB_ROOFLINE_SUSPICIOUS_HIGH) != 0;
        low += (r->roofline.flags & KB_ROOFLINE_SUSPICIOUS_LOW) != 0;
    }
    if (high + low > 0 && !o->quiet)
        fprintf(stderr,
                "%s: %d result%s above %.0f%% of the roofline bound (suspicious-high), %d below "
                "%.0f%% (suspicious-low); see docs/roofline.md\n",
                program, high, high == 1 ? "" : "s", KB_ROOFLINE_HIGH_PERCENT, low,
                KB_ROOFLINE_LOW_PERCENT);
    if (impossible == 0)
        return EXIT_OK;
    const kb_peaks *p = &results->context.peaks;
    if (results->context.has_peaks && p->load_average > 0.5 * results->context.usable_cores)
        fprintf(stderr,
                "%s: the peaks were measured under load (1-minute load average %.2f on %d "
                "cores), which lowers them: measure them again on a quiet machine with `kbench "
                "peaks --refresh`\n",
                program, p->load_average, results->context.usable_cores);
    fprintf(stderr,
            "%s: %s%d result%s above 100%% of the roofline bound (impossible); the first, %s, at "
            "%.1f%%: a byte or FLOP count is wrong, the compiler removed work, or the peaks are "
            "stale%s\n",
            program, o->allow_impossible ? "warning: " : "", impossible,
            impossible == 1 ? " is" : "s are", first->name, first->roofline.percent_of_bound,
            o->allow_impossible ? "" : " (--allow-impossible accepts them)");
    return o->allow_impossible ? EXIT_OK : EXIT_FAILED;
}

static int run(const char *program, const kb_bench_options *o, const kb_bench_plan *plan,
               char *command) {
    static kb_peaks peaks; /* large; one run per process at a time */
    char origin[4200];
    kb_bench_settings settings = o->settings;
    if (!o->no_roofline) {
        if (!get_peaks(program, o, &peaks, origin, sizeof origin)) {
            free(command);
            return EXIT_FAILED;
        }
        settings.peaks = &peaks;
    }
    int n = kb_bench_plan_size(plan), width = 4;
    for (int i = 0; i < n; i++) {
        int len = (int)strlen(kb_bench_plan_case_name(plan, i));
        if (len > width)
            width = len;
    }
    kb_run_display display;
    kb_run_display_init(&display, program, o->format == KB_RESULTS_TABLE, !o->quiet, width);
    kb_bench_observer observer;
    kb_run_display_observer(&display, &observer);
    kb_results results;
    kb_status st = kb_bench_run(plan, &settings, &observer, &results);
    kb_run_display_finish(&display);
    if (st != KB_OK) {
        fprintf(stderr, "%s: %s\n", program, kb_last_error());
        free(command);
        return EXIT_FAILED;
    }
    results.context.command = command;
    if (results.context.has_peaks && !(results.context.peaks_origin = strdup(origin))) {
        fprintf(stderr, "%s: out of memory\n", program);
        kb_results_free(&results);
        return EXIT_FAILED;
    }

    int status = EXIT_OK;
    /* The table's rows were printed as the cases finished; the speedups follow them. */
    kb_status printed = o->format == KB_RESULTS_TABLE
                            ? kb_report_speedup_table(&results, stdout)
                            : kb_results_print(&results, o->format, stdout);
    if (printed != KB_OK) {
        fprintf(stderr, "%s: stdout: %s\n", program, kb_last_error());
        status = EXIT_FAILED;
    }
    fflush(stdout);
    for (int i = 0; i < o->noutputs; i++) {
        if (kb_results_save(&results, o->output_formats[i], o->outputs[i]) != KB_OK) {
            fprintf(stderr, "%s: %s\n", program, kb_last_error());
            status = EXIT_FAILED;
        } else if (!o->quiet) {
            fprintf(stderr, "%s: wrote %s\n", program, o->outputs[i]);
        }
    }
    int unstable = 0;
    for (int i = 0; i < results.ncases; i++)
        unstable += !results.cases[i].failed && results.cases[i].stats.unstable;
    if (unstable > 0)
        fprintf(stderr,
                "%s: warning: %d of %d cases are unstable (MAD above %.0f%% or confidence "
                "interval wider than %.0f%% of the median); see the environment warnings\n",
                program, unstable, results.ncases, 100 * KB_BENCH_UNSTABLE_MAD,
                100 * KB_BENCH_UNSTABLE_CI);
    if (check_plausible(program, o, &results) != EXIT_OK)
        status = EXIT_FAILED;
    if (check_baselines(program, &results) != EXIT_OK)
        status = EXIT_FAILED;
    int failed = kb_results_failed(&results);
    if (failed > 0) {
        const kb_bench_result *first = NULL;
        for (int i = 0; i < results.ncases && !first; i++)
            if (results.cases[i].failed)
                first = &results.cases[i];
        fprintf(stderr, "%s: %d of %d cases failed; the first, %s: %s\n", program, failed,
                results.ncases, first->name, first->error ? first->error : "");
        status = EXIT_FAILED;
    }
    kb_results_free(&results);
    return status;
}

int kb_bench_cli(const char *program, const char *command_prefix, bool list, int argc, char **argv,
                 const kb_bench_def *defs, int ndefs) {
    bool builtin = defs == NULL;
    if (wants_help(argc, argv)) {
        print_help(program, list, builtin);
        return EXIT_OK;
    }
    kb_bench_options o;
    if (kb_bench_options_parse(argc, argv, builtin, &o) != KB_OK)
        return usage_error(program, kb_last_error());
    int status;
    kb_bench_plan *plan = make_plan(program, &o, defs, ndefs, &status);
    if (plan && list) {
        for (int i = 0; i < kb_bench_plan_size(plan); i++)
            printf("%s\n", kb_bench_plan_case_name(plan, i));
        status = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
    } else if (plan) {
        status = run(program, &o, plan, join_command(command_prefix, argc, argv));
    }
    kb_bench_plan_free(plan);
    kb_bench_options_free(&o);
    return status;
}

int kb_bench_main(int argc, char **argv, const kb_bench_def *defs, int ndefs) {
    const char *program = argc > 0 && argv[0] ? argv[0] : "bench";
    if (!defs || ndefs <= 0) {
        fprintf(stderr, "%s: no benchmarks defined\n", program);
        return EXIT_FAILED;
    }
    if (argc > 1 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "list") == 0)) {
        bool list = strcmp(argv[1], "list") == 0;
        char name[512];
        snprintf(name, sizeof name, "%s %s", program, argv[1]);
        return kb_bench_cli(name, program, list, argc - 1, argv + 1, defs, ndefs);
    }
    return kb_bench_cli(program, "", false, argc, argv, defs, ndefs);
}

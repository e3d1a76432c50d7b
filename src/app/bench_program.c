/* The program behind `kbench run`, `kbench list` and kb_bench_main: options, plan, run,
 * output. Everything it prints goes through here and run_display.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbench/bench_main.h"
#include "kbench/results.h"
#include "app/bench_program.h"
#include "app/bench_options.h"
#include "app/plan_json.h"
#include "results/internal.h"
#include "app/run_display.h"
#include "app/usage.h"
#include "util/strings.h"

/* The text of the help before the options: usage, what the program does, the suites; NULL
 * when out of memory. The caller frees it. */
static char *make_synopsis(const char *program, bool list, bool builtin) {
    char *text = NULL;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    const char *suites = builtin ? " [SUITE ...]" : "";
    if (list)
        fprintf(f,
                "usage: %s%s [--filter REGEX ...] [--shard K/N] [--format F]\n\n"
                "Lists the cases a run with the same arguments would measure, one name per line,\n"
                "in the order they run; --format json lists them with their parameters.\n\n",
                program, suites);
    else
        fprintf(f,
                "usage: %s%s [OPTIONS]\n\n"
                "Measures each case: calibrated samples, warm-up, interleaved implementations,\n"
                "robust statistics (kbench's measurement documentation). Prints a table on\n"
                "stdout and progress on stderr; -o writes the results (their schema is in the\n"
                "documentation).\n\n",
                program, suites);
    if (builtin) {
        fprintf(f, "suites (default: quick):\n");
        for (const char *const *s = kb_bench_suite_names(); *s; s++)
            fprintf(f, "  %-9s %s\n", *s, kb_bench_suite_summary(*s));
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The plan for the options; on failure the exit status is in *status. */
static kb_bench_plan *make_plan(const char *program, const kb_bench_options *o,
                                const kb_bench_def *defs, int ndefs, int *status) {
    kb_bench_plan *plan;
    if (kb_bench_plan_new(&plan) != KB_OK) {
        fprintf(stderr, "%s: %s\n", program, kb_last_error());
        *status = KB_EXIT_FAILURE;
        return NULL;
    }
    kb_status st = KB_OK;
    if (defs) {
        /* A malformed definition is the program's bug, not a bad argument. */
        for (int i = 0; i < ndefs && st == KB_OK; i++)
            st = kb_bench_plan_add(plan, &defs[i]);
        *status = KB_EXIT_FAILURE;
    } else {
        *status = KB_EXIT_USAGE;
        if (o->suites.count == 0)
            st = kb_bench_plan_add_suite(plan, "quick");
        for (int i = 0; i < o->suites.count && st == KB_OK; i++)
            st = kb_bench_plan_add_suite(plan, o->suites.items[i]);
        if (st == KB_ENOMEM)
            *status = KB_EXIT_FAILURE;
    }
    if (st == KB_OK) {
        *status = KB_EXIT_USAGE;
        st = kb_bench_plan_filter(plan, o->filters.items, o->filters.count);
    }
    if (st == KB_OK && kb_bench_plan_size(plan) == 0) {
        kb_bench_plan_free(plan);
        *status = kb_usage_error(program, "no case matches the selection");
        return NULL;
    }
    if (st == KB_OK && o->shard.count > 0)
        st = kb_bench_plan_shard(plan, o->shard.index, o->shard.count);
    if (st != KB_OK) {
        if (*status == KB_EXIT_USAGE)
            kb_usage_error(program, "%s", kb_last_error());
        else
            fprintf(stderr, "%s: %s\n", program, kb_last_error());
        kb_bench_plan_free(plan);
        return NULL;
    }
    *status = KB_EXIT_OK;
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
                      size_t size, kb_peaks_source *source) {
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
    if (kb_peaks_get(&options, false, peaks, source) != KB_OK) {
        fprintf(stderr, "%s: measuring peaks: %s (--no-roofline runs without them)\n", program,
                kb_last_error());
        return false;
    }
    if (source->cache_warning[0] && !o->quiet)
        fprintf(stderr, "%s: peaks: %s\n", program, source->cache_warning);
    snprintf(origin, size, "%s %s%s", source->reused ? "cache" : "measured, cached in",
             source->cache_path, o->quick_peaks ? " (quick)" : "");
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
        return KB_EXIT_OK;
    fprintf(stderr,
            "%s: %d result%s differ%s from the baseline's beyond tolerance; the first, %s: %s\n",
            program, mismatches, kb_plural(mismatches), mismatches == 1 ? "s" : "", first->name,
            first->check_detail);
    return KB_EXIT_FAILURE;
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
                program, high, kb_plural(high), KB_ROOFLINE_HIGH_PERCENT, low,
                KB_ROOFLINE_LOW_PERCENT);
    if (impossible == 0)
        return KB_EXIT_OK;
    /* How to measure the peaks again: the cache's, or the file --peaks named. */
    char again[600];
    if (o->peaks_file)
        snprintf(again, sizeof again, "`kbench peaks --refresh --json > %s`", o->peaks_file);
    else
        snprintf(again, sizeof again, "`kbench peaks --refresh`");
    const kb_peaks *p = &results->context.peaks;
    if (results->context.has_peaks && p->load_average > 0.5 * results->context.usable_cores)
        fprintf(stderr,
                "%s: the peaks were measured under load (1-minute load average %.2f on %d "
                "cores), which lowers them: measure them again on a quiet machine with %s\n",
                program, p->load_average, results->context.usable_cores, again);
    char why[320];
    kb_roofline_explain(&first->roofline, why, (int)sizeof why);
    fprintf(stderr,
            "%s: %s%d result%s above 100%% of the roofline bound (impossible); the first, %s, at "
            "%.1f%%%s%s: a byte or FLOP count is wrong, the compiler removed work, or the peaks "
            "are stale (%s measures them again)%s\n",
            program, o->allow_impossible ? "warning: " : "", impossible,
            impossible == 1 ? " is" : "s are", first->name, first->roofline.percent_of_bound,
            why[0] ? ", " : "", why, again,
            o->allow_impossible ? "" : " (--allow-impossible accepts them)");
    return o->allow_impossible ? KB_EXIT_OK : KB_EXIT_FAILURE;
}

/* Probes as short as --quick-peaks' measurements: the pipeline whole, the numbers rough. */
#define QUICK_PROBE_SECONDS 0.05

/* Keeps the run's probes in the peaks' history, and says when they disagree. */
static void note_probes(const char *program, const kb_bench_options *o, const kb_bench_context *c,
                        const kb_peaks_source *source) {
    if (c->nprobes > 0 && source->cache_path[0] &&
        kb_bench_probes_record(c, source->cache_path, source->cache_key) != KB_OK && !o->quiet)
        fprintf(stderr, "%s: peaks: the probes were not added to the history: %s\n", program,
                kb_last_error());
    for (int i = 0; i < c->env.count; i++)
        if (c->env.warnings[i].code == KB_ENV_BANDWIDTH_CHANGED)
            fprintf(stderr,
                    "%s: warning: bandwidth_changed: %s; timings before and after the change "
                    "differ, see docs/roofline.md\n",
                    program, c->env.warnings[i].message);
}

static int run(const char *program, const kb_bench_options *o, const kb_bench_plan *plan,
               char *command) {
    static kb_peaks peaks; /* large; one run per process at a time */
    static kb_peaks_source source;
    char origin[4200];
    kb_bench_settings settings = o->settings;
    if (o->no_monitor)
        settings.monitor_interval_s = 0;
    memset(&source, 0, sizeof source);
    if (!o->no_roofline) {
        if (!get_peaks(program, o, &peaks, origin, sizeof origin, &source)) {
            free(command);
            return KB_EXIT_FAILURE;
        }
        settings.peaks = &peaks;
        /* Peaks from a file are what the user chose to hold the results against. */
        if (!o->peaks_file)
            settings.probe_seconds = o->quick_peaks ? QUICK_PROBE_SECONDS : KB_BENCH_PROBE_SECONDS;
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
        return KB_EXIT_FAILURE;
    }
    results.context.command = command;
    note_probes(program, o, &results.context, &source);
    if (results.context.has_peaks && !(results.context.peaks_origin = strdup(origin))) {
        fprintf(stderr, "%s: out of memory\n", program);
        kb_results_free(&results);
        return KB_EXIT_FAILURE;
    }

    int status = KB_EXIT_OK;
    /* The table's rows were printed as the cases finished; the speedups follow them. */
    kb_status printed = o->format == KB_RESULTS_TABLE
                            ? kb_report_speedup_table(&results, stdout)
                            : kb_results_print(&results, o->format, stdout);
    if (printed != KB_OK) {
        fprintf(stderr, "%s: stdout: %s\n", program, kb_last_error());
        status = KB_EXIT_FAILURE;
    }
    fflush(stdout);
    for (int i = 0; i < o->outputs.count; i++) {
        if (kb_results_save(&results, o->output_formats[i], o->outputs.items[i]) != KB_OK) {
            fprintf(stderr, "%s: %s\n", program, kb_last_error());
            status = KB_EXIT_FAILURE;
        } else if (!o->quiet) {
            fprintf(stderr, "%s: wrote %s\n", program, o->outputs.items[i]);
        }
    }
    if (o->trace) {
        if (kb_results_save_trace(&results, o->trace) != KB_OK) {
            fprintf(stderr, "%s: %s\n", program, kb_last_error());
            status = KB_EXIT_FAILURE;
        } else if (!o->quiet) {
            fprintf(stderr, "%s: wrote %s\n", program, o->trace);
        }
    }
    int unstable = 0;
    for (int i = 0; i < results.ncases; i++)
        unstable += !results.cases[i].failed && results.cases[i].stats.unstable;
    if (unstable > 0)
        fprintf(stderr,
                "%s: warning: %d of %d case%s %s unstable (MAD above %.0f%% or confidence "
                "interval wider than %.0f%% of the median); see the environment warnings\n",
                program, unstable, results.ncases, kb_plural(results.ncases),
                unstable == 1 ? "is" : "are", 100 * KB_BENCH_UNSTABLE_MAD,
                100 * KB_BENCH_UNSTABLE_CI);
    int contended = 0;
    for (int i = 0; i < results.ncases; i++)
        contended += results.cases[i].contended;
    if (contended > 0)
        fprintf(stderr,
                "%s: warning: %d of %d case%s %s contended: other processes or the hypervisor "
                "took %.2g CPUs or more while %s samples were taken (the usage monitor, "
                "docs/measurement.md)\n",
                program, contended, results.ncases, kb_plural(results.ncases),
                contended == 1 ? "was" : "were", KB_USAGE_CONTENDED_CPUS,
                contended == 1 ? "its" : "their");
    if (check_plausible(program, o, &results) != KB_EXIT_OK)
        status = KB_EXIT_FAILURE;
    if (check_baselines(program, &results) != KB_EXIT_OK)
        status = KB_EXIT_FAILURE;
    int failed = kb_results_failed(&results);
    if (failed > 0) {
        const kb_bench_result *first = NULL;
        for (int i = 0; i < results.ncases && !first; i++)
            if (results.cases[i].failed)
                first = &results.cases[i];
        fprintf(stderr, "%s: %d of %d case%s failed; the first, %s: %s\n", program, failed,
                results.ncases, kb_plural(results.ncases), first->name,
                first->error ? first->error : "");
        status = KB_EXIT_FAILURE;
    }
    kb_results_free(&results);
    return status;
}

/* The plan's cases for a list: as JSON, or their names one per line (the other formats of a
 * run, accepted so that a CI job can swap list for run). */
static int print_list(const char *program, kb_results_format format, const kb_bench_plan *plan) {
    if (format == KB_RESULTS_JSON)
        return kb_plan_print_json(plan, stdout) == KB_OK ? KB_EXIT_OK : kb_report_failure(program);
    for (int i = 0; i < kb_bench_plan_size(plan); i++)
        printf("%s\n", kb_bench_plan_case_name(plan, i));
    return KB_EXIT_OK;
}

/* What the parsed options ask for: the plan's cases, or their measurements. */
static int list_or_run(const char *program, const char *command_prefix, bool list,
                       const kb_bench_options *o, int argc, char **argv, const kb_bench_def *defs,
                       int ndefs) {
    if (kb_bench_options_check(o) != KB_OK)
        return kb_usage_error(program, "%s", kb_last_error());
    int status = kb_check_settings(program);
    if (status != KB_EXIT_OK)
        return status;
    kb_bench_plan *plan = make_plan(program, o, defs, ndefs, &status);
    if (plan && list) {
        status = print_list(program, o->format, plan);
    } else if (plan) {
        status = run(program, o, plan, join_command(command_prefix, argc, argv));
    }
    kb_bench_plan_free(plan);
    return status;
}

int kb_bench_cli(const char *program, const char *command_prefix, bool list, int argc, char **argv,
                 const kb_bench_def *defs, int ndefs) {
    bool builtin = defs == NULL;
    kb_bench_options o;
    kb_option table[KB_BENCH_OPTIONS_TABLE_SIZE];
    kb_bench_options_init(&o, list, table);
    char *synopsis = make_synopsis(program, list, builtin);
    if (!synopsis) {
        fprintf(stderr, "%s: out of memory\n", program);
        return KB_EXIT_FAILURE;
    }
    const kb_program p = {
        .name = program,
        .synopsis = synopsis,
        .options = table,
        .epilogue =
            list ? "exit status: 0 success, 1 failure, 2 bad arguments.\n"
                 : "exit status: 0 every case ran, 1 a case failed (recorded in the results),\n"
                   "a result is impossible, or an output failed, 2 bad arguments.\n",
    };
    int status;
    if (kb_program_parse(&p, argc, argv, builtin ? &o.suites : NULL, &status))
        status = list_or_run(program, command_prefix, list, &o, argc, argv, defs, ndefs);
    free(synopsis);
    kb_bench_options_free(&o);
    return status;
}

static int bench_main(int argc, char **argv, const kb_bench_def *defs, int ndefs) {
    const char *program = argc > 0 && argv[0] ? argv[0] : "bench";
    if (!defs || ndefs <= 0) {
        fprintf(stderr, "%s: no benchmarks defined\n", program);
        return KB_EXIT_FAILURE;
    }
    if (argc > 1 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "list") == 0)) {
        bool list = strcmp(argv[1], "list") == 0;
        char name[512];
        snprintf(name, sizeof name, "%s %s", program, argv[1]);
        return kb_bench_cli(name, program, list, argc - 1, argv + 1, defs, ndefs);
    }
    return kb_bench_cli(program, "", false, argc, argv, defs, ndefs);
}

int kb_bench_main(int argc, char **argv, const kb_bench_def *defs, int ndefs) {
    const char *program = argc > 0 && argv[0] ? argv[0] : "bench";
    return kb_finish_stdout(program, bench_main(argc, argv, defs, ndefs));
}

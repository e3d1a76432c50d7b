/* The options of the run and list programs, declared once for parsing and help. */
#include <errno.h>
#include <unistd.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "app/bench_options.h"

static bool parse_int(const char *text, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Parses "K/N" with 1 <= K <= N <= 100000. */
static kb_status parse_shard_text(const char *text, int *index, int *count) {
    const char *slash = strchr(text, '/');
    char k[32];
    if (!slash || (size_t)(slash - text) >= sizeof k)
        return kb_fail(KB_EINVAL, "bad shard '%s' (expected K/N, such as 2/9)", text);
    memcpy(k, text, (size_t)(slash - text));
    k[slash - text] = '\0';
    if (!parse_int(k, 1, 100000, index) || !parse_int(slash + 1, 1, 100000, count) ||
        *index > *count)
        return kb_fail(KB_EINVAL, "bad shard '%s' (expected K/N with 1 <= K <= N)", text);
    return KB_OK;
}

static kb_status parse_shard(const char *name, const char *value, void *target) {
    kb_bench_options *o = target;
    return parse_shard_text(value, &o->shard.index, &o->shard.count);
}

/* numpy, numexpr, torch, torch-compile, jax, python (kbench through its Python module), or
 * kbench=PATH: another build. */
static kb_status add_baseline(const char *name, const char *value, void *target) {
    kb_bench_settings *s = target;
    const char *path = strncmp(value, "kbench=", 7) == 0 ? value + 7 : NULL;
    unsigned library = path ? KB_BASELINE_KBENCH : kb_baseline_from_name(value);
    if (!library || library == KB_BASELINE_KBENCH) {
        if (!path || !*path)
            return kb_option_bad(
                name, value, "numpy, numexpr, torch, torch-compile, jax, python or kbench=PATH");
        if (access(path, X_OK) != 0)
            return kb_fail(KB_EINVAL, "%s %s: %s is not an executable kbench: %s", name, value,
                           path, strerror(errno));
        s->kbench_baseline = path;
    }
    s->baselines |= library;
    return KB_OK;
}

static kb_status parse_cache(const char *name, const char *value, void *target) {
    kb_bench_cache *cache = target;
    if (strcmp(value, "hot") == 0)
        *cache = KB_BENCH_CACHE_HOT;
    else if (strcmp(value, "cold") == 0)
        *cache = KB_BENCH_CACHE_COLD;
    else
        return kb_option_bad(name, value, "hot or cold");
    return KB_OK;
}

static kb_status set_trace(const char *name, const char *path, void *target) {
    /* Checked now, not after the whole run has been measured. */
    kb_status st = strcmp(path, "-") == 0 ? KB_OK : kb_atomic_write_possible(path);
    if (st == KB_OK)
        *(const char **)target = path;
    return st;
}

static kb_status parse_format(const char *name, const char *value, void *target) {
    return kb_results_format_parse(value, target);
}

static kb_status add_output(const char *name, const char *path, void *target) {
    kb_bench_options *o = target;
    kb_results_format format;
    kb_status st = kb_results_format_of_path(path, &format);
    /* Checked now, not after the whole run has been measured. */
    if (st == KB_OK && strcmp(path, "-") != 0)
        st = kb_atomic_write_possible(path);
    if (st != KB_OK)
        return st;
    kb_results_format *grown =
        realloc(o->output_formats, (size_t)(o->outputs.count + 1) * sizeof *grown);
    if (!grown)
        return kb_fail(KB_ENOMEM, "out of memory");
    o->output_formats = grown;
    grown[o->outputs.count] = format;
    return kb_arg_list_push(&o->outputs, path);
}

void kb_bench_options_init(kb_bench_options *o, bool list, kb_option *table) {
    memset(o, 0, sizeof *o);
    kb_bench_settings_default(&o->settings);
    o->settings.monitor_interval_s = KB_BENCH_MONITOR_INTERVAL;
    o->format = KB_RESULTS_TABLE;
    kb_bench_settings *s = &o->settings;
    const kb_option options[] = {
        {KB_OPTION_GROUP, .help = "selection"},
        {KB_OPTION_REPEATED, 'f', "filter", "REGEX", &o->filters,
         .help = "keep cases whose name matches REGEX (POSIX extended, anywhere in the name); a "
                 "leading '-' excludes instead; repeatable: a case is kept if it matches any "
                 "including filter (or there is none) and no excluding one"},
        {KB_OPTION_STRING, 0, "shard", "K/N", o, parse_shard,
         .help = "keep part K of N (1 <= K <= N): deterministic, balanced by estimated cost, "
                 "each case in exactly one part"},

        {KB_OPTION_GROUP, .help = "measurement"},
        {KB_OPTION_DOUBLE, 0, "min-time", "S", &s->min_time, .min = DBL_TRUE_MIN, .max = 3600,
         .expected = "seconds, above 0, at most 3600", .hidden = list,
         .help = "seconds of samples per case (default " KB_STRING(KB_BENCH_DEFAULT_MIN_TIME) ")"},
        {KB_OPTION_INT, 0, "min-samples", "N", &s->min_samples, .min = KB_BENCH_MIN_SAMPLES,
         .max = 1000000,
         .expected = "an integer from " KB_STRING(KB_BENCH_MIN_SAMPLES) " to 1000000",
         .hidden = list,
         .help = "at least N samples per case (default and minimum " KB_STRING(
             KB_BENCH_MIN_SAMPLES) ")"},
        {KB_OPTION_INT, 0, "repetitions", "N", &s->repetitions, .min = 1, .max = 1000,
         .expected = "1 to 1000", .hidden = list,
         .help = "repeat the whole measurement N times (default 1)"},
        {KB_OPTION_STRING, 0, "cache", "hot|cold", &s->cache, parse_cache, .hidden = list,
         .help = "cold reads a buffer twice the last-level cache before each sample (default "
                 "hot)"},
        {KB_OPTION_FLAG, 0, "pin", .target = &s->pin, .hidden = list,
         .help = "pin this thread and each OpenMP thread to its own core"},
        {KB_OPTION_DOUBLE, 0, "monitor-interval", "S", &s->monitor_interval_s, .min = 0.05,
         .max = 60, .expected = "seconds, from 0.05 to 60", .hidden = list,
         .help =
             "sample the machine's activity every S seconds while measuring (default " KB_STRING(
                 KB_BENCH_MONITOR_INTERVAL) "); a result timed while other work took "
                                            "a quarter of a CPU is flagged contended"},
        {KB_OPTION_FLAG, 0, "no-monitor", .target = &o->no_monitor, .hidden = list,
         .help = "no usage monitor"},
        {KB_OPTION_REPEATED, 0, "baseline", "LIB", s, add_baseline, .hidden = list,
         .help = "also time each case with numpy, numexpr, torch, torch-compile or jax, with "
                 "kbench through "
                 "its Python module (python), or with another build of kbench (kbench=PATH, its "
                 "executable) (repeatable), interleaved, on the same input, and check the "
                 "results agree"},

        {KB_OPTION_GROUP, .help = "roofline"},
        {KB_OPTION_STRING, 0, "peaks", "FILE", &o->peaks_file, .hidden = list,
         .help = "hold results against the peaks in FILE (kbench peaks --json) instead of this "
                 "machine's, cached or measured once (~1 min)"},
        {KB_OPTION_FLAG, 0, "quick-peaks", .target = &o->quick_peaks, .hidden = list,
         .help = "short peak measurements (seconds; for tests, not numbers)"},
        {KB_OPTION_FLAG, 0, "no-roofline", .target = &o->no_roofline, .hidden = list,
         .help = "no peaks, no roofline metrics, no plausibility flags"},
        {KB_OPTION_FLAG, 0, "allow-impossible", .target = &o->allow_impossible, .hidden = list,
         .help = "exit 0 even when a result is above 100% of its bound"},

        {KB_OPTION_GROUP, .help = "output"},
        {KB_OPTION_REPEATED, 'o', "output", "FILE", o, add_output, .hidden = list,
         .help = "also write the results to FILE, in the format its extension names: .json, "
                 ".csv or .md; repeatable"},
        {KB_OPTION_STRING, 0, "trace", "FILE", &o->trace, set_trace, .hidden = list,
         .help = "write the run's timeline to FILE as a Chrome trace (Perfetto, "
                 "chrome://tracing): each block of samples with its rates and % of bound"},
        {KB_OPTION_STRING, 0, "format", "F", &o->format, parse_format,
         .help = list ? "json: a JSON array of the cases with their group, parameters and "
                        "estimated cost; table (the default), csv or markdown: one name per "
                        "line"
                      : "stdout as table (default), csv, markdown or json"},
        {KB_OPTION_FLAG, 'q', "quiet", .target = &o->quiet, .hidden = list,
         .help = "no progress on stderr"},
        {.kind = KB_OPTION_END},
    };
    _Static_assert(sizeof options / sizeof options[0] <= KB_BENCH_OPTIONS_TABLE_SIZE,
                   "KB_BENCH_OPTIONS_TABLE_SIZE holds the table");
    memcpy(table, options, sizeof options);
}

kb_status kb_bench_options_check(const kb_bench_options *o) {
    if (o->no_roofline + o->quick_peaks + (o->peaks_file != NULL) > 1)
        return kb_fail(KB_EINVAL, "--peaks, --quick-peaks and --no-roofline exclude one another");
    return KB_OK;
}

void kb_bench_options_free(kb_bench_options *o) {
    kb_arg_list_free(&o->suites);
    kb_arg_list_free(&o->filters);
    kb_arg_list_free(&o->outputs);
    free(o->output_formats);
    o->output_formats = NULL;
}

#ifndef KB_APP_BENCH_OPTIONS_H
#define KB_APP_BENCH_OPTIONS_H

#include <stdbool.h>

#include "app/options.h"
#include "kbench/bench.h"
#include "kbench/results.h"

/* The options of `kbench run`, `kbench list` and of programs built on kb_bench_main. Strings
 * point into argv. */
typedef struct kb_bench_options {
    kb_bench_settings settings;
    kb_arg_list suites; /* the arguments, when the program runs kbench's own suites */
    kb_arg_list filters;
    struct {
        int index, count; /* 0 of 0: not sharded */
    } shard;
    kb_arg_list outputs;
    kb_results_format *output_formats; /* of each output, as its extension names */
    kb_results_format format;          /* of stdout */
    const char *trace;                 /* --trace: the Chrome trace's path, or NULL */
    bool quiet;
    /* Where the roofline's peaks come from: a file (--peaks), short measurements
     * (--quick-peaks), none (--no-roofline), or by default this machine's cached or measured
     * peaks. */
    const char *peaks_file;
    bool quick_peaks, no_roofline;
    bool allow_impossible;
    bool no_monitor;
} kb_bench_options;

enum { KB_BENCH_OPTIONS_TABLE_SIZE = 26 };

/* Sets the defaults, and fills table (of KB_BENCH_OPTIONS_TABLE_SIZE entries) with the
 * options, whose targets are o's fields. A list accepts the options of a run, so that a CI job
 * can swap one for the other, but its help leaves out all but --format, which it uses. */
void kb_bench_options_init(kb_bench_options *o, bool list, kb_option *table);

/* The checks that concern several options at once; KB_EINVAL with a message. */
kb_status kb_bench_options_check(const kb_bench_options *o);

void kb_bench_options_free(kb_bench_options *o);

#endif

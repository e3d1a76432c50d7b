#ifndef KB_APP_BENCH_OPTIONS_H
#define KB_APP_BENCH_OPTIONS_H

#include <stdbool.h>

#include "kbench/bench.h"
#include "kbench/results.h"

/* The options of `kbench run`, `kbench list` and of programs built on kb_bench_main. Strings
 * point into argv. */
typedef struct kb_bench_options {
    kb_bench_settings settings;
    int nsuites;
    const char **suites;
    int nfilters;
    const char **filters;
    int shard_index, shard_count; /* 0 of 0: not sharded */
    int noutputs;
    const char **outputs;
    kb_results_format *output_formats;
    kb_results_format format; /* of stdout */
    bool quiet;
    /* Where the roofline's peaks come from: a file (--peaks), short measurements
     * (--quick-peaks), none (--no-roofline), or by default this machine's cached or measured
     * peaks. */
    const char *peaks_file;
    bool quick_peaks, no_roofline;
    bool allow_impossible;
} kb_bench_options;

/* Parses argv[1 ..] (argv[0] is the command). Positional arguments are suite names when
 * suites_allowed, else an error. KB_EINVAL with a message for anything malformed. */
kb_status kb_bench_options_parse(int argc, char **argv, bool suites_allowed, kb_bench_options *out);

void kb_bench_options_free(kb_bench_options *o);

/* Parses "K/N" with 1 <= K <= N <= 100000. */
kb_status kb_bench_parse_shard(const char *text, int *index, int *count);

#endif

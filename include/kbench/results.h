#ifndef KBENCH_RESULTS_H
#define KBENCH_RESULTS_H

#include <stdio.h>

#include "kbench/error.h"
#include "kbench/run_results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results files and reports: the JSON file of a run (docs/results-schema.md), read back with
 * validation, and the same results as CSV, markdown or a terminal table. */

#define KB_RESULTS_SCHEMA "kbench-results"
#define KB_RESULTS_SCHEMA_VERSION 2

typedef enum kb_results_format {
    KB_RESULTS_TABLE,    /* aligned text for a terminal */
    KB_RESULTS_CSV,      /* one row per case, parameters as columns */
    KB_RESULTS_MARKDOWN, /* the context and a table, ready to paste into a pull request */
    KB_RESULTS_JSON,     /* the results file */
} kb_results_format;

/* "table", "csv", "markdown", "json"; "?" for an invalid value. */
const char *kb_results_format_name(kb_results_format format);

/* Parses a format name ("md" is markdown). */
kb_status kb_results_format_parse(const char *name, kb_results_format *out);

/* The format a file name's extension asks for: .json, .csv, .md or .markdown. */
kb_status kb_results_format_of_path(const char *path, kb_results_format *out);

/* Writes results to a stream in the given format. */
kb_status kb_results_print(const kb_results *results, kb_results_format format, FILE *out);

/* Writes results to a file: whole or not at all (a temporary beside it, then renamed). */
kb_status kb_results_save(const kb_results *results, kb_results_format format, const char *path);

/* Writes the run's timeline to path as a Chrome trace (JSON object format: Perfetto and
 * chrome://tracing open it), whole or not at all: each block of samples is a complete event on
 * the track of its library (kbench, or a baseline's process), with the samples' count, their
 * median and rates, and the case's bytes, FLOPs, rates and roofline as arguments; the untimed
 * call before a block is a "warm-up" event inside it; the usage monitor's samples, when it
 * ran, are counters. Only results measured in this process have blocks: a results file read
 * back has none. */
kb_status kb_results_save_trace(const kb_results *results, const char *path);

/* Combines the shards of one sharded run (kbench run --shard K/N, every K once) into out: the
 * cases of shard 1, then 2, ..., moved out of the shards, under the first shard's context
 * (shard 1 of 1 now, without the monitor's series: each shard's covered its own process).
 * KB_EINVAL, naming the shard by its label (and the case), when the shards are not one run:
 * another commit or build, another kind of machine (architecture, CPU model, CPU count),
 * other suites, filters or settings, another shard count, a shard given twice or missing, or
 * a case in two shards. The shards are left to kb_results_free either way. */
kb_status kb_results_merge(kb_results *shards, const char *const *labels, int n, kb_results *out);

/* Reads a results file, checking it against the schema: KB_EIO when it cannot be read,
 * KB_EFORMAT with a message naming the file and the field ("r.json: cases[3].samples_ns:
 * expected an array of integers") when it is not a valid results file. Unknown keys are
 * ignored, so that newer minor additions still read. */
kb_status kb_results_load(const char *path, kb_results *out);

/* The same from JSON text in memory; label names it in messages. */
kb_status kb_results_parse(const char *text, size_t length, const char *label, kb_results *out);

/* The terminal table, row by row, for output as cases finish. name_width is the width of the
 * case column (the longest name to come). */
void kb_results_table_header(FILE *out, int name_width);
void kb_results_table_row(FILE *out, const kb_bench_result *result, int name_width);

/* "12.3 ns", "4.56 us", "7.89 ms", "1.23 s": three significant digits. */
void kb_format_duration(char *buf, size_t size, double ns);

#ifdef __cplusplus
}
#endif

#endif

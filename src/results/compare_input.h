#ifndef KB_RESULTS_COMPARE_INPUT_H
#define KB_RESULTS_COMPARE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/compare.h"

/* What `kbench compare` needs of one side, whatever file it came from: per case, the times
 * per call, and the facts about the machine and the build that must agree between sides. */
typedef struct kb_sample_set {
    char *name;
    char *op;
    bool failed;
    char *error; /* NULL unless failed */
    int64_t n;
    double *ns; /* time per call of each sample, nanoseconds */
} kb_sample_set;

typedef struct kb_compare_fact {
    const char *what; /* a literal: "CPU model" */
    bool build;
    char value[128];
} kb_compare_fact;

#define KB_COMPARE_MAX_FACTS 16

typedef struct kb_compare_input {
    const char *format; /* "kbench" or "google-benchmark" */
    int nfacts;
    kb_compare_fact facts[KB_COMPARE_MAX_FACTS];
    kb_compare_load load;
    int nsets;
    kb_sample_set *sets;
} kb_compare_input;

/* The facts of a kbench run's machine and build that must agree between sides. */
void kb_compare_input_context_facts(const kb_bench_context *c, kb_compare_input *in);

/* From kbench results. */
kb_status kb_compare_input_from_results(const kb_results *results, kb_compare_input *out);

/* From one A/B run (kbench run --baseline kbench=PATH): base holds each case of the other
 * build (<group>/baseline=kbench/threads=N) under the name of this build's case it stands
 * beside (<group>/simd=auto/threads=N), head that case. KB_EINVAL when the run has no such
 * pair. */
kb_status kb_compare_input_ab(const kb_results *results, kb_compare_input *base,
                              kb_compare_input *head);

/* From Google Benchmark's JSON output (--benchmark_format=json or --benchmark_out): the
 * repetitions of each benchmark are its samples. */
kb_status kb_gbench_from_json(const json_t *root, const char *label, kb_compare_input *out);

/* True when root looks like Google Benchmark output: an object with "context" and an array
 * "benchmarks" whose entries have "run_type". */
bool kb_gbench_detect(const json_t *root);

/* Either kind, told apart by its content. */
kb_status kb_compare_input_from_json(const json_t *root, const char *label, kb_compare_input *out);
kb_status kb_compare_input_load(const char *path, kb_compare_input *out);

/* Adds a fact (value printed with the format). */
void kb_compare_input_fact(kb_compare_input *in, const char *what, bool build, const char *format,
                           ...) __attribute__((format(printf, 4, 5)));

void kb_compare_input_free(kb_compare_input *in);

#endif

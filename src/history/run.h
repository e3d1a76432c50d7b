#ifndef KB_HISTORY_RUN_H
#define KB_HISTORY_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "kbench/results.h"
#include "results/internal.h"

/* A run as the store keeps it, whatever file it came from: when, where (the machine and the
 * build, each a fingerprint of the facts that make the same code run differently, as compare
 * holds them), and per case its summary and raw samples. */

typedef struct kb_hcase {
    const char *name;
    bool failed;
    const char *error; /* NULL unless failed */
    double median, ci_low, ci_high, mad;
    int64_t nsamples, calls_per_sample;
    double gb_per_s, percent_of_bound; /* NAN when unknown */
    char flags[96];
    /* Raw samples, nanoseconds per sample of calls_per_sample calls, one of the two. */
    const int64_t *sample_ints;
    const double *sample_reals;
    int nrepetitions;
    const int64_t *repetition_samples; /* NULL: one repetition of nsamples */
} kb_hcase;

typedef struct kb_hrun {
    const char *kind; /* "kbench", "google-benchmark" */
    int64_t started_at;
    char commit[64];  /* "" when unknown */
    char branch[128]; /* "" when unknown */
    char hostname[256];
    char version[32];            /* kbench's version; "" for Google Benchmark */
    char machine[17], build[17]; /* fingerprints, 16 hex digits */
    char machine_description[256], build_description[512];
    char *machine_facts, *build_facts, *settings; /* JSON text */
    int ncases;
    kb_hcase *cases; /* sorted by name */
    /* What the cases point into. */
    kb_results results;
    kb_compare_input input;
} kb_hrun;

/* From a kbench results file's JSON (its root, and its samples lifted out of the text by
 * kb_results_read_text; NULL: none were) or Google Benchmark's output; label names it in
 * messages. KB_EFORMAT, with the field, for a file that is neither or is malformed. */
kb_status kb_hrun_from_json(const json_t *root, kb_json_lifted *samples, const char *label,
                            kb_hrun *out);

/* The samples of a Google Benchmark case are its repetitions; the rest as for kbench. */
kb_status kb_hrun_from_gbench(const json_t *root, const char *label, kb_hrun *run);
kb_status kb_hrun_from_results(const json_t *root, kb_json_lifted *samples, const char *label,
                               kb_hrun *run);

/* Fills the fingerprints and facts from in's facts (and extra build facts: NULL for none). */
kb_status kb_hrun_fingerprints(kb_hrun *run, const kb_compare_input *in, const char *extra_build);

/* Sorts the cases by name; KB_EFORMAT when a name appears twice. */
kb_status kb_hrun_sort_cases(kb_hrun *run, const char *label);

void kb_hrun_free(kb_hrun *run);

#endif

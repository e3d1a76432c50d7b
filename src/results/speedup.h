#ifndef KB_RESULTS_SPEEDUP_H
#define KB_RESULTS_SPEEDUP_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "kbench/results.h"
#include "kbench/significance.h"

/* The speedup report of a run with baselines (docs/baselines.md): for each of the group's own
 * implementations, its speedup over each baseline of the group, the ratio of medians
 * baseline / kbench with a 95% bootstrap interval over the per-call samples; and for
 * simd=auto, its speedup over simd=scalar at the same thread count. kbench through its Python
 * module (the baseline "python") has rows of its own, against the other Python libraries:
 * Python call vs Python call. */
typedef struct kb_speedup {
    const kb_bench_result *own, *baseline;
    bool python; /* own is kbench through its Python module; baseline another Python library */
    kb_ratio_ci over_baseline;
    /* The fastest (lowest median) of the baselines own is compared with, and own's speedup
     * over it: the same in every row of own. */
    const kb_bench_result *best;
    kb_ratio_ci over_best;
    bool first;                    /* the first row of own */
    const kb_bench_result *scalar; /* simd=auto only: the scalar case at its thread count */
    kb_ratio_ci over_scalar;
} kb_speedup;

typedef struct kb_speedup_report {
    int count;
    kb_speedup *rows; /* in the order of the results */
    /* The run's baselines that could not compute their case (context.baselines.unsupported),
     * an array; NULL when there are none. */
    json_t *unsupported;
    const char *comparison; /* what the run's baselines compare (kb_baseline_comparison) */
    /* What the rows of kbench's own implementations compare (the C-call comparisons). */
    const char *c_comparison;
} kb_speedup_report;

/* The comparison the baselines of results make, from the libraries of its baseline cases. */
const char *kb_results_comparison(const kb_results *results);

/* Rows for every pair that ran: each of the group's own implementations against each baseline
 * of the group that runs at its thread count (a baseline without a threads parameter, such
 * as NumPy, against all) but kbench's Python module, and kbench's Python module at each
 * thread count against each other Python library; none (count 0) without baselines. */
kb_status kb_speedup_report_make(const kb_results *results, kb_speedup_report *out);
void kb_speedup_report_free(kb_speedup_report *report);

/* "simd=auto/threads=1": a case's name after its group's. */
const char *kb_speedup_impl(const kb_bench_result *r);

/* As a table for the terminal, as markdown, as JSON (with the geometric means, over each
 * baseline and over the best of each case, "best"). The Python-call rows lead, in a section of
 * their own, then kbench's C calls. Nothing is written for a report without rows and
 * unsupported baselines (JSON: null without rows; each row and mean says its "comparison"). */
void kb_speedup_print_table(const kb_speedup_report *report, FILE *out);
void kb_speedup_print_markdown(const kb_speedup_report *report, FILE *out);
json_t *kb_speedup_json(const kb_speedup_report *report);

#endif

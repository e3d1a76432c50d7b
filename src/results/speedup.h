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

/* A fused case's speedup over its eager twin (the expr suite's <case>/eval=eager: the same
 * expression through the unfused evaluator, timed in the same rounds; docs/fusion.md): the
 * ratio of medians eager / fused with its 95% interval, computed as the speedups over the
 * baselines are; the ratio of their traffic, eager bytes / fused bytes (each plan's count);
 * and below_traffic when the speedup is less than KB_EAGER_TRAFFIC_SHARE of that ratio (issue
 * 23: fusion that saves traffic must save time in proportion). */
typedef struct kb_eager_speedup {
    const kb_bench_result *fused, *eager;
    kb_ratio_ci over_eager;
    double traffic_ratio;
    bool below_traffic;
} kb_eager_speedup;

#define KB_EAGER_TRAFFIC_SHARE 0.8

typedef struct kb_speedup_report {
    int count;
    kb_speedup *rows; /* in the order of the results */
    int neager;
    kb_eager_speedup *eager; /* each fused case with an eager twin, in the order of the results */
    /* The run's baselines that could not compute their case (context.baselines.unsupported),
     * an array; NULL when there are none. */
    json_t *unsupported;
    const char *comparison; /* what the run's baselines compare (kb_baseline_comparison) */
    /* What the rows of kbench's own implementations compare (the C-call comparisons). */
    const char *c_comparison;
} kb_speedup_report;

/* The comparison the baselines of results make, from the libraries of its baseline cases. */
const char *kb_results_comparison(const kb_results *results);

/* Rows for every pair that ran: each of the group's own implementations (eager twins are a
 * reference, not one of them) against each baseline of the group that runs at its thread count
 * (a baseline without a threads parameter, such as NumPy, against all) but kbench's Python
 * module, and kbench's Python module at each thread count against each other Python library;
 * none (count 0) without baselines. And the eager rows: each case whose eager twin ran. */
kb_status kb_speedup_report_make(const kb_results *results, kb_speedup_report *out);
void kb_speedup_report_free(kb_speedup_report *report);

/* Whether r is an eager twin (parameter eval=eager), the reference of the fused case whose
 * name it extends by /eval=eager. */
bool kb_speedup_is_eager(const kb_bench_result *r);

/* The eager row of a fused case; NULL when it has none. */
const kb_eager_speedup *kb_speedup_eager_of(const kb_speedup_report *report,
                                            const kb_bench_result *fused);

/* "simd=auto/threads=1": a case's name after its group's. */
const char *kb_speedup_impl(const kb_bench_result *r);

/* As a table for the terminal, as markdown, as JSON (with the geometric means, over each
 * baseline and over the best of each case, "best"). The Python-call rows lead, in a section of
 * their own, then kbench's C calls, then (table and markdown) the eager rows. Nothing is written
 * for a report without rows, unsupported baselines and eager rows (JSON: null without rows; each
 * row and mean says its "comparison"; the eager rows are kb_eager_json's). */
void kb_speedup_print_table(const kb_speedup_report *report, FILE *out);
void kb_speedup_print_markdown(const kb_speedup_report *report, FILE *out);
json_t *kb_speedup_json(const kb_speedup_report *report);

/* The eager rows as a table for the terminal and as markdown (nothing without eager rows), and
 * as JSON (null without). */
void kb_eager_print_table(const kb_speedup_report *report, FILE *out);
void kb_eager_print_markdown(const kb_speedup_report *report, FILE *out);
json_t *kb_eager_json(const kb_speedup_report *report);

#endif

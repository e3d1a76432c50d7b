#ifndef KB_RESULTS_REPORT_H
#define KB_RESULTS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "kbench/results.h"

/* The people-facing formats of kb_results_print. */
kb_status kb_report_table(const kb_results *results, FILE *out);
kb_status kb_report_csv(const kb_results *results, FILE *out);
kb_status kb_report_markdown(const kb_results *results, FILE *out);

/* The speedup report after the table (nothing without baselines). */
kb_status kb_report_speedup_table(const kb_results *results, FILE *out);

/* Text inside a markdown table cell: '|' escaped (it would end the cell), a newline a space. */
void kb_report_markdown_cell(FILE *out, const char *s);

/* Spread of a result for people: half the CI's width and the MAD, in % of the median. */
double kb_report_ci_percent(const kb_bench_stats *s);
double kb_report_mad_percent(const kb_bench_stats *s);

/* The roofline of a result for people: "63.1%" of its bound, and where the bound lies, "L2 mem"
 * (memory-bound, working set in L2) or "L1 flop" (compute-bound); "-" without a roofline. */
void kb_report_roofline(const kb_bench_result *r, char *percent, size_t percent_size, char *where,
                        size_t where_size);

/* A result's bandwidth as a share of its run's own probe of its level, "98.0%", and true; "-"
 * and false without one (kb_roofline.percent_of_probe). */
bool kb_report_of_probe(const kb_bench_result *r, char *buf, size_t size);

/* The op of a result: its "op" parameter, else the first part of its name ("reduce"). */
void kb_report_op(const kb_bench_result *r, char *buf, size_t size);

/* "impossible, unstable, 3 outliers": roofline flags, then the statistics' notes; "" when
 * there is nothing to say. */
void kb_report_notes(const kb_bench_result *r, char *buf, size_t size);

#endif

#ifndef KB_RESULTS_COMPARE_REPORT_H
#define KB_RESULTS_COMPARE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "kbench/compare.h"

/* The formats of kb_comparison_print. */
kb_status kb_compare_table(const kb_comparison *c, bool colour, FILE *out);
kb_status kb_compare_markdown(const kb_comparison *c, FILE *out);
kb_status kb_compare_json(const kb_comparison *c, FILE *out);

/* Cells shared by the table and markdown: "1.052", "0.97 to 1.08", "0.0031" or "<1e-99",
 * "-" where the case has no pair. */
void kb_compare_ratio_text(const kb_compare_case *c, char *buf, size_t size);
void kb_compare_ci_text(const kb_compare_case *c, char *buf, size_t size);
void kb_compare_p_text(const kb_compare_case *c, char *buf, size_t size);

/* "3 regressed, 1 improved, 90 unchanged": the verdicts that occur, in enum order. */
void kb_compare_counts_text(const int counts[KB_VERDICT_COUNT], char *buf, size_t size);

#endif

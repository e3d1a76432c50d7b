#ifndef KBENCH_REPORT_H
#define KBENCH_REPORT_H

#include <stdio.h>

#include "kbench/compare.h"
#include "kbench/error.h"
#include "kbench/history.h"
#include "kbench/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The HTML report (docs/report.md): one self-contained page of runs and, optionally, a
 * comparison. Inline CSS, inline SVG charts and a little JavaScript (sorting, filtering, hover
 * details); it loads nothing from the network, and its tables and charts are there without
 * JavaScript. Every string from the input is HTML-escaped. */

typedef struct kb_report_input {
    const kb_results *runs;    /* each run gets its overview, cases, roofline and speedups */
    const char *const *labels; /* one per run, its heading (a path); NULL: "run 1", ... */
    int nruns;
    const kb_comparison *comparison;  /* NULL: no comparison section */
    kb_history *history;              /* NULL: no history section */
    kb_history_select history_select; /* which series and points of the history */
} kb_report_input;

/* Writes the page to a stream. KB_EINVAL when there is nothing to report (no run, no
 * comparison and no history); KB_ENOMEM; KB_EIO on a write error or when the history cannot be
 * read. */
kb_status kb_report_html_print(const kb_report_input *input, FILE *out);

/* Writes the page to path whole or not at all (a temporary beside it, then renamed). */
kb_status kb_report_html_save(const kb_report_input *input, const char *path);

#ifdef __cplusplus
}
#endif

#endif

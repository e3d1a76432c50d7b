#ifndef KB_RESULTS_TRACE_FORMAT_H
#define KB_RESULTS_TRACE_FORMAT_H

#include <stddef.h>

#include <jansson.h>

#include "kbench/trace.h"

/* The pieces the trace reports (kb_trace_print, kb_trace_diff_print) share. */

/* A percentage in at most seven columns ("12.3%", "1234%", "2e+06%"); "-" for NAN. */
void kb_trace_format_percent(char *buf, size_t size, double percent);

/* A kernel name in at most width columns, its end cut to "..." when longer. */
void kb_trace_format_name(char *buf, size_t size, const char *name, int width);

/* An analysis as JSON: its trace, device, counts and groups (the diff embeds it). */
json_t *kb_trace_analysis_json(const kb_trace_analysis *a);

/* A group as JSON (name, count, times, work, rates, percentages, op, peak, flags). */
json_t *kb_trace_group_json(const kb_trace_group *g);

#endif

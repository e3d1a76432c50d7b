#ifndef KB_RESULTS_USAGE_JSON_H
#define KB_RESULTS_USAGE_JSON_H

#include <jansson.h>

#include "kbench/run_results.h"
#include "util/jfield.h"

/* context.monitor: null without a monitor. */
json_t *kb_usage_series_json(const kb_usage_series *series);

/* cases[].usage: null when the monitor saw none of the case's samples. */
json_t *kb_result_usage_json(const kb_bench_result *result);

/* The reverse of each, with validation; both keys may be absent (older files). */
void kb_usage_series_read(jfield *f, const json_t *context, kb_usage_series *series);
void kb_result_usage_read(jfield *f, const json_t *case_object, kb_bench_result *result);

#endif

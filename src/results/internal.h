#ifndef KB_RESULTS_INTERNAL_H
#define KB_RESULTS_INTERNAL_H

/* What the results layer offers the layers below it beyond the public headers: the
 * people-facing report formats, results files as JSON values, compare's inputs (Google
 * Benchmark output among them, and the facts of a machine and a build that must agree), the
 * speedup report over the baselines and the cells of the comparison's tables (for the HTML
 * report, src/report/). Other folders include this header, never results' others. */

#include "results/compare_input.h"
#include "results/compare_report.h"
#include "results/json.h"
#include "results/report.h"
#include "results/speedup.h"

#endif

#ifndef KB_RESULTS_INTERNAL_H
#define KB_RESULTS_INTERNAL_H

/* What the results layer offers the layers below it beyond the public headers: the
 * people-facing report formats, results files as JSON values, and compare's inputs (Google
 * Benchmark output among them, and the facts of a machine and a build that must agree). Other
 * folders include this header, never results' others. */

#include "results/compare_input.h"
#include "results/json.h"
#include "results/report.h"

#endif

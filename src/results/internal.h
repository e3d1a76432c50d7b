#ifndef KB_RESULTS_INTERNAL_H
#define KB_RESULTS_INTERNAL_H

/* What the results layer offers the layers below it beyond the public headers: the
 * people-facing report formats. Other folders include this header, never results' others. */

#include "results/report.h"

#endif

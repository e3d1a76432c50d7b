#ifndef KB_APP_PLAN_JSON_H
#define KB_APP_PLAN_JSON_H

#include <stdio.h>

#include "kbench/bench.h"

/* The cases of a plan as `list --format json` prints them: a JSON array, in the plan's order,
 * of one object per case on a line of its own, with the keys a results file gives the case
 * (name, group, params, implementation) and its estimated cost. KB_ENOMEM or KB_EIO with a
 * message when it cannot be written. */
kb_status kb_plan_print_json(const kb_bench_plan *plan, FILE *out);

#endif

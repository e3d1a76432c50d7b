#ifndef KB_BENCH_BASELINE_SERVE_H
#define KB_BENCH_BASELINE_SERVE_H

#include <stdio.h>

#include "kbench/error.h"

/* Answers baseline-runner requests (one JSON object per line) from in on out until quit or
 * the end of input, as baselines/runner.py does, for the library "kbench": this build. Returns
 * KB_EIO when a reply cannot be written; a bad request gets a failure reply, not a status. */
kb_status kb_baseline_serve(FILE *in, FILE *out);

#endif

#ifndef KB_MACHINE_PEAKS_RATE_H
#define KB_MACHINE_PEAKS_RATE_H

#include "kbench/peaks.h"

/* The best, median, min and max of count rates (sorted in place). */
void kb_rate_from_samples(double *rates, int count, kb_rate *out);

#endif

#ifndef KB_MACHINE_PEAKS_RATE_H
#define KB_MACHINE_PEAKS_RATE_H

#include "kbench/peaks.h"

/* Seconds from CLOCK_MONOTONIC_RAW, which NTP does not slew. */
double kb_monotonic_seconds(void);

/* The best, median, min and max of count rates (sorted in place). */
void kb_rate_from_samples(double *rates, int count, kb_rate *out);

/* Settings with the defaults filled in; KB_EINVAL when out of range. */
kb_status kb_measure_settings_resolve(const kb_measure_settings *in, kb_measure_settings *out);

#endif

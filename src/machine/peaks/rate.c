#include <time.h>

#include "core/internal.h"
#include "machine/peaks/rate.h"

double kb_monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kb_rate_from_samples(double *rates, int count, kb_rate *out) {
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && rates[j - 1] > rates[j]; j--) {
            double t = rates[j];
            rates[j] = rates[j - 1];
            rates[j - 1] = t;
        }
    out->repetitions = count;
    if (count == 0) {
        out->best = out->median = out->min = out->max = 0;
        return;
    }
    out->min = rates[0];
    out->max = out->best = rates[count - 1];
    out->median = count % 2 ? rates[count / 2] : (rates[count / 2 - 1] + rates[count / 2]) / 2;
}

kb_status kb_measure_settings_resolve(const kb_measure_settings *in, kb_measure_settings *out) {
    kb_measure_settings s = in ? *in : (kb_measure_settings){0, 0};
    if (s.seconds == 0)
        s.seconds = 0.02;
    if (s.repetitions == 0)
        s.repetitions = 11;
    if (!(s.seconds > 0 && s.seconds <= 10))
        return kb_fail(KB_EINVAL, "measurement time must be in (0, 10] seconds, not %g", s.seconds);
    if (s.repetitions < 1 || s.repetitions > KB_MEASURE_MAX_REPETITIONS)
        return kb_fail(KB_EINVAL, "repetitions must be from 1 to %d, not %d",
                       KB_MEASURE_MAX_REPETITIONS, s.repetitions);
    *out = s;
    return KB_OK;
}

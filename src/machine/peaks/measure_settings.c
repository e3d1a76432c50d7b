/* The length and repetitions of one peak measurement, defaults filled in and bounds checked. */
#include "core/internal.h"
#include "machine/peaks/measure_settings.h"

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

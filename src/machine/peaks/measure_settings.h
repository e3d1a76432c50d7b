#ifndef KB_MACHINE_PEAKS_MEASURE_SETTINGS_H
#define KB_MACHINE_PEAKS_MEASURE_SETTINGS_H

#include "kbench/peaks.h"

/* Settings with the defaults filled in; KB_EINVAL when out of range. */
kb_status kb_measure_settings_resolve(const kb_measure_settings *in, kb_measure_settings *out);

#endif

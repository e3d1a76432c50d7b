#ifndef KB_MACHINE_INTERNAL_H
#define KB_MACHINE_INTERNAL_H

/* What the machine layer offers other folders (and its probe/ and peaks/ parts each other)
 * beyond the public headers: the cache capacities the roofline's working sets use, the build,
 * machine and peaks as JSON values, and kb_env_add for warnings found outside the checks
 * (a run's bandwidth probes). Other folders include this header, never
 * machine's others. */

#include "machine/machine_json.h"
#include "machine/peaks/peaks_json.h"
#include "machine/peaks/working_sets.h"
#include "machine/probe/env_checks.h"

#endif
